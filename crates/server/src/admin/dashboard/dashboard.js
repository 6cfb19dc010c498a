// Switchboard console, the core: sign-in (an API token in this tab, or a person's session),
// the REST helper, navigation between sections (#servers, #tools…), errors said in the
// section where the action was taken, and the live events stream. Each section's script
// registers a loader in `pages`; talks only to this gateway's REST API.
"use strict";

const API = "/api/integrations/mcp";
let token = null;
let csrf = null; // a person signed in with the organisation's provider: the session's CSRF token
let stream = null; // AbortController of the events stream
let me = { roles: [], features: [] }; // the token's roles and its org's features (GET /api/me)
const pages = {}; // page name -> { load(argument), leave() } registered by each section's script
let current = null; // the page shown
const statusListeners = []; // called with each status event

// Whether the token carries `role` (manage implies view), as the API decides it.
function can(role) {
  return me.roles.includes(role) || (role === "integrations:view" && me.roles.includes("integrations:manage"));
}

function $(id) { return document.getElementById(id); }

// A message for the whole page (signing in, the events stream): the top banner.
function say(text) {
  $("message").textContent = text;
  $("message").hidden = !text;
}

// A message in the section `page`, where its action was taken; empty clears it.
function notice(page, text) {
  const line = document.querySelector(`[data-notice="${page}"]`);
  if (line) line.textContent = text || "";
}

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  Object.assign(node, props);
  for (const child of children) node.append(child);
  return node;
}

function when(ms, never = "—") { return ms ? new Date(ms).toLocaleString() : never; }

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
    failure.kind = error.kind;
    throw failure;
  }
  return body;
}

// Runs `work`, saying its failure in the section `page`.
function guarded(page, work) {
  return Promise.resolve().then(work).catch((e) => notice(page, e.message));
}

// --- navigation ---------------------------------------------------------------------

const PAGES = ["overview", "servers", "server", "tools", "catalog", "agents", "policy", "audit", "tokens", "grants"];

// `#tools/time__get_current_time` → ["tools", "time__get_current_time"].
function route() {
  let hash = location.hash.slice(1);
  try {
    hash = decodeURIComponent(hash);
  } catch {
    // A hand-typed address with a stray "%": read as written.
  }
  const [name, ...rest] = hash.split("/");
  return [PAGES.includes(name) ? name : "overview", rest.join("/")];
}

function show() {
  if (!token && !csrf) return;
  const [name, argument] = route();
  // An anchor that is not a section (the skip link's #main) leaves the page as it is.
  if (location.hash.length > 1 && !PAGES.includes(location.hash.slice(1).split("/")[0])) return;
  if (current && current !== name && pages[current]?.leave) pages[current].leave();
  const changed = current !== name;
  current = name;
  for (const section of document.querySelectorAll("main > section[data-page]")) {
    section.hidden = section.dataset.page !== name;
  }
  const navName = name === "server" ? "servers" : name;
  for (const link of document.querySelectorAll("#nav a")) {
    if (link.dataset.page === navName) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  closeNav();
  notice(name, "");
  if (pages[name]) guarded(name, () => pages[name].load(argument));
  // Keyboard and screen-reader users land on the new section's heading.
  if (changed) document.querySelector(`section[data-page="${name}"] h2`)?.focus({ preventScroll: true });
}

function go(hash) {
  if (location.hash === `#${hash}`) show();
  else location.hash = hash;
}

// On a narrow window the sections are behind a Menu button.
function closeNav() {
  if ($("nav-toggle").hidden) return;
  $("nav").classList.remove("open");
  $("nav-toggle").setAttribute("aria-expanded", "false");
}

function fitNav() {
  const narrow = window.matchMedia("(max-width: 48em)").matches;
  $("nav-toggle").hidden = !narrow || (!token && !csrf);
  if (!narrow) $("nav").classList.remove("open");
}

function badge(id, count, what) {
  $(id).textContent = String(count);
  $(id).setAttribute("aria-label", `${count} ${what}`);
  $(id).title = `${count} ${what}`;
  $(id).hidden = !count;
}

// What one session showed, cleared at sign-out: secrets, results, rows, cached toggles.
function forgetSession() {
  for (const id of ["token-secret", "result", "catalog-detail", "agent-actions", "server-tools"]) $(id).replaceChildren();
  $("token-secret").hidden = true;
  for (const id of ["audit", "tokens", "orgs", "servers", "figures", "held-back", "my-grants"]) $(id).tBodies[0].replaceChildren();
  $("approvals").replaceChildren();
  enabledFor = null;
}

// --- the events stream ---------------------------------------------------------------

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
        // A refused token stays refused: retrying would not help.
        if (response.status === 401 || response.status === 403) {
          $("connection").textContent = "no live states";
          $("connection").title = (body.error && body.error.message) || `HTTP ${response.status}`;
          return;
        }
        throw new Error(`events: HTTP ${response.status}`);
      }
      $("connection").textContent = "live";
      $("connection").title = "";
      delay = 500;
      await readEvents(response.body.getReader());
    } catch (e) {
      if (stream.signal.aborted) return;
      $("connection").title = e.message;
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
      if (/^event: ?status$/m.test(block) && data.length) {
        const event = JSON.parse(data.join("\n"));
        for (const listener of statusListeners) listener(event);
      }
    }
  }
}

// --- signing in and out --------------------------------------------------------------

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
  } catch (e) {
    say(e.message);
    if (e.status === 401) signOut();
    return;
  }
  say("");
  const views = can("integrations:view");
  $("nav").hidden = false;
  for (const name of ["overview", "servers", "tools", "catalog", "agents", "policy", "audit"]) {
    document.querySelector(`#nav a[data-page="${name}"]`).hidden = !views;
  }
  document.querySelector('#nav a[data-page="tokens"]').hidden = !views && !can("gateway:operate");
  document.querySelector('#nav a[data-page="grants"]').hidden = !me.end_user;
  fitNav();
  // Lists every section uses (servers, tools, approvals), then the page asked for.
  // Every section reads these; a refusal here (an org without the feature) is the page's.
  if (views) await loadServers().catch((e) => say(e.message));
  if (!views && me.end_user && !location.hash) location.hash = "grants";
  show();
  if (views) follow();
}

async function signOut() {
  // A person's session ends on every replica before the page says so.
  if (csrf) await fetch("/auth/logout", { method: "POST", headers: credentials() }).catch(() => {});
  if (current && pages[current]?.leave) pages[current].leave();
  current = null;
  token = null;
  csrf = null;
  $("person").textContent = "";
  if (stream) stream.abort();
  sessionStorage.removeItem("switchboard-token");
  me = { roles: [], features: [] };
  // Nothing of this session stays for whoever signs in next in this tab.
  if (typeof forgetSession === "function") forgetSession();
  for (const section of document.querySelectorAll("main > section")) section.hidden = true;
  $("nav").hidden = true;
  $("nav").classList.remove("open");
  fitNav();
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
  $("nav-toggle").addEventListener("click", () => {
    const open = $("nav").classList.toggle("open");
    $("nav-toggle").setAttribute("aria-expanded", String(open));
    if (open) $("nav").querySelector("a:not([hidden])")?.focus();
  });
  window.addEventListener("hashchange", show);
  $("nav").addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || $("nav-toggle").hidden) return;
    closeNav();
    $("nav-toggle").focus();
  });
  window.matchMedia("(max-width: 48em)").addEventListener("change", fitNav);
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
