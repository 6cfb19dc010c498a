// Switchboard dashboard: every server's live state (from the events stream), its tools, and
// the operations on it. Talks only to this gateway's REST API with the token of this tab.
"use strict";

const API = "/api/integrations/mcp";
const OAUTH_METHODS = ["oauth2", "clientCredentials", "authorizationCode"];
const servers = new Map(); // id -> row (list fields merged with the latest status event)
let token = null;
let csrf = null; // a person signed in with the organisation's provider: the session's CSRF token
let stream = null; // AbortController of the events stream
let relist = null; // pending timer for re-reading the server list
let me = { roles: [], features: [] }; // the token's roles and its org's features (GET /api/me)

// Whether the token carries `role` (manage implies view), as the API decides it.
function can(role) {
  return me.roles.includes(role) || (role === "integrations:view" && me.roles.includes("integrations:manage"));
}

function $(id) { return document.getElementById(id); }

function say(text) {
  $("message").textContent = text;
  $("message").hidden = !text;
}

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  for (const child of children) node.append(child);
  return node;
}

// Who this tab is: an API token's bearer, or a signed-in person (cookie + CSRF header).
function credentials() {
  return token ? { Authorization: `Bearer ${token}` } : { "X-Switchboard-CSRF": csrf || "" };
}

async function api(method, path, json) {
  const headers = credentials();
  const init = { method, headers };
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  }
  const response = await fetch(path, init);
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = body.error || {};
    const failure = new Error(`${error.kind || response.status}: ${error.message || response.statusText}`);
    failure.status = response.status;
    throw failure;
  }
  return body;
}

// Tools the policy keeps from this org's endpoint, by server: quarantined, hidden or withheld.
let heldBack = new Map();

async function loadServers() {
  const body = await api("GET", `${API}/servers`);
  const listed = new Map();
  for (const row of body.servers) {
    const known = servers.get(row.id) || {};
    listed.set(row.id, { ...known, ...row, source: row.source || "api" });
  }
  // A server disconnected here or on another replica leaves the table.
  servers.clear();
  for (const [id, row] of listed) servers.set(id, row);
  try {
    const policy = await api("GET", "/api/policy/tools");
    if (typeof setTools === "function") setTools(policy.tools);
    heldBack = new Map();
    for (const tool of policy.tools.filter((t) => !t.visible)) {
      const why = tool.quarantined || tool.hidden || tool.withheld || "hidden";
      const name = tool.action_id.split(".").slice(2).join(".");
      heldBack.set(tool.server, [...(heldBack.get(tool.server) || []), `${name}: ${why}`]);
    }
  } catch (e) {
    // A token without the integrations role cannot read the policy view: nothing to show.
    if (e.status !== 403) say(e.message);
  }
  if (typeof loadApprovals === "function") await loadApprovals().catch((e) => say(e.message));
  render();
}

function scheduleRelist() {
  clearTimeout(relist);
  relist = setTimeout(() => loadServers().catch((e) => say(e.message)), 300);
}

function onStatus(event) {
  const known = servers.get(event.id);
  const toolsChanged = !known || known.tool_count !== event.tool_count || known.status !== event.status;
  servers.set(event.id, { ...known, ...event, slug: event.server });
  render();
  // The event carries the state history; the list is read again only for a new catalogue.
  if (toolsChanged && event.status === "ready") scheduleRelist();
}

// Server-sent events read with fetch, since EventSource cannot send the Authorization header.
async function follow() {
  stream = new AbortController();
  let delay = 500;
  while ((token || csrf) && !stream.signal.aborted) {
    try {
      const response = await fetch(`${API}/events`, {
        headers: { ...credentials(), Accept: "text/event-stream" },
        signal: stream.signal,
      });
      if (!response.ok) {
        const body = await response.json().catch(() => ({}));
        say((body.error && body.error.message) || `events: HTTP ${response.status}`);
        // A refused token stays refused: retrying would not help.
        if (response.status === 401 || response.status === 403) {
          $("connection").textContent = "not allowed";
          return;
        }
        throw new Error(`events: HTTP ${response.status}`);
      }
      $("connection").textContent = "live";
      delay = 500;
      await readEvents(response.body.getReader());
    } catch (e) {
      if (stream.signal.aborted) return;
      say(e.message);
    }
    $("connection").textContent = "reconnecting…";
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 10000);
  }
}

async function readEvents(reader) {
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trimStart());
      if (/^event: ?status$/m.test(block) && data.length) onStatus(JSON.parse(data.join("\n")));
    }
  }
}

async function operate(id, operation) {
  try {
    say("");
    const path = `${API}/servers/${encodeURIComponent(id)}`;
    if (operation === "disconnect") {
      const name = servers.get(id)?.slug || id;
      if (!window.confirm(`Disconnect ${name}? Its tools leave every agent and its credentials are deleted.`)) return;
      await api("DELETE", path);
      servers.delete(id);
      render();
      scheduleRelist();
      return;
    }
    const row = await api("POST", `${path}/${operation}`);
    if (row.authorize_url) window.open(row.authorize_url, "_blank", "noopener");
    scheduleRelist();
  } catch (e) {
    say(`${operation} ${servers.get(id)?.slug || id}: ${e.message}`);
  }
}

