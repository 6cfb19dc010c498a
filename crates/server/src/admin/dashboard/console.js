// Switchboard console: each tool's definition and schemas, a playground that calls a tool
// through the full pipeline (as an agent, optionally for an end user), an agent's actions
// toggled in place, live figures per server, and the audit log with filters and paging.
// Shares dashboard.js's globals ($, el, api, say, token).
"use strict";

let toolDefs = []; // tools this org's endpoint lists, with their definitions
let allTools = []; // every tool of every server, exposed or not, with why not
let auditNext = null; // the last seq shown, for the next page
let auditAsked = 0; // loads started: only the latest one's answer is shown
const AUDIT_PAGE = 50;

// Called by dashboard.js with /api/policy/tools' list.
function setTools(list) {
  allTools = list;
  toolDefs = list.filter((t) => t.name && t.visible).sort((a, b) => a.name.localeCompare(b.name));
  const select = $("tool-select");
  const current = select.value;
  select.replaceChildren(...toolDefs.map((t) => el("option", { value: t.name, textContent: t.name })));
  if (toolDefs.some((t) => t.name === current)) select.value = current;
  $("console-section").hidden = toolDefs.length === 0;
  $("audit-section").hidden = false;
  // The chain spans every org: checking it is offered to operators only.
  $("chain-line").hidden = !can("gateway:operate");
  $("agents-section").hidden = false;
  if ($("figures-section").hidden) {
    $("figures-section").hidden = false;
    followFigures();
  }
  if (select.value !== current) showTool();
}

function selectedTool() {
  return toolDefs.find((t) => t.name === $("tool-select").value);
}

function annotationText(tool) {
  const a = tool.annotations || {};
  const flags = [];
  if (a.readOnlyHint) flags.push("read-only");
  if (a.destructiveHint) flags.push("destructive");
  if (a.idempotentHint) flags.push("idempotent");
  if (a.openWorldHint) flags.push("open world");
  const title = tool.title || a.title;
  const labels = (tool.labels || []).length ? `labels ${tool.labels.join(", ")}` : "";
  const findings = (tool.findings || []).length ? `${tool.findings.length} scanner finding(s)` : "";
  return [title ? `“${title}”` : "", flags.join(", "), `action ${tool.action_id}`, labels, findings]
    .filter(Boolean).join(" · ");
}

function showTool() {
  const tool = selectedTool();
  if (!tool) return;
  $("tool-description").textContent = tool.description || "(no description)";
  $("tool-annotations").textContent = annotationText(tool);
  $("tool-input-schema").textContent = JSON.stringify(tool.input_schema || {}, null, 2);
  $("tool-output-schema").textContent = tool.output_schema ? JSON.stringify(tool.output_schema, null, 2) : "(none declared)";
  $("tool-form").replaceChildren(...fields(tool.input_schema || {}, ""));
  $("raw-args").value = "{}";
  $("result").replaceChildren();
  delete $("result").dataset.outcome;
}

// Form fields for an object schema: strings, numbers, booleans, enums and nested objects;
// anything else (arrays, unions) is a JSON box. Each input carries its dotted path.
function fields(schema, prefix) {
  const required = new Set(schema.required || []);
  return Object.entries(schema.properties || {}).map(([name, prop]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    const label = `${name}${required.has(name) ? " *" : ""}`;
    const help = prop.description ? el("small", { className: "muted", textContent: prop.description }) : "";
    if (prop.type === "object" && prop.properties) {
      return el("fieldset", {}, [el("legend", { textContent: label }), help, ...fields(prop, path)]);
    }
    let input;
    if (Array.isArray(prop.enum)) {
      const options = required.has(name) ? [] : [el("option", { value: "", textContent: "" })];
      input = el("select", {}, [...options, ...prop.enum.map((v) => el("option", { value: JSON.stringify(v), textContent: String(v) }))]);
      input.dataset.kind = "enum";
    } else if (prop.type === "boolean") {
      input = el("input", { type: "checkbox" });
      input.dataset.kind = "boolean";
    } else if (prop.type === "number" || prop.type === "integer") {
      input = el("input", { type: "number", step: prop.type === "integer" ? "1" : "any" });
      input.dataset.kind = "number";
    } else if (prop.type === "string") {
      input = el("input", { type: "text" });
      input.dataset.kind = "string";
    } else {
      input = el("textarea", { rows: 2, placeholder: "JSON" });
      input.dataset.kind = "json";
    }
    input.dataset.path = path;
    input.required = required.has(name) && input.dataset.kind !== "boolean";
    if (prop.default !== undefined && input.dataset.kind !== "enum") {
      if (input.type === "checkbox") input.checked = Boolean(prop.default);
      else input.value = typeof prop.default === "string" ? prop.default : JSON.stringify(prop.default);
    }
    return el("label", { className: "field" }, [el("span", { textContent: label }), input, help]);
  });
}

