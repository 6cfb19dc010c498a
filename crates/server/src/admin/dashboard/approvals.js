// Switchboard console, policy and approvals: tool definitions the policy holds back because
// they changed since they were pinned (or are new beside pinned ones), one line each with its
// line diff folded and an Approve button where the token's roles allow it; every tool held
// back and why; and the org's policy document, edited in place.
// Shares the globals of dashboard.js ($, el, api, can, notice, pages, badge) and servers.js
// (allTools, whyHidden, scheduleRelist).
"use strict";

let pending = []; // [change, owner] waiting for approval

// The lines of `before` and `after` as [mark, line]: " " kept, "-" removed, "+" added
// (longest common subsequence; definitions are a few dozen lines).
function lineDiff(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  const common = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push([" ", a[i]]);
      i++;
      j++;
    } else if (i < a.length && (j === b.length || common[i + 1][j] >= common[i][j + 1])) {
      out.push(["-", a[i++]]); // removals first, as diffs read
    } else {
      out.push(["+", b[j++]]);
    }
  }
  return out;
}

function pretty(definition) {
  return definition === null || definition === undefined ? "" : JSON.stringify(definition, null, 2);
}

async function approve(change, owner, button, line) {
  button.disabled = true;
  line.textContent = "";
  try {
    await api("POST", "/api/policy/approve", { server: change.server, tool: change.tool, hash: change.new_hash, owner });
    scheduleRelist();
  } catch (e) {
    line.textContent = `approve ${change.server}/${change.tool}: ${e.message}`;
    button.disabled = false;
  }
}

function approval(change, owner) {
  const diff = lineDiff(pretty(change.approved), pretty(change.new)).map(([mark, line]) =>
    el("span", { className: mark === "+" ? "add" : mark === "-" ? "del" : "", textContent: `${mark} ${line}\n` }));
  const allowed = owner === "operator" ? can("gateway:operate") : can("integrations:manage");
  const line = el("p", { className: "error", role: "alert" });
  const head = [el("strong", { textContent: `${change.server} / ${change.tool}` }), " ",
    el("span", { className: "held-back", textContent: change.reason })];
  if (allowed) {
    const button = el("button", { type: "button", textContent: `Approve ${change.tool}` });
    button.onclick = () => approve(change, owner, button, line);
    head.push(" ", button);
  }
  const parts = [el("div", { className: "approval-head" }, head),
    el("details", {}, [el("summary", { textContent: "What changed" }), el("pre", { className: "diff" }, diff)]), line];
  const article = el("article", { className: "approval" }, parts);
  article.dataset.server = change.server;
  article.dataset.tool = change.tool;
  return article;
}

// The org's waiting definitions and, for an operator, the config-file servers' too.
async function loadApprovals() {
  const owners = [];
  if (can("integrations:view")) owners.push("org");
  if (can("gateway:operate")) owners.push("operator");
  pending = [];
  for (const owner of owners) {
    const body = await api("GET", `/api/policy/pending?owner=${owner}`);
    pending.push(...body.pending.map((change) => [change, owner]));
  }
  $("approvals").replaceChildren(...pending.map(([change, owner]) => approval(change, owner)));
  $("approvals-empty").hidden = pending.length > 0;
  $("approvals-count").textContent = pending.length ? `(${pending.length})` : "";
  badge("badge-policy", pending.length, "waiting for approval");
  drawHeldBack();
}

function pendingCount(server) { return pending.filter(([change]) => change.server === server).length; }

function drawHeldBack() {
  const held = allTools.filter((t) => !t.visible);
  $("held-back").tBodies[0].replaceChildren(...held.map((tool) => {
    const tr = el("tr", {}, [el("td", { textContent: tool.server }),
      el("td", { textContent: tool.name || tool.action_id.split(".").slice(2).join(".") }),
      el("td", { className: "held-back", textContent: whyHidden(tool) })]);
    tr.dataset.action = tool.action_id;
    return tr;
  }));
  $("held-back-empty").hidden = held.length > 0;
}

async function loadPolicyDoc() {
  const body = await api("GET", "/api/policy");
  $("policy-doc").value = JSON.stringify(body.policy, null, 2);
  const manage = can("integrations:manage");
  $("policy-doc").readOnly = !manage;
  $("policy-save").hidden = !manage;
  $("policy-state").textContent = "";
}

async function savePolicyDoc(event) {
  event.preventDefault();
  const state = $("policy-state");
  let doc;
  try {
    doc = JSON.parse($("policy-doc").value);
  } catch (e) {
    state.className = "error";
    state.textContent = `not JSON: ${e.message}`;
    return;
  }
  state.className = "muted";
  state.textContent = "saving…";
  try {
    const body = await api("PUT", "/api/policy", doc);
    $("policy-doc").value = JSON.stringify(body.policy, null, 2);
    state.className = "ok";
    state.textContent = "saved; every replica applies it";
    scheduleRelist();
  } catch (e) {
    // The API names each field that is wrong; nothing was saved.
    state.className = "error";
    state.textContent = e.message;
  }
}

pages.policy = { load: async () => { await loadApprovals(); await loadPolicyDoc(); } };

window.addEventListener("DOMContentLoaded", () => {
  $("policy-form").addEventListener("submit", (e) => guarded("policy", () => savePolicyDoc(e)));
});