function render() {
  const rows = [...servers.values()].sort((a, b) => (a.slug || "").localeCompare(b.slug || ""));
  const tbody = $("servers").tBodies[0];
  tbody.replaceChildren(...rows.map(row));
  const ready = rows.filter((r) => r.status === "ready").length;
  $("summary").textContent = `${ready} of ${rows.length} ready`;
  $("servers-section").hidden = false;
  if (typeof openServer === "string") showServer(openServer);
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

function row(server) {
  const tools = server.discovered_tools || [];
  const details = [];
  if (server.last_error) details.push(el("div", { className: "error", textContent: server.last_error }));
  if (server.authorize_url) {
    details.push(el("a", { href: server.authorize_url, target: "_blank", rel: "noopener", textContent: "Authorize…" }));
  }
  if (tools.length) details.push(el("div", { className: "tools", textContent: tools.join(", ") }));
  const facts = [server.protocol_version ? `protocol ${server.protocol_version}` : ""];
  const changes = (server.status_history || []).slice(-5);
  if (changes.length) {
    facts.push(changes.map((c) => `${c.status} ${new Date(c.at_ms).toLocaleTimeString()}`).join(" → "));
  }
  if (facts.some(Boolean)) {
    const history = el("div", { className: "history muted", textContent: facts.filter(Boolean).join(" · ") });
    history.dataset.changes = changes.map((c) => c.status).join(",");
    details.push(history);
  }
  for (const line of heldBack.get(server.slug || server.server) || []) {
    details.push(el("div", { className: "held-back", textContent: `not exposed: ${line}` }));
  }
  const buttons = operationsFor(server).map((op) =>
    el("button", { type: "button", textContent: op, onclick: () => operate(server.id, op) }));
  if (server.source !== "config" && can("integrations:manage")) {
    buttons.unshift(el("button", { type: "button", textContent: "edit", onclick: () => editServer(server) }));
  }
  const name = server.slug || server.server || server.id;
  const tr = el("tr", {}, [
    el("td", {}, [el("button", { type: "button", className: "link", textContent: name,
      title: "Open this server's page", onclick: () => showServer(name) })]),
    el("td", { textContent: server.source || "" }),
    el("td", { textContent: server.transport || "http" }),
    el("td", {}, [el("span", { className: `status status-${server.status}`, textContent: server.status })]),
    el("td", { textContent: String(server.tool_count ?? tools.length) }),
    el("td", { textContent: String(server.calls_in_flight ?? "") }),
    el("td", { textContent: server.pid ? String(server.pid) : "" }),
    el("td", {}, details),
    el("td", {}, buttons),
  ]);
  tr.dataset.server = server.slug || server.server || server.id;
  tr.dataset.status = server.status;
  return tr;
}

async function signIn(value) {
  token = value;
  sessionStorage.setItem("switchboard-token", value);
  await enter();
}

// A person signed in through the provider (the session cookie): in, when /api/me says so.
async function signInWithCookie() {
  const response = await fetch("/api/me");
  if (!response.ok) return false;
  const body = await response.json();
  if (!body.csrf) return false;
  csrf = body.csrf;
  $("person").textContent = body.token_id.replace(/^person:/, "");
  await enter();
  return true;
}

async function enter() {
  $("sign-in").hidden = true;
  $("sign-out").hidden = false;
  $("connection").textContent = "connecting…";
  try {
    me = await api("GET", "/api/me");
    const manage = can("integrations:manage") && me.features.includes("mcp_external_servers");
    $("connect-section").hidden = !manage;
    $("call-button").hidden = !manage;
    $("call-note").hidden = manage;
    await loadServers();
    if (typeof loadMyGrants === "function") await loadMyGrants();
    if (typeof loadTokens === "function") await loadTokens();
    say("");
  } catch (e) {
    say(e.message);
    if (e.status === 401) return signOut();
  }
  follow();
}

async function signOut() {
  // A person's session ends on every replica before the page says so.
  if (csrf) await fetch("/auth/logout", { method: "POST", headers: credentials() }).catch(() => {});
  token = null;
  csrf = null;
  $("person").textContent = "";
  if (stream) stream.abort();
  sessionStorage.removeItem("switchboard-token");
  servers.clear();
  me = { roles: [], features: [] };
  for (const id of ["grants-section", "tokens-section", "servers-section", "server-section", "approvals-section", "connect-section", "console-section", "agents-section", "figures-section", "audit-section"]) $(id).hidden = true;
  $("sign-in").hidden = false;
  $("sign-out").hidden = true;
  $("connection").textContent = "not signed in";
}

window.addEventListener("DOMContentLoaded", () => {
  $("sign-in").addEventListener("submit", (e) => {
    e.preventDefault();
    signIn($("token").value.trim());
  });
  $("sign-out").addEventListener("click", signOut);
  // `/#token=…` signs in at once (the fragment never reaches the server) and is then removed.
  const fromLink = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromLink) history.replaceState(null, "", location.pathname);
  const saved = fromLink || sessionStorage.getItem("switchboard-token");
  if (saved) return signIn(saved);
  signInWithCookie().then(async (signedIn) => {
    if (signedIn) return;
    $("sign-in").hidden = false;
    // Sign-in with the organisation's provider, where an issuer offers it.
    const offered = await fetch("/auth/providers").then((r) => (r.ok ? r.json() : { issuers: [] }));
    $("provider-sign-in").hidden = offered.issuers.length === 0;
  });
});
