// Switchboard grants: a signed-in end user's own credentials for per-end-user servers (GET
// /api/me/grants), each with when it was given and last used, and a button that revokes it on
// every replica. Shares dashboard.js's globals ($, el, api, me, notice, pages, when).
"use strict";

async function loadMyGrants() {
  if (!me.end_user) return;
  $("grants-who").textContent = `(as ${me.end_user})`;
  const body = await api("GET", "/api/me/grants");
  $("my-grants").querySelector("tbody").replaceChildren(...body.grants.map(grantRow));
  $("grants-empty").hidden = body.grants.length > 0;
}

function grantRow(grant) {
  const revoke = el("button", { type: "button", textContent: "Revoke" });
  revoke.setAttribute("aria-label", `Revoke ${grant.server}`);
  revoke.addEventListener("click", async () => {
    revoke.disabled = true;
    try {
      await api("DELETE", `/api/me/grants/${encodeURIComponent(grant.server)}`);
      await loadMyGrants();
    } catch (e) {
      revoke.disabled = false;
      notice("grants", e.message);
    }
  });
  const cells = [grant.server, grant.kind, when(grant.issued_at, "never"), when(grant.last_used_at, "never"),
    when(grant.expires_at)];
  const tr = el("tr", {}, cells.map((text) => el("td", { textContent: text })));
  tr.dataset.server = grant.server;
  tr.append(el("td", {}, [revoke]));
  return tr;
}

pages.grants = { load: loadMyGrants };