// The arguments the form says; empty optional fields are left out.
function formArguments() {
  const args = {};
  for (const input of $("tool-form").querySelectorAll("[data-path]")) {
    const kind = input.dataset.kind;
    let value;
    if (kind === "boolean") value = input.checked;
    else if (input.value === "") continue;
    else if (kind === "number") value = Number(input.value);
    else if (kind === "enum" || kind === "json") value = JSON.parse(input.value);
    else value = input.value;
    const keys = input.dataset.path.split(".");
    let at = args;
    for (const key of keys.slice(0, -1)) at = at[key] = at[key] || {};
    at[keys[keys.length - 1]] = value;
  }
  return args;
}

function showResult(outcome, parts, millis) {
  const box = $("result");
  box.dataset.outcome = outcome;
  box.replaceChildren(el("p", { className: "muted", textContent: `${outcome} · ${millis.toFixed(0)} ms` }), ...parts);
}

function contentParts(result) {
  const parts = [];
  if (result.isError) parts.push(el("p", { className: "error", textContent: "the tool reported an error" }));
  for (const block of result.content || []) {
    if (block.type === "text") parts.push(el("pre", { textContent: block.text }));
    else if (block.type === "image") parts.push(el("img", { src: `data:${block.mimeType};base64,${block.data}`, alt: "image result" }));
    else parts.push(el("pre", { textContent: JSON.stringify(block, null, 2) }));
  }
  if (result.structuredContent !== undefined) {
    parts.push(el("h4", { textContent: "structured" }), el("pre", { textContent: JSON.stringify(result.structuredContent, null, 2) }));
  }
  return parts;
}

async function callTool(event) {
  event.preventDefault();
  const tool = selectedTool();
  if (!tool) return;
  let args;
  try {
    args = $("raw-mode").checked ? JSON.parse($("raw-args").value || "{}") : formArguments();
  } catch (e) {
    showResult("invalid_arguments", [el("p", { className: "error", textContent: `the arguments are not JSON: ${e.message}` })], 0);
    return;
  }
  const agent = $("call-agent").value.trim() || "dashboard";
  const body = { arguments: args };
  const user = $("call-end-user").value.trim();
  if (user) body.end_user_id = user;
  const started = performance.now();
  const response = await fetch(
    `/api/agents/${encodeURIComponent(agent)}/actions/${encodeURIComponent(tool.action_id)}/invoke`,
    { method: "POST", headers: { ...credentials(), "Content-Type": "application/json" }, body: JSON.stringify(body) },
  );
  const millis = performance.now() - started;
  const payload = await response.json().catch(() => ({}));
  if (response.ok) {
    showResult(payload.result.isError ? "tool_error" : "ok", contentParts(payload.result), millis);
  } else {
    const error = payload.error || {};
    showResult(error.kind || `http_${response.status}`, [el("p", { className: "error", textContent: error.message || response.statusText })], millis);
  }
  loadAudit(false).catch((e) => say(e.message));
}

function setRawMode() {
  const raw = $("raw-mode").checked;
  if (raw) {
    try {
      $("raw-args").value = JSON.stringify(formArguments(), null, 2);
    } catch {
      // Keep what the box had.
    }
  }
  $("tool-form").hidden = raw;
  $("raw-args").hidden = !raw;
}

// Loads overlap (a call reloads the table while the operator filters it); an answer that
// arrives after a newer load started is dropped, and the table names the filters it shows.
async function loadAudit(more) {
  const asked = ++auditAsked;
  const shown = new URLSearchParams();
  const filters = [["server", "audit-server"], ["action_id", "audit-action"], ["agent_id", "audit-agent"], ["outcome", "audit-outcome"]];
  for (const [param, id] of filters) {
    const value = $(id).value.trim();
    if (value) shown.set(param, value);
  }
  const q = new URLSearchParams(shown);
  q.set("limit", String(AUDIT_PAGE));
  const since = Number($("audit-since").value);
  if (since) q.set("since_ms", String(Date.now() - since * 60000));
  if (!more) auditNext = null;
  if (more && auditNext !== null) q.set("after_seq", String(auditNext));
  const body = await api("GET", `/api/audit?${q}`);
  if (asked !== auditAsked) return;
  const rows = body.rows.map((r) => {
    const tr = el("tr", {}, [
      el("td", { textContent: String(r.seq) }),
      el("td", { textContent: new Date(r.at).toLocaleTimeString() }),
      el("td", { textContent: r.action_id }),
      el("td", { textContent: r.agent_id || "" }),
      el("td", { textContent: r.end_user_id || "" }),
      el("td", { textContent: r.verdict }),
      el("td", { textContent: r.outcome }),
      el("td", { textContent: (r.duration_us / 1000).toFixed(1) }),
    ]);
    tr.dataset.action = r.action_id;
    tr.dataset.outcome = r.outcome;
    return tr;
  });
  const tbody = $("audit").tBodies[0];
  if (more) tbody.append(...rows);
  else tbody.replaceChildren(...rows);
  $("audit").dataset.filters = shown.toString();
  if (body.next_after_seq !== null && body.next_after_seq !== undefined) auditNext = body.next_after_seq;
  $("audit-more").hidden = body.rows.length < AUDIT_PAGE;
  $("audit-count").textContent = `${tbody.rows.length} row(s)`;
}

