// Switchboard connect form: a remote server (name, slug, URL, auth method and its
// credentials) connected through the REST API, whose validation messages show in place, and
// whose connection is followed under the form until it is ready or fails (then the form
// edits it, as typed, with the server's error); the same form edits a connected server
// (PATCH; credentials left empty are kept).
// Shares dashboard.js's and servers.js's globals ($, el, api, statusListeners, scheduleRelist).
"use strict";

// The credential fields each auth method takes (the API's `credentials` keys).
const CREDENTIAL_FIELDS = {
  none: [],
  bearer: [["token", "Token", true]],
  apiKey: [["key", "Key", true], ["header_name", "Header (default Authorization)"], ["value_prefix", "Value prefix"]],
  oauth2: [["access_token", "Access token", true], ["refresh_token", "Refresh token", true], ["client_id", "Client id"],
    ["client_secret", "Client secret", true], ["token_url", "Token URL"]],
  clientCredentials: [["client_id", "Client id"], ["client_secret", "Client secret", true], ["token_url", "Token URL"],
    ["scopes", "Scopes (space-separated)"]],
  authorizationCode: [["client_id", "Client id (optional)"], ["client_secret", "Client secret (optional)", true],
    ["scopes", "Scopes (optional)"], ["client_metadata_url", "Client metadata URL (optional)"]],
};

let slugEdited = false;
let editing = null; // the id of the server being edited, or null when connecting one
let watching = null; // the server just connected or saved, followed until ready or failed

// Fills the form with a connected server's settings; saving sends only what it holds.
function editServer(server, keepTyped = false) {
  editing = server.id;
  if (keepTyped) {
    // What the operator typed stays (the connection failed): only the slug locks.
    $("connect-slug").disabled = true;
    $("connect-button").textContent = `Save ${server.slug}`;
    $("connect-cancel").hidden = false;
    for (const input of $("connect-credentials").querySelectorAll("[data-credential]")) input.placeholder = "unchanged when empty";
    return;
  }
  slugEdited = true; // a connected server's slug stays what it is
  $("connect-name").value = server.name || server.slug;
  $("connect-slug").value = server.slug;
  $("connect-slug").disabled = true;
  $("connect-url").value = server.url || "";
  $("connect-auth").value = server.auth_method || "none";
  credentialFields();
  for (const input of $("connect-credentials").querySelectorAll("[data-credential]")) {
    input.placeholder = "unchanged when empty";
  }
  $("connect-button").textContent = `Save ${server.slug}`;
  $("connect-cancel").hidden = false;
  $("connect-error").textContent = "";
  $("connect-status").textContent = "";
  $("connect-section").scrollIntoView();
  $("connect-name").focus();
}

// The connection's outcome, under the form that started it.
function connectionSettled(event) {
  if (!watching || event.id !== watching) return;
  const status = $("connect-status");
  if (event.status === "ready") {
    watching = null;
    status.className = "ok";
    const tools = event.tool_count ?? (event.discovered_tools || []).length;
    status.textContent = `${event.server} is ready: ${tools} tool(s).`;
    if (editing === null || editing === event.id) stopEditing();
  } else if (event.status === "error") {
    watching = null;
    status.textContent = "";
    const server = servers.get(event.id) || event;
    if (editing !== event.id) editServer({ ...server, slug: event.server }, true);
    $("connect-error").textContent = `${event.server} did not connect: ${event.last_error || "error"}. Change what is wrong and save, or disconnect it from its row.`;
  } else if (event.status === "authenticating" && /^https?:\/\//.test(event.authorize_url || "")) {
    status.replaceChildren(`${event.server} waits for authorization: `,
      el("a", { href: event.authorize_url, target: "_blank", rel: "noopener", textContent: "Authorize…" }));
  } else {
    status.className = "muted";
    status.textContent = `${event.server}: ${event.status}…`;
  }
}

function stopEditing() {
  editing = null;
  $("connect-form").reset();
  $("connect-slug").disabled = false;
  $("connect-button").textContent = "Connect";
  $("connect-cancel").hidden = true;
  slugEdited = false;
  credentialFields();
}

function credentialFields() {
  const fields = CREDENTIAL_FIELDS[$("connect-auth").value] || [];
  $("connect-credentials").replaceChildren(...fields.map(([key, label, secret]) => {
    const input = el("input", { type: secret ? "password" : "text", autocomplete: "off" });
    input.dataset.credential = key;
    return el("label", { className: "field" }, [el("span", { textContent: label }), input]);
  }));
}

function slugFrom(name) {
  const slug = name.toLowerCase().replace(/[^a-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  return /^[a-z]/.test(slug) ? slug.slice(0, 32) : `s_${slug}`.slice(0, 32);
}

async function connect(event) {
  event.preventDefault();
  $("connect-error").textContent = "";
  const body = { name: $("connect-name").value.trim(), url: $("connect-url").value.trim(),
    auth_method: $("connect-auth").value };
  if (!editing) body.slug = $("connect-slug").value.trim();
  const credentials = {};
  for (const input of $("connect-credentials").querySelectorAll("[data-credential]")) {
    const value = input.value.trim();
    if (!value) continue;
    credentials[input.dataset.credential] = input.dataset.credential === "scopes" ? value.split(/[\s,]+/) : value;
  }
  if (Object.keys(credentials).length) body.credentials = credentials;
  $("connect-button").disabled = true;
  try {
    const target = editing ? `${API}/servers/${encodeURIComponent(editing)}` : `${API}/servers`;
    const answer = await api(editing ? "PATCH" : "POST", target, body);
    if (answer.authorize_url) window.open(answer.authorize_url, "_blank", "noopener");
    // The form keeps what was typed until the server is ready or says why not.
    watching = answer.id || editing;
    const slug = answer.slug || $("connect-slug").value.trim();
    $("connect-status").className = "muted";
    $("connect-status").textContent = `${slug}: connecting…`;
    // A create answers once the first connection settled; an edit may answer before.
    if (answer.status) connectionSettled({ ...answer, id: watching, server: slug, last_error: answer.last_error || answer.error });
    scheduleRelist();
  } catch (e) {
    // The API's own words (kind: message), in place under the form.
    $("connect-error").textContent = e.message;
  } finally {
    $("connect-button").disabled = false;
  }
}

statusListeners.push(connectionSettled);

window.addEventListener("DOMContentLoaded", () => {
  $("connect-auth").replaceChildren(...Object.keys(CREDENTIAL_FIELDS).map((m) => el("option", { value: m, textContent: m })));
  credentialFields();
  $("connect-auth").addEventListener("change", credentialFields);
  $("connect-slug").addEventListener("input", () => { slugEdited = true; });
  $("connect-name").addEventListener("input", () => {
    if (!slugEdited) $("connect-slug").value = slugFrom($("connect-name").value);
  });
  $("connect-cancel").addEventListener("click", stopEditing);
  $("connect-form").addEventListener("submit", (e) => connect(e).catch((err) => { $("connect-error").textContent = err.message; }));
});
