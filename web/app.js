// Entry point: loads /api/info, wires the four tabs (Play, Rules tutorial, Games, Training)
// and starts the first game. The tab can be named in the address (#play, #tutorial, #games,
// #dashboard).

import { api, messageOf } from "./api.js";
import { Dashboard } from "./dashboard.js";
import { PositionEditor } from "./editor.js";
import { GamesPage } from "./games.js";
import { PlayPage } from "./play.js";
import { screen } from "./screen.js";
import { Tutorial } from "./tutorial.js";

const $ = (id) => document.getElementById(id);
const TABS = ["play", "tutorial", "games", "dashboard"];

const play = new PlayPage();
const tutorial = new Tutorial();
const editor = new PositionEditor(play);
const dashboard = new Dashboard(replayGame);
const games = new GamesPage((spec) => play.nameOf(spec));

async function main() {
  screen.init();
  for (const tab of TABS) $(`tab-${tab}`).addEventListener("click", () => showTab(tab));
  window.addEventListener("hashchange", () => showTab(tabFromHash(), false));
  const info = await loadInfo();
  play.init(info);
  editor.init();
  tutorial.init();
  dashboard.init();
  games.init();
  await screen.show(play.session);
  await play.start();
  const first = tabFromHash();
  if (first !== "play") await showTab(first, false);
  screen.markReady();
}

/** The server's agents, models and ballots; the page still works (human vs human) without. */
async function loadInfo() {
  try {
    const info = await api("/api/info");
    $("version").textContent = info.version ? `v${info.version}` : "";
    return info;
  } catch (err) {
    screen.say(`Could not load the server's information: ${messageOf(err)}`, "error");
    return { agents: {}, models: [], levels: [], ballots: [] };
  }
}

function tabFromHash() {
  const name = location.hash.replace("#", "");
  return TABS.includes(name) ? name : "play";
}

/** Shows one tab; the game tabs share the board, the message area follows the tab. */
async function showTab(tab, updateHash = true) {
  document.body.dataset.tab = tab;
  for (const name of TABS) {
    const button = $(`tab-${name}`);
    button.classList.toggle("active", name === tab);
    button.setAttribute("aria-selected", String(name === tab));
  }
  const gameTab = tab === "play" || tab === "tutorial";
  $("game-view").hidden = !gameTab;
  $("games-view").hidden = tab !== "games";
  $("dashboard-view").hidden = tab !== "dashboard";
  $("setup-panel").hidden = tab !== "play";
  $("play-panel").hidden = tab !== "play";
  $("tutorial-panel").hidden = tab !== "tutorial";
  $(gameTab ? "message-slot-game" : `message-slot-${tab}`).append($("message"));
  if (updateHash && location.hash !== `#${tab}`) history.replaceState(null, "", `#${tab}`);
  screen.say("");
  if (tab === "play") await screen.show(play.session);
  else if (tab === "tutorial") await tutorial.show(play.form.game());
  else if (tab === "games") await games.show();
  else await dashboard.show();
}

/** A sample game from the dashboard, replayed on the play page. */
async function replayGame(pdn, game = "checkers", index = 0) {
  await showTab("play");
  await play.loadPdn(pdn, game, index);
}

/**
 * Frees the tutorial's game when the page goes away for good. The play page's game stays:
 * it has its own address, which a reload or another tab opens.
 */
function releaseGames(event) {
  if (event.persisted) return; // kept in the back-forward cache: the game is still shown
  const id = tutorial.session.id;
  if (id !== null) fetch(`/api/games/${id}`, { method: "DELETE", keepalive: true }).catch(() => {});
}

window.addEventListener("pagehide", releaseGames);
main().catch((err) => screen.say(messageOf(err), "error"));
