// The "New game" form: the game, the opponent (the computer at a named level, a person at
// the same screen, or an agent set up field by field), the person's colour and the start
// position. The levels, kinds and their options (labels, values, defaults) are the server's
// declarations, served by /api/info, each game its own. The form only builds the spec string
// `kind:key=value,...`; the server judges the values and says what is wrong.

const $ = (id) => document.getElementById(id);

export class AgentForm {
  constructor(onChange = () => {}) {
    this.onChange = onChange;
    this.info = { agents: {}, models: [], databases: [], levels: [] };
    this.kinds = new Map(); // kind -> its declaration from /api/info, for the chosen game
    this.fields = []; // {option, row, input} of the chosen kind
    this.models = [];
  }

  /** Fills the selects from /api/info and builds the fields. */
  init(info) {
    this.info = info;
    const level = $("level");
    (info.levels || []).forEach((l, i) => level.append(new Option(l.name, String(i))));
    level.value = String(info.default_level ?? 0);
    fillBallots(info.ballots || []);
    $("ballot").addEventListener("change", showBallotName);
    $("game-kind").addEventListener("change", () => this.setGame());
    $("opponent-mode").addEventListener("change", () => this.update());
    level.addEventListener("change", () => this.update());
    $("opponent").addEventListener("change", () => this.buildFields());
    // The help lines are long: three lines show, a click shows the rest.
    $("agent-help").addEventListener("click", (e) => e.currentTarget.classList.toggle("open"));
    $("start").addEventListener("change", () => this.showStartRows());
    $("agent-extra").addEventListener("input", () => this.update());
    this.setGame();
    this.showStartRows();
  }

  game() {
    return $("game-kind").value;
  }

  /** Offers the chosen game's agents, models and start positions. */
  setGame(game = this.game()) {
    $("game-kind").value = game;
    const opponent = $("opponent");
    const chosen = opponent.value;
    opponent.replaceChildren();
    this.kinds.clear();
    for (const agent of this.info.agents?.[game] || []) {
      this.kinds.set(agent.kind, agent);
      opponent.append(new Option(agent.label || agent.kind, agent.kind));
    }
    if (this.kinds.has(chosen)) opponent.value = chosen;
    this.models = (this.info.models || []).filter((m) => m.game === game).map((m) => m.name);
    // Ballots are checkers' openings; positions are each game's own text.
    $("start").querySelector('option[value="ballot"]').hidden = game !== "checkers";
    if (game !== "checkers" && $("start").value === "ballot") $("start").value = "initial";
    $("fen").placeholder = game === "checkers" ? "B:W18,22,K30:B14,K1" : "64 squares (X, O, -) then X or O";
    $("move-input").placeholder = game === "checkers" ? "11-15" : "f5";
    this.showStartRows();
    this.buildFields();
  }
  /** One field per option of the chosen kind. */
  buildFields() {
    const container = $("agent-fields");
    container.replaceChildren();
    this.fields = [];
    const agent = this.kinds.get(this.kind());
    for (const option of agent ? agent.options : []) {
      const input = makeInput(option, this.models, this.info.databases || []);
      input.id = `agent-${option.key}`;
      // What leaving out an option without a default means (a sentence) is here, so the
      // narrow field itself reads whole.
      const unset = option.default ? "" : `; left unset: ${option.unset}`;
      input.title = `${option.help}: ${option.expected}${unset}`;
      input.addEventListener(input.tagName === "SELECT" ? "change" : "input", () => this.update());
      const row = document.createElement("label");
      row.className = "field";
      row.append(Object.assign(document.createElement("span"), { textContent: option.label }), input);
      container.append(row);
      this.fields.push({ option, row, input });
    }
    this.update();
  }

  kind() {
    return $("opponent").value;
  }

  mode() {
    return $("opponent-mode").value;
  }

  /** The chosen level's declaration. */
  /** The level whose agent `spec` is, if it is one. */
  levelOf(spec) {
    return (this.info.levels || []).find((l) => l.spec === spec) || null;
  }

  level() {
    return (this.info.levels || [])[Number($("level").value)] || null;
  }

  /** The value a field stands for: what is typed or chosen, else its default. */
  effective(key) {
    const field = this.fields.find((f) => f.option.key === key);
    return field ? field.input.value || field.option.default || "" : "";
  }

  /** Shows the options that apply, the kind's help line and the spec it makes. */
  update() {
    const kind = this.kind();
    const mode = this.mode();
    for (const { option, row } of this.fields) {
      const only = option.only_with;
      row.hidden = Boolean(only) && this.effective(only.key) !== only.value;
    }
    $("level-row").hidden = mode !== "level";
    $("color-row").hidden = mode === "human";
    $("custom-agent").hidden = mode !== "custom";
    const level = this.level();
    const help = $("level-help");
    help.textContent =
      mode === "human"
        ? "Both sides are played on this screen."
        : mode === "level" && level
          ? `${level.name}: ${level.about}.`
          : "";
    // The agent's spec (one long word) is for those who want it, not to wrap the panel.
    help.title = mode === "level" && level ? `The agent: ${level.spec}` : "";
    $("agent-help").textContent = this.kinds.get(kind)?.help || "";
    $("agent-spec").textContent = this.customSpec() || "—";
    this.onChange();
  }