// The whole audit chain checked from its first row: intact, or where it breaks.
async function verifyChain() {
  const state = $("chain-state");
  state.className = "muted";
  state.textContent = "checking…";
  const body = await api("GET", "/api/audit/verify");
  state.className = body.ok ? "ok" : "error";
  state.textContent = body.ok ? `intact: ${body.rows} row(s) checked` : `broken: ${body.problem}`;
}

// An agent's actions, grouped by integration (mcp_<server>), each toggled in place.
async function loadAgent(event) {
  if (event) event.preventDefault();
  const agent = $("agent-name").value.trim();
  if (!agent) return;
  const body = await api("GET", `/api/agents/${encodeURIComponent(agent)}/actions`);
  const groups = body.integrations.map((group) => el("fieldset", {}, [
    el("legend", { textContent: `${group.integration} (${group.source})` }),
    ...group.actions.map((action) => {
      const box = el("input", { type: "checkbox", checked: action.enabled, disabled: !can("integrations:manage") });
      box.dataset.action = action.action_id;
      box.addEventListener("change", () => toggleAction(agent, action.action_id, box));
      return el("label", { className: "inline", title: action.description || "" }, [box, ` ${action.name}`]);
    }),
  ]));
  $("agent-actions").replaceChildren(...groups);
  $("agent-actions").dataset.agent = agent;
}

async function toggleAction(agent, actionId, box) {
  box.disabled = true;
  try {
    const path = `/api/agents/${encodeURIComponent(agent)}/actions/${encodeURIComponent(actionId)}`;
    await api("PUT", path, { enabled: box.checked });
    say("");
    box.dataset.saved = String(box.checked);
  } catch (e) {
    box.checked = !box.checked;
    say(e.message);
  } finally {
    box.disabled = false;
  }
}

// Live figures per server over the last five minutes, from the audit rows: calls per second,
// p50 and p99 of the call time, and errors. Read again every five seconds while shown.
const FIGURES_WINDOW_MS = 5 * 60000;
let figuresTimer = null;

function percentile(sorted, p) {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function loadFigures() {
  const since = Date.now() - FIGURES_WINDOW_MS;
  const byServer = new Map();
  let after = null;
  // At most 5,000 rows (five pages): enough for the figures of a dashboard.
  for (let page = 0; page < 5; page++) {
    const q = new URLSearchParams({ limit: "1000", since_ms: String(since) });
    if (after !== null) q.set("after_seq", String(after));
    const body = await api("GET", `/api/audit?${q}`);
    for (const r of body.rows) {
      if (!r.action_id.startsWith("mcp.") || !r.server) continue;
      const s = byServer.get(r.server) || { calls: 0, errors: 0, times: [] };
      s.calls += 1;
      // A call that ended asking its caller for input (input_required) did not fail.
      if (r.outcome !== "ok" && r.outcome !== "input_required") s.errors += 1;
      s.times.push(r.duration_us / 1000);
      byServer.set(r.server, s);
    }
    if (body.rows.length < 1000) break;
    after = body.next_after_seq;
  }
  const seconds = FIGURES_WINDOW_MS / 1000;
  const rows = [...byServer.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([server, s]) => {
    const times = s.times.sort((a, b) => a - b);
    const tr = el("tr", {}, [
      el("td", { textContent: server }),
      el("td", { textContent: String(s.calls) }),
      el("td", { textContent: (s.calls / seconds).toFixed(2) }),
      el("td", { textContent: percentile(times, 50).toFixed(1) }),
      el("td", { textContent: percentile(times, 99).toFixed(1) }),
      el("td", { textContent: String(s.errors) }),
    ]);
    tr.dataset.server = server;
    tr.dataset.calls = String(s.calls);
    tr.dataset.errors = String(s.errors);
    return tr;
  });
  $("figures").tBodies[0].replaceChildren(...rows);
  $("figures-empty").hidden = rows.length > 0;
}

function followFigures() {
  clearTimeout(figuresTimer);
  if (!token && !csrf) return;
  loadFigures()
    .catch((e) => say(e.message))
    .finally(() => { figuresTimer = setTimeout(followFigures, 5000); });
}

window.addEventListener("DOMContentLoaded", () => {
  $("agent-form").addEventListener("submit", (e) => loadAgent(e).catch((err) => say(err.message)));
  $("tool-select").addEventListener("change", showTool);
  $("call-form").addEventListener("submit", (e) => callTool(e).catch((err) => say(err.message)));
  $("raw-mode").addEventListener("change", setRawMode);
  $("audit-filters").addEventListener("submit", (e) => {
    e.preventDefault();
    auditNext = null;
    loadAudit(false).catch((err) => say(err.message));
  });
  $("audit-more").addEventListener("click", () => loadAudit(true).catch((e) => say(e.message)));
  $("chain-verify").addEventListener("click", () => verifyChain().catch((e) => say(e.message)));
});
