// The "New game" form: the opponent (a person at the same screen or an agent kind from
// /api/info), the agent's settings as fields, the person's colour and the start position.
// The kinds and their options (labels, values, defaults) are the server's declarations,
// served by /api/info. The form only builds the spec string `kind:key=value,...`; the server
// judges the values and says what is wrong when the agent is built (at its first search).

const $ = (id) => document.getElementById(id);

export class AgentForm {
  constructor(onChange = () => {}) {
    this.onChange = onChange;
    this.kinds = new Map(); // kind -> its declaration from /api/info
    this.fields = []; // {option, row, input} of the chosen kind
    this.models = [];
  }

  /** Fills the selects from /api/info and builds the fields. */
  init(info) {
    const opponent = $("opponent");
    for (const agent of info.agents || []) {
      this.kinds.set(agent.kind, agent);
      opponent.append(new Option(agent.label || agent.kind, agent.kind));
    }
    this.models = info.models || [];
    fillBallots(info.ballots || []);
    opponent.addEventListener("change", () => this.buildFields());
    // The help lines are long: three lines show, a click shows the rest.
    $("agent-help").addEventListener("click", (e) => e.currentTarget.classList.toggle("open"));
    $("start").addEventListener("change", () => this.showStartRows());
    $("agent-extra").addEventListener("input", () => this.update());
    this.buildFields();
    this.showStartRows();
  }

  /** One field per option of the chosen kind. */
  buildFields() {
    const container = $("agent-fields");
    container.replaceChildren();
    this.fields = [];
    const agent = this.kinds.get(this.kind());
    for (const option of agent ? agent.options : []) {
      const input = makeInput(option, this.models);
      input.id = `agent-${option.key}`;
      input.title = `${option.help}: ${option.expected}`;
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

  /** The value a field stands for: what is typed or chosen, else its default. */
  effective(key) {
    const field = this.fields.find((f) => f.option.key === key);
    return field ? field.input.value || field.option.default || "" : "";
  }

  /** Shows the options that apply, the kind's help line and the spec it makes. */
  update() {
    const kind = this.kind();
    for (const { option, row } of this.fields) {
      const only = option.only_with;
      row.hidden = Boolean(only) && this.effective(only.key) !== only.value;
    }
    $("agent-help").textContent =
      kind === "human" ? "Both sides are played on this screen." : this.kinds.get(kind)?.help || "";
    $("agent-options").hidden = kind === "human";
    $("agent-spec").textContent = this.spec() || "—";
    this.onChange();
  }

  /** The agent spec (`alphabeta:depth=6`), or null for human vs human. */
  spec() {
    const kind = this.kind();
    if (kind === "human") return null;
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

/** A select of models or of a choice's words, or a number input, each showing the default. */
function makeInput(option, models) {
  const domain = option.domain;
  if (domain.type === "path" || domain.type === "choice") {
    const select = document.createElement("select");
    const fallback = option.default ? `${option.default} (default)` : `${option.unset} (default)`;
    select.append(new Option(fallback, ""));
    for (const value of domain.type === "path" ? models : domain.choices) {
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
  input.placeholder = option.default ?? option.unset;
  return input;
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
