// Switchboard console, servers: every server's live state (list merged with the events
// stream), its tools and what the policy holds back, the operations its state and the
// token's roles allow (a failure said in its own row), and one server's page (#server/NAME)
// with its dated state changes and every tool's definition.
// Shares dashboard.js's globals ($, el, api, can, notice, pages, statusListeners).
"use strict";

const OAUTH_METHODS = ["oauth2", "clientCredentials", "authorizationCode"];
const servers = new Map(); // id -> row (list fields merged with the latest status event)
const rowErrors = new Map(); // id -> the last failed operation's message, shown in its row
let allTools = []; // every tool of every server, exposed or not, with why not (/api/policy/tools)
let heldBack = new Map(); // server slug -> ["tool: why"]
let relist = null; // pending timer for re-reading the server list
let openServer = null; // the slug whose page is shown

function slugOf(server) { return server.slug || server.server || server.id; }

async function loadServers() {
  $("connect-section").hidden = !(can("integrations:manage") && me.features.includes("mcp_external_servers"));
  const body = await api("GET", `${API}/servers`);
  const listed = new Map();
  for (const row of body.servers) {
    const known = servers.get(row.id) || {};
    listed.set(row.id, { ...known, ...row, source: row.source || "api" });
  }
  // A server disconnected here or on another replica leaves the table.
  servers.clear();
  for (const [id, row] of listed) servers.set(id, row);
  const policy = await api("GET", "/api/policy/tools");
  allTools = policy.tools;
  heldBack = new Map();
  for (const tool of allTools.filter((t) => !t.visible)) {
    const name = tool.action_id.split(".").slice(2).join(".");
    heldBack.set(tool.server, [...(heldBack.get(tool.server) || []), `${name}: ${whyHidden(tool)}`]);
  }
  if (typeof toolsChanged === "function") toolsChanged();
  if (typeof loadApprovals === "function") await loadApprovals();
  render();
}

function whyHidden(tool) { return tool.quarantined || tool.hidden || tool.withheld || "hidden"; }

function scheduleRelist() {
  clearTimeout(relist);
  relist = setTimeout(() => guarded("servers", loadServers), 300);
}

statusListeners.push((event) => {
  const known = servers.get(event.id);
  const toolsChanged = !known || known.tool_count !== event.tool_count || known.status !== event.status;
  servers.set(event.id, { ...known, ...event, slug: event.server });
  render();
  // The event carries the state history; the list is read again only for a new catalogue.
  if (toolsChanged && event.status === "ready") scheduleRelist();
});

async function operate(id, operation) {
  const name = slugOf(servers.get(id) || { id });
  rowErrors.delete(id);
  try {
    const path = `${API}/servers/${encodeURIComponent(id)}`;
    if (operation === "disconnect") {
      if (!window.confirm(`Disconnect ${name}? Its tools leave every agent and its credentials are deleted.`)) return;
      await api("DELETE", path);
      servers.delete(id);
      render();
      if (openServer === name) go("servers");
      scheduleRelist();
      return;
    }
    const row = await api("POST", `${path}/${operation}`);
    if (row.authorize_url) window.open(row.authorize_url, "_blank", "noopener");
    scheduleRelist();
  } catch (e) {
    rowErrors.set(id, `${operation} failed: ${e.message}`);
    render();
  }
}

function render() {
  const rows = [...servers.values()].sort((a, b) => slugOf(a).localeCompare(slugOf(b)));
  $("servers").tBodies[0].replaceChildren(...rows.map(row));
  const ready = rows.filter((r) => r.status === "ready").length;
  $("summary").textContent = `${ready} of ${rows.length} ready`;
  badge("badge-servers", rows.filter((r) => r.status === "error").length, "in error");
  if (current === "server" && openServer) showServer(openServer);
  if (current === "overview" && typeof drawCards === "function") drawCards();
}

// The operations that make sense in the server's state and that the token's roles allow:
// config-file servers need gateway:operate, the org's own need integrations:manage.
function operationsFor(server) {
  const fromConfig = server.source === "config";
  if (!can(fromConfig ? "gateway:operate" : "integrations:manage")) return [];
  const ops = server.status === "disabled" ? ["enable"] : ["refresh", "disable"];
  if (server.status !== "disabled" && (server.status === "authenticating" || OAUTH_METHODS.includes(server.auth_method))) {
    ops.push("reauthorize");
  }
  if (!fromConfig) ops.push("disconnect");
  return ops;
}

function buttonsFor(server) {
  const buttons = operationsFor(server).map((op) =>
    el("button", { type: "button", textContent: op, onclick: () => operate(server.id, op) }));
  if (server.source !== "config" && can("integrations:manage") && typeof editServer === "function") {
    buttons.unshift(el("button", { type: "button", textContent: "edit", onclick: () => editServer(server) }));
  }
  return buttons;
}

