// The Games tab: every game the server keeps (GET /api/games), the most recently played
// first, filtered by game, player and whether it is over, a page at a time. A game opens on
// the play page at its own address (?game=ID), with its moves and side lines.

import { api, messageOf } from "./api.js";

const $ = (id) => document.getElementById(id);
const PAGE = 25;

const RESULTS = { "1-0": "White won", "0-1": "Black won", "1/2-1/2": "Drawn" };

export class GamesPage {
  /** `nameOf` says how a player reads an agent's spec (a level by its name). */
  constructor(nameOf) {
    this.nameOf = nameOf;
    this.offset = 0;
    this.total = 0;
    this.typing = null;
  }

  init() {
    $("games-filter").addEventListener("submit", (e) => e.preventDefault());
    for (const id of ["games-game", "games-finished"]) {
      $(id).addEventListener("change", () => this.refilter());
    }
    $("games-player").addEventListener("input", () => {
      clearTimeout(this.typing);
      this.typing = setTimeout(() => this.refilter(), 250);
    });
    $("games-newer").addEventListener("click", () => this.page(-PAGE));
    $("games-older").addEventListener("click", () => this.page(PAGE));
  }

  refilter() {
    this.offset = 0;
    return this.show();
  }

  page(step) {
    this.offset = Math.max(0, this.offset + step);
    return this.show();
  }

  /** Loads and draws the page of games the filters ask for. */
  async show() {
    const query = new URLSearchParams({ limit: PAGE, offset: this.offset });
    const filters = { game: $("games-game").value, player: $("games-player").value.trim(), finished: $("games-finished").value };
    for (const [key, value] of Object.entries(filters)) if (value) query.set(key, value);
    try {
      this.draw(await api(`/api/games?${query}`));
    } catch (err) {
      this.draw({ total: 0, offset: 0, games: [] });
      $("games-status").textContent = "";
      $("games-empty").hidden = false;
      $("games-empty").textContent = `The games could not be listed: ${messageOf(err)}`;
    }
  }

  draw(list) {
    this.total = list.total;
    const body = $("games-table").querySelector("tbody");
    body.replaceChildren(...list.games.map((g) => this.row(g)));
    const first = list.games.length ? list.offset + 1 : 0;
    const last = list.offset + list.games.length;
    $("games-status").textContent = list.total
      ? `games ${first}-${last} of ${list.total}`
      : "";
    const filtered = $("games-game").value || $("games-player").value.trim() || $("games-finished").value;
    $("games-empty").hidden = list.total > 0;
    $("games-empty").textContent = filtered
      ? "No game matches these filters."
      : "No games yet: a game started on the Play tab is kept here as it is played.";
    $("games-newer").disabled = list.offset === 0;
    $("games-older").disabled = last >= list.total;
  }

  row(g) {
    const tr = document.createElement("tr");
    tr.dataset.id = g.id;
    const player = (side) => {
      const named = g.names?.[side];
      if (named && named !== "?") return named;
      const spec = g.players[side];
      return spec === "human" ? "a person" : this.nameOf(spec);
    };
    const cells = [
      new Date(g.updated).toLocaleString(),
      g.game === "othello" ? "Othello" : "Checkers",
      player("black"),
      player("white"),
      g.result ? RESULTS[g.result] || g.result : "going on",
      g.opening || "",
      // Whole moves, as a move number counts them.
      String(Math.ceil(g.moves / 2)),
    ];
    for (const text of cells) tr.append(Object.assign(document.createElement("td"), { textContent: text }));
    const open = Object.assign(document.createElement("a"), {
      href: `?game=${g.id}#play`,
      textContent: "Open",
      className: "games-open",
    });
    open.setAttribute("aria-label", `Open game ${g.id}`);
    const cell = document.createElement("td");
    cell.append(open);
    tr.append(cell);
    return tr;
  }
}
