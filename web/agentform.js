// The "New game" form: the opponent (a person at the same screen or an agent kind from
// /api/info), the agent's settings as fields, the person's colour and the start position.
// It only builds the spec string `kind:key=value,...`; the server judges the values and says
// what is wrong when the agent is built (at its first search).

const $ = (id) => document.getElementById(id);

// The options each agent kind takes (src/agents/spec.rs), with the server's defaults shown
// as placeholders: an empty field sends nothing and the default applies.
const FIELDS = [
  { key: "model", label: "Model", type: "model", kinds: { az: "", td: "", ga: "", pso: "" } },
  { key: "depth", label: "Depth (plies)", kinds: { alphabeta: "6", td: "1", ga: "1", pso: "1" } },
  { key: "time", label: "Time per move (ms)", kinds: { alphabeta: "", az: "" } },
  { key: "searches", label: "Searches per move", kinds: { mcts: "1000", az: "200" } },
  { key: "nodes", label: "Nodes", kinds: { alphabeta: "" } },
  { key: "king", label: "King value (men)", step: "0.1", kinds: { alphabeta: "1.5" } },
  { key: "hash", label: "Hash table (MB)", kinds: { alphabeta: "16" } },
  { key: "c", label: "Exploration c", step: "0.01", kinds: { mcts: "1.41" } },
  { key: "c_puct", label: "Exploration c_puct", step: "0.05", kinds: { az: "1.25" } },
  { key: "temperature", label: "Temperature (0: best move)", step: "0.1", kinds: { az: "0" } },
  { key: "batch", label: "Leaves per network call", kinds: { az: "8" } },
  { key: "device", label: "Device", type: "select", options: ["auto", "cpu", "gpu"], kinds: { az: "auto" } },
  { key: "search", label: "Search", type: "select", options: ["puct", "gumbel"], kinds: { az: "puct" } },
  { key: "considered", label: "Root actions considered", kinds: { az: "16" }, gumbel: true },
  { key: "c_visit", label: "c_visit", step: "any", kinds: { az: "50" }, gumbel: true },
  { key: "c_scale", label: "c_scale", step: "any", kinds: { az: "1" }, gumbel: true },
];

export class AgentForm {
  constructor(onChange = () => {}) {
    this.onChange = onChange;
    this.help = new Map(); // kind -> help line
    this.fields = new Map(); // key -> {def, row, input}
  }

  /** Fills the selects from /api/info and builds the fields. */
  init(info) {
    const opponent = $("opponent");
    for (const agent of info.agents || []) {
      this.help.set(agent.kind, agent.help);
      opponent.append(new Option(agentLabel(agent.kind), agent.kind));
    }
    this.buildFields(info.models || []);
    fillBallots(info.ballots || []);
    opponent.addEventListener("change", () => this.update());
    // The help lines are long: three lines show, a click shows the rest.
    $("agent-help").addEventListener("click", (e) => e.currentTarget.classList.toggle("open"));
    $("start").addEventListener("change", () => this.showStartRows());
    $("agent-extra").addEventListener("input", () => this.update());
    this.update();
    this.showStartRows();
  }

  buildFields(models) {
    const container = $("agent-fields");
    for (const def of FIELDS) {
      const input = makeInput(def, models);
      input.id = `agent-${def.key}`;
      input.addEventListener(def.type ? "change" : "input", () => this.update());
      const row = document.createElement("label");
      row.className = "field";
      row.append(Object.assign(document.createElement("span"), { textContent: def.label }), input);
      container.append(row);
      this.fields.set(def.key, { def, row, input });
    }
  }

  kind() {
    return $("opponent").value;
  }

  /** Shows the kind's fields with its defaults, its help line and the spec it makes. */
  update() {
    const kind = this.kind();
    const gumbel = $("agent-search")?.value === "gumbel";
    for (const { def, row, input } of this.fields.values()) {
      const applies = kind in def.kinds && (!def.gumbel || gumbel);
      row.hidden = !applies;
      if (applies && !def.type) input.placeholder = def.kinds[kind] || "";
      if (applies && def.type) setDefaultLabel(input, def, kind);
    }
    $("agent-help").textContent = kind === "human" ? "Both sides are played on this screen." : this.help.get(kind) || "";
    $("agent-options").hidden = kind === "human";
    $("agent-spec").textContent = this.spec() || "—";
    this.onChange();
  }

  /** The agent spec (`alphabeta:depth=6`), or null for human vs human. */
  spec() {
    const kind = this.kind();
    if (kind === "human") return null;
    const options = [];
    for (const { def, row, input } of this.fields.values()) {
      const value = input.value.trim();
      if (!row.hidden && value !== "") options.push(`${def.key}=${value}`);
    }
    const extra = $("agent-extra").value.trim().replace(/^[,:\s]+|[,\s]+$/g, "");
    if (extra) options.push(extra);
    return options.length ? `${kind}:${options.join(",")}` : kind;
  }

  userColor() {
    return $("user-color").value;
  }

  /** What POST /api/games needs for the chosen start. */
  startBody() {
    const start = $("start").value;
    if (start === "ballot") return { start, ballot: Number($("ballot").value) };
    if (start === "fen") return { start, fen: $("fen").value.trim() };
    return { start: "initial" };
  }

  showStartRows() {
    const start = $("start").value;
    $("ballot-row").hidden = start !== "ballot";
    $("fen-row").hidden = start !== "fen";
  }
}

const AGENT_NAMES = {
  random: "Random mover",
  mcts: "MCTS (random rollouts)",
  az: "AlphaZero network (az)",
  alphabeta: "Alpha-beta (material)",
  td: "TD(λ) network",
  ga: "Evolved network (GA)",
  pso: "Particle-swarm network (PSO)",
};

const agentLabel = (kind) => AGENT_NAMES[kind] || kind;

/** A number input, or a select whose first option is the server's default. */
function makeInput(def, models) {
  if (def.type === "model") {
    const select = document.createElement("select");
    select.append(new Option("default", ""));
    for (const model of models) select.append(new Option(model, model));
    return select;
  }
  if (def.type === "select") {
    const select = document.createElement("select");
    select.append(new Option("default", ""));
    for (const option of def.options) select.append(new Option(option, option));
    return select;
  }
  const input = document.createElement("input");
  input.type = "number";
  input.step = def.step || "1";
  input.min = "0";
  input.inputMode = "decimal";
  return input;
}

/** The empty choice of a select names what the server does without one. */
function setDefaultLabel(select, def, kind) {
  const first = select.options[0];
  if (def.type === "model") {
    first.textContent = kind === "az" ? "built-in network (default)" : "default";
  } else {
    first.textContent = `${def.kinds[kind]} (default)`;
  }
}

function fillBallots(ballots) {
  const select = $("ballot");
  for (const ballot of ballots) {
    const moves = Array.isArray(ballot.moves) ? ballot.moves.join(" ") : ballot.moves || "";
    const label = ballot.label || `ballot ${ballot.index + 1}`;
    const text = moves && !label.includes(moves) ? `${label}: ${moves}` : label;
    select.append(new Option(text, ballot.index));
  }
}
