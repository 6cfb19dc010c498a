// Switchboard tokens: the org's API tokens (GET /api/tokens; every org's with gateway:operate),
// never their secrets, each with its roles, state and expiry, and a button that revokes it on
// every replica. Shares dashboard.js's globals ($, el, api, me, can, say).
"use strict";

async function loadTokens() {
  const section = $("tokens-section");
  const sees = can("integrations:view") || can("gateway:operate");
  section.hidden = !sees;
  if (!sees) return;
  const body = await api("GET", "/api/tokens");
  $("tokens").querySelector("tbody").replaceChildren(...body.tokens.map(tokenRow));
  $("tokens-empty").hidden = body.tokens.length > 0;
}

function tokenRow(token) {
  const when = (ms) => (ms ? new Date(ms).toLocaleString() : "—");
  const cells = [token.id, token.org, token.roles.join(", "), token.state,
    when(token.created_at), when(token.expires_at)];
  const tr = el("tr", {}, cells.map((text) => el("td", { textContent: text })));
  tr.dataset.token = token.id;
  tr.dataset.state = token.state;
  const actions = el("td");
  if (token.state === "live" && (can("integrations:manage") || can("gateway:operate"))) {
    const revoke = el("button", { type: "button", textContent: "Revoke" });
    revoke.setAttribute("aria-label", `Revoke token ${token.id}`);
    revoke.addEventListener("click", async () => {
      if (!confirm(`Revoke ${token.id}? Every replica refuses it from its next request.`)) return;
      revoke.disabled = true;
      try {
        await api("DELETE", `/api/tokens/${encodeURIComponent(token.id)}`);
        await loadTokens();
      } catch (e) {
        revoke.disabled = false;
        const error = el("span", { className: "error", role: "alert", textContent: e.message });
        actions.append(error);
      }
    });
    actions.append(revoke);
  }
  tr.append(actions);
  return tr;
}