function historyText(server) {
  const changes = (server.status_history || []).slice(-5);
  const facts = [server.protocol_version ? `protocol ${server.protocol_version}` : ""];
  if (changes.length) facts.push(changes.map((c) => `${c.status} ${new Date(c.at_ms).toLocaleTimeString()}`).join(" → "));
  return [facts.filter(Boolean).join(" · "), changes.map((c) => c.status).join(",")];
}

function row(server) {
  const tools = server.discovered_tools || [];
  const details = [];
  if (rowErrors.has(server.id)) details.push(el("div", { className: "error", role: "alert", textContent: rowErrors.get(server.id) }));
  if (server.last_error) details.push(el("div", { className: "error", textContent: server.last_error }));
  if (/^https?:\/\//.test(server.authorize_url || "")) {
    details.push(el("a", { href: server.authorize_url, target: "_blank", rel: "noopener", textContent: "Authorize…" }));
  }
  if (tools.length) details.push(el("div", { className: "tools", textContent: tools.join(", ") }));
  const [text, changes] = historyText(server);
  if (text) {
    const history = el("div", { className: "history muted", textContent: text });
    history.dataset.changes = changes;
    details.push(history);
  }
  for (const line of heldBack.get(slugOf(server)) || []) {
    details.push(el("div", { className: "held-back", textContent: `not exposed: ${line}` }));
  }
  const name = slugOf(server);
  const tr = el("tr", {}, [
    el("td", {}, [el("a", { href: `#server/${encodeURIComponent(name)}`, textContent: name, title: "Open this server's page" })]),
    el("td", { textContent: server.source || "" }),
    el("td", { textContent: server.transport || "http" }),
    el("td", {}, [el("span", { className: `status status-${server.status}`, textContent: server.status })]),
    el("td", { textContent: String(server.tool_count ?? tools.length) }),
    el("td", { textContent: String(server.calls_in_flight ?? "") }),
    el("td", { textContent: server.pid ? String(server.pid) : "" }),
    el("td", {}, details),
    el("td", {}, buttonsFor(server)),
  ]);
  tr.dataset.server = name;
  tr.dataset.status = server.status;
  return tr;
}

// One server's page: state, error, dated state changes, operations, and every tool it offers
// with its definition and whether the policy exposes it (with why not).
function showServer(slug) {
  openServer = slug;
  const server = [...servers.values()].find((s) => slugOf(s) === slug);
  if (!server) {
    $("server-title").textContent = slug;
    $("server-facts").textContent = "No such server (disconnected?).";
    for (const id of ["server-error", "server-waiting"]) $(id).textContent = "";
    for (const id of ["server-history", "server-tools", "server-operations"]) $(id).replaceChildren();
    return;
  }
  $("server-title").textContent = `${slug} (${server.source || "api"}, ${server.transport || "http"})`;
  const facts = [`status ${server.status}`];
  if (server.protocol_version) facts.push(`protocol ${server.protocol_version}`);
  if (server.url) facts.push(server.url);
  $("server-facts").textContent = facts.join(" · ");
  $("server-error").textContent = rowErrors.get(server.id) || server.last_error || "";
  $("server-history").replaceChildren(...(server.status_history || []).map((c) =>
    el("li", { textContent: `${new Date(c.at_ms).toLocaleString()}: ${c.status}` })));
  $("server-operations").replaceChildren(...buttonsFor(server));
  const tools = allTools.filter((t) => t.server === slug);
  $("server-tools").replaceChildren(...tools.map((tool) => {
    const why = tool.visible ? "exposed" : `not exposed: ${whyHidden(tool)}`;
    const schema = (label, value) => el("details", {}, [el("summary", { textContent: label }),
      el("pre", { textContent: value ? JSON.stringify(value, null, 2) : "(none declared)" })]);
    const name = tool.name || tool.action_id;
    const article = el("article", { className: "card" }, [
      el("h4", {}, [tool.visible ? el("a", { href: `#tools/${encodeURIComponent(name)}`, textContent: name }) : name]),
      el("p", { textContent: tool.description || "(no description)" }),
      el("p", { className: "muted", textContent: annotationText(tool) }),
      el("p", { className: tool.visible ? "ok" : "held-back", textContent: why }),
      schema("Input schema", tool.input_schema),
      schema("Output schema", tool.output_schema),
    ]);
    article.dataset.tool = name;
    return article;
  }));
  const waiting = pendingCount(slug);
  $("server-waiting").replaceChildren(...(waiting
    ? [`${waiting} definition(s) waiting for approval: `, el("a", { href: "#policy", textContent: "review" })] : []));
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

pages.servers = { load: () => loadServers() };
pages.server = { load: async (slug) => { await loadServers(); showServer(slug); }, leave: () => { openServer = null; } };
