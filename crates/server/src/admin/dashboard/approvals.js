// Switchboard approvals: tool definitions the policy holds back because they changed since
// they were pinned (or are new beside pinned ones), each with a line diff of the approved and
// the new definition and an Approve button where the token's roles allow it.
// Shares dashboard.js's globals ($, el, api, say, can, scheduleRelist).
"use strict";

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

async function approve(change, owner, button) {
  button.disabled = true;
  try {
    await api("POST", "/api/policy/approve", { server: change.server, tool: change.tool, hash: change.new_hash, owner });
    say("");
    scheduleRelist();
  } catch (e) {
    say(`approve ${change.server}/${change.tool}: ${e.message}`);
    button.disabled = false;
  }
}

function approval(change, owner) {
  const diff = lineDiff(pretty(change.approved), pretty(change.new)).map(([mark, line]) =>
    el("span", { className: mark === "+" ? "add" : mark === "-" ? "del" : "", textContent: `${mark} ${line}\n` }));
  const allowed = owner === "operator" ? can("gateway:operate") : can("integrations:manage");
  const parts = [
    el("h3", { textContent: `${change.server} / ${change.tool}` }),
    el("p", { className: "held-back", textContent: change.reason }),
    el("pre", { className: "diff" }, diff),
  ];
  if (allowed) {
    const button = el("button", { type: "button", textContent: `Approve ${change.tool}` });
    button.onclick = () => approve(change, owner, button);
    parts.push(button);
  }
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
  const articles = [];
  for (const owner of owners) {
    const body = await api("GET", `/api/policy/pending?owner=${owner}`);
    articles.push(...body.pending.map((change) => approval(change, owner)));
  }
  $("approvals").replaceChildren(...articles);
  $("approvals-section").hidden = articles.length === 0;
}
