// Switchboard connect form: a remote server (name, slug, URL, auth method and its
// credentials) connected through the REST API, whose validation messages show in place.
// Shares dashboard.js's globals ($, el, api, say, token, scheduleRelist).
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
  const body = { name: $("connect-name").value.trim(), slug: $("connect-slug").value.trim(),
    url: $("connect-url").value.trim(), auth_method: $("connect-auth").value };
  const credentials = {};
  for (const input of $("connect-credentials").querySelectorAll("[data-credential]")) {
    const value = input.value.trim();
    if (!value) continue;
    credentials[input.dataset.credential] = input.dataset.credential === "scopes" ? value.split(/[\s,]+/) : value;
  }
  if (Object.keys(credentials).length) body.credentials = credentials;
  $("connect-button").disabled = true;
  try {
    const response = await fetch(`${API}/servers`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) {
      const error = answer.error || {};
      $("connect-error").textContent = `${error.kind || response.status}: ${error.message || response.statusText}`;
      return;
    }
    if (answer.authorize_url) window.open(answer.authorize_url, "_blank", "noopener");
    $("connect-form").reset();
    slugEdited = false;
    credentialFields();
    scheduleRelist();
  } finally {
    $("connect-button").disabled = false;
  }
}

window.addEventListener("DOMContentLoaded", () => {
  $("connect-auth").replaceChildren(...Object.keys(CREDENTIAL_FIELDS).map((m) => el("option", { value: m, textContent: m })));
  credentialFields();
  $("connect-auth").addEventListener("change", credentialFields);
  $("connect-slug").addEventListener("input", () => { slugEdited = true; });
  $("connect-name").addEventListener("input", () => {
    if (!slugEdited) $("connect-slug").value = slugFrom($("connect-name").value);
  });
  $("connect-form").addEventListener("submit", (e) => connect(e).catch((err) => { $("connect-error").textContent = err.message; }));
});
