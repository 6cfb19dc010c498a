// Switchboard console, tokens and orgs: the org's API tokens (every org's with
// gateway:operate), never their secrets, each revocable on every replica; a form that makes a
// token and shows its secret once; and, for an operator, the orgs: made, their features
// changed, deleted. Shares dashboard.js's globals ($, el, api, me, can, notice, pages, when).
"use strict";

const ROLES = ["integrations:view", "integrations:manage", "gateway:operate", "end_users:assert"];
const FEATURES = ["mcp_external_servers"];

async function loadTokens() {
  const body = await api("GET", "/api/tokens");
  $("tokens").querySelector("tbody").replaceChildren(...body.tokens.map(tokenRow));
  $("tokens-empty").hidden = body.tokens.length > 0;
}

function mayManageTokens() { return can("integrations:manage") || can("gateway:operate"); }

function tokenRow(token) {
  const cells = [token.id, token.org, token.roles.join(", "), token.state, when(token.created_at), when(token.expires_at)];
  const tr = el("tr", {}, cells.map((text) => el("td", { textContent: text })));
  tr.dataset.token = token.id;
  tr.dataset.state = token.state;
  const actions = el("td");
  if (token.state === "live" && mayManageTokens()) {
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
        actions.append(el("span", { className: "error", role: "alert", textContent: e.message }));
      }
    });
    actions.append(revoke);
  }
  tr.append(actions);
  return tr;
}

function drawTokenForm(orgs) {
  $("token-form").hidden = !mayManageTokens();
  // Only an operator may give gateway:operate; an org's manager gives its org's roles.
  const offered = ROLES.filter((r) => r !== "gateway:operate" || can("gateway:operate"));
  $("token-roles").replaceChildren(...offered.map((role) => {
    const box = el("input", { type: "checkbox", value: role, checked: role === "integrations:view" });
    return el("label", { className: "inline" }, [box, ` ${role}`]);
  }));
  $("token-org-field").hidden = !orgs;
  if (orgs) {
    $("token-org").replaceChildren(...orgs.map((o) => el("option", { value: o.name, textContent: o.name, selected: o.name === me.org })));
  }
}

async function createToken(event) {
  event.preventDefault();
  notice("tokens", "");
  const roles = [...$("token-roles").querySelectorAll("input:checked")].map((b) => b.value);
  const body = { roles };
  const expires = $("token-expires").value;
  if (expires) body.expires = expires;
  if (!$("token-org-field").hidden) body.org = $("token-org").value;
  const made = await api("POST", "/api/tokens", body);
  const secret = el("code", { textContent: made.token });
  const copy = el("button", { type: "button", textContent: "Copy" });
  copy.addEventListener("click", () => navigator.clipboard.writeText(made.token).then(() => { copy.textContent = "Copied"; },
    () => { copy.textContent = "Select and copy it"; }));
  $("token-secret").replaceChildren(el("p", {}, [`Token ${made.id} for ${made.org}: `, secret, " ", copy]),
    el("p", { className: "held-back", textContent: "Shown this once: keep it now." }));
  $("token-secret").hidden = false;
  $("token-secret").dataset.token = made.id;
  await loadTokens();
}

async function loadOrgs() {
  const operator = can("gateway:operate");
  $("orgs-part").hidden = !operator;
  if (!operator) return null;
  const body = await api("GET", "/api/orgs");
  $("orgs").tBodies[0].replaceChildren(...body.orgs.map(orgRow));
  return body.orgs;
}

function orgRow(org) {
  const features = FEATURES.map((feature) => {
    const box = el("input", { type: "checkbox", checked: org.features.includes(feature) });
    box.dataset.feature = feature;
    box.addEventListener("change", () => guarded("tokens", async () => {
      box.disabled = true;
      const next = box.checked ? [...new Set([...org.features, feature])] : org.features.filter((f) => f !== feature);
      try {
        const body = await api("PATCH", `/api/orgs/${encodeURIComponent(org.name)}`, { features: next });
        org.features = body.org.features;
      } catch (e) {
        box.checked = !box.checked;
        throw e;
      } finally {
        box.disabled = false;
      }
    }));
    return el("label", { className: "inline" }, [box, ` ${feature}`]);
  });
  const remove = el("button", { type: "button", textContent: "Delete" });
  remove.setAttribute("aria-label", `Delete org ${org.name}`);
  remove.addEventListener("click", () => guarded("tokens", async () => {
    if (!confirm(`Delete org ${org.name}? Its servers, tokens and settings go with it.`)) return;
    await api("DELETE", `/api/orgs/${encodeURIComponent(org.name)}`);
    await loadTokensPage();
  }));
  const tr = el("tr", {}, [el("td", { textContent: org.name }), el("td", { textContent: org.id }),
    el("td", {}, features), el("td", { textContent: when(org.created_at) }), el("td", {}, [remove])]);
  tr.dataset.org = org.name;
  return tr;
}

async function createOrg(event) {
  event.preventDefault();
  notice("tokens", "");
  const features = $("org-external").checked ? ["mcp_external_servers"] : [];
  await api("POST", "/api/orgs", { name: $("org-name").value.trim(), features });
  $("org-form").reset();
  await loadTokensPage();
}

async function loadTokensPage() {
  const orgs = await loadOrgs();
  drawTokenForm(orgs);
  await loadTokens();
}

// The secret shown once is gone when the operator leaves the section.
pages.tokens = { load: loadTokensPage, leave: () => { $("token-secret").replaceChildren(); $("token-secret").hidden = true; } };

window.addEventListener("DOMContentLoaded", () => {
  $("token-form").addEventListener("submit", (e) => guarded("tokens", () => createToken(e)));
  $("org-form").addEventListener("submit", (e) => guarded("tokens", () => createOrg(e)));
});