  /** The opponent's agent spec (`alphabeta:depth=6`), or null for human vs human. */
  spec() {
    const mode = this.mode();
    if (mode === "human") return null;
    if (mode === "level") return this.level()?.spec || "az";
    return this.customSpec();
  }

  /** The spec the custom agent's fields make. */
  customSpec() {
    const kind = this.kind();
    if (!kind) return null;
    const options = [];
    for (const { option, row, input } of this.fields) {
      const value = input.value.trim();
      if (!row.hidden && value !== "") options.push(`${option.key}=${value}`);
    }
    const extra = $("agent-extra").value.trim().replace(/^[,:\s]+|[,\s]+$/g, "");
    if (extra) options.push(extra);
    return options.length ? `${kind}:${options.join(",")}` : kind;
  }

  userColor() {
    return $("user-color").value;
  }

  /**
   * Shows who plays a game the page reopened (a reload): the person's colour and the
   * computer as its level, or as the custom agent its spec names.
   */
  showPlayers(players) {
    const black = players?.black ?? "human";
    const white = players?.white ?? "human";
    const agent = black === "human" ? white : black;
    if (agent === "human" || (black !== "human" && white !== "human")) {
      $("opponent-mode").value = black === "human" ? "human" : "custom";
    } else {
      $("user-color").value = black === "human" ? "black" : "white";
      const level = (this.info.levels || []).findIndex((l) => l.spec === agent);
      if (level >= 0) {
        $("opponent-mode").value = "level";
        $("level").value = String(level);
      } else {
        $("opponent-mode").value = "custom";
        const [kind, options = ""] = agent.split(/:(.*)/s);
        if (this.kinds.has(kind)) {
          $("opponent").value = kind;
          this.buildFields();
        }
        $("agent-extra").value = options;
      }
    }
    this.update();
  }

  /** Who plays each side, as POST /api/games takes them: {} when two people play. */
  players() {
    const agent = this.spec();
    const user = this.userColor();
    return agent ? { black: user === "black" ? "human" : agent, white: user === "white" ? "human" : agent } : {};
  }

  /** The chosen time control as POST /api/games takes it: {} for none. */
  clock() {
    const control = $("clock-control").value;
    return control === "none" ? {} : { clock: control };
  }

  /** Shows a reopened game's time control (one the list lacks is added to it). */
  showClock(clock) {
    const select = $("clock-control");
    const control = clock?.control ?? "none";
    if (![...select.options].some((o) => o.value === control)) select.append(new Option(control, control));
    select.value = control;
  }

  /** What POST /api/games needs for the chosen start. */
  startBody() {
    const game = this.game();
    const start = $("start").value;
    if (start === "ballot") return { game, start, ballot: Number($("ballot").value) };
    if (start === "fen") return { game, start, fen: $("fen").value.trim() };
    return { game, start: "initial" };
  }

  showStartRows() {
    const start = $("start").value;
    $("ballot-row").hidden = start !== "ballot";
    $("fen-row").hidden = start !== "fen";
    showBallotName();
  }
}

/**
 * A select of models, of database folders or of a choice's words, or a number input, each
 * showing the default.
 */
function makeInput(option, models, databases) {
  const domain = option.domain;
  if (domain.type === "path" || domain.type === "choice") {
    const select = document.createElement("select");
    const fallback = option.default ? `${option.default} (default)` : "default";
    select.append(new Option(fallback, ""));
    const paths = { databases, model: models }[domain.of] ?? [];
    for (const value of domain.type === "path" ? paths : domain.choices) {
      select.append(new Option(value, value));
    }
    return select;
  }
  const input = document.createElement("input");
  input.type = "number";
  input.step = domain.type === "whole" ? "1" : "any";
  if (domain.min !== undefined) input.min = String(domain.min);
  if (domain.max !== null && domain.max !== undefined && domain.max <= Number.MAX_SAFE_INTEGER) {
    input.max = String(domain.max);
  }
  input.inputMode = "decimal";
  input.placeholder = option.default ?? "unset";
  return input;
}

/**
 * The ballots as choices: `001: 9-13 21-17 5-9` (the drop-down is narrow), those of a named
 * opening grouped under its name, in the server's order (so a name may head several groups).
 */
function fillBallots(ballots) {
  const select = $("ballot");
  let group = null;
  for (const ballot of ballots) {
    const moves = Array.isArray(ballot.moves) ? ballot.moves.join(" ") : ballot.moves || "";
    const label = (ballot.label || `ballot ${ballot.index + 1}`).replace(/^ballot /, "");
    const option = new Option(moves && !label.includes(moves) ? `${label}: ${moves}` : label, ballot.index);
    if (!ballot.name) {
      group = null;
      select.append(option);
      continue;
    }
    if (group?.label !== ballot.name) {
      group = Object.assign(document.createElement("optgroup"), { label: ballot.name });
      select.append(group);
    }
    group.append(option);
  }
}

/** The chosen ballot's opening name under the drop-down (its group's label), if it has one. */
function showBallotName() {
  const name = $("ballot").selectedOptions[0]?.parentElement.label || "";
  $("ballot-name").textContent = name ? `Opening: ${name}` : "";
  $("ballot-name").hidden = !name || $("ballot-row").hidden;
}
