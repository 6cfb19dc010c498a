// Switchboard console, audit: the org's request log, newest first, shown on arrival and kept
// live (new rows every 3 s while the page is open), filtered by server, action, agent and
// outcome, with older pages on demand; a row opens (its number is a button) to its whole record; an operator checks
// the whole chain. Shares dashboard.js's globals ($, el, api, can, notice, pages).
"use strict";

const AUDIT_PAGE = 50;
let auditOldest = null; // the smallest seq shown, for the next older page
let auditNewest = null; // the largest seq shown, for live rows
let auditAsked = 0; // loads started: only the latest one's answer is shown
let auditTimer = null;
let auditShown = new URLSearchParams(); // the filters the table shows, as last submitted

function auditQuery() {
  const shown = new URLSearchParams();
  const filters = [["server", "audit-server"], ["action_id", "audit-action"], ["agent_id", "audit-agent"], ["outcome", "audit-outcome"]];
  for (const [param, id] of filters) {
    const value = $(id).value.trim();
    if (value) shown.set(param, value);
  }
  return shown;
}

function auditRow(r) {
  // The row's number is a disclosure button: it opens the whole record under the row.
  const button = el("button", { type: "button", className: "link", textContent: String(r.seq) });
  button.setAttribute("aria-expanded", "false");
  button.setAttribute("aria-label", `Row ${r.seq}: open the whole record`);
  const tr = el("tr", { className: "openable" }, [
    el("td", {}, [button]),
    el("td", { textContent: new Date(r.at).toLocaleTimeString() }),
    el("td", { textContent: r.action_id }),
    el("td", { textContent: r.agent_id || "" }),
    el("td", { textContent: r.end_user_id || "" }),
    el("td", { textContent: r.verdict }),
    el("td", { textContent: r.outcome }),
    el("td", { textContent: (r.duration_us / 1000).toFixed(1) }),
  ]);
  tr.dataset.action = r.action_id;
  tr.dataset.outcome = r.outcome;
  tr.dataset.seq = String(r.seq);
  tr.title = "Open the whole record";
  const open = () => {
    const next = tr.nextElementSibling;
    if (next && next.classList.contains("record")) {
      button.setAttribute("aria-expanded", "false");
      return next.remove();
    }
    button.setAttribute("aria-expanded", "true");
    const facts = [["when", new Date(r.at).toLocaleString()], ["server", r.server], ["token", r.token_id],
      ["request bytes", r.request_bytes], ["response bytes", r.response_bytes], ["detail", r.detail],
      ["policy", r.policy], ["hash", r.hash]].filter(([, v]) => v !== null && v !== undefined && v !== "");
    const list = el("dl", {}, facts.flatMap(([k, v]) => [el("dt", { textContent: k }), el("dd", { textContent: String(v) })]));
    tr.after(el("tr", { className: "record" }, [el("td", { colSpan: 8 }, [list])]));
  };
  tr.addEventListener("click", open);
  return tr;
}

// The newest page (`older` false) or the page before the oldest row shown. Loads overlap (a
// live refresh while the operator filters): an answer that arrives after a newer load
// started is dropped, and the table names the filters it shows.
async function loadAudit(older) {
  const asked = ++auditAsked;
  const shown = older ? auditShown : auditQuery();
  const q = new URLSearchParams(shown);
  q.set("limit", String(AUDIT_PAGE));
  q.set("newest_first", "true");
  const since = Number($("audit-since").value);
  if (since) q.set("since_ms", String(Date.now() - since * 60000));
  if (older && auditOldest !== null) q.set("before_seq", String(auditOldest));
  const body = await api("GET", `/api/audit?${q}`);
  if (asked !== auditAsked) return;
  const tbody = $("audit").tBodies[0];
  const rows = body.rows.map(auditRow);
  if (older) tbody.append(...rows);
  else tbody.replaceChildren(...rows);
  $("audit").dataset.filters = shown.toString();
  auditShown = shown;
  if (body.rows.length) {
    auditOldest = body.rows[body.rows.length - 1].seq;
    if (!older) auditNewest = body.rows[0].seq;
  } else if (!older) {
    auditOldest = auditNewest = null;
  }
  $("audit-more").hidden = body.rows.length < AUDIT_PAGE;
  countAudit();
}

// Rows written since the newest shown, on top.
async function liveAudit() {
  if (auditNewest === null) return loadAudit(false);
  const asked = auditAsked;
  // The filters the table shows, not what is half typed in the boxes.
  const q = new URLSearchParams(auditShown);
  q.set("limit", "1000");
  q.set("after_seq", String(auditNewest));
  const body = await api("GET", `/api/audit?${q}`);
  if (asked !== auditAsked || !body.rows.length) return;
  auditNewest = body.rows[body.rows.length - 1].seq;
  $("audit").tBodies[0].prepend(...body.rows.reverse().map(auditRow));
  countAudit();
}

function countAudit() {
  $("audit-count").textContent = `${$("audit").tBodies[0].querySelectorAll("tr:not(.record)").length} row(s)`;
}

function followAudit() {
  clearTimeout(auditTimer);
  if (current !== "audit" || !$("audit-live").checked) return;
  auditTimer = setTimeout(() => guarded("audit", liveAudit).finally(followAudit), 3000);
}

// The whole audit chain checked from its first row: intact, or where it breaks.
async function verifyChain() {
  const state = $("chain-state");
  state.className = "muted";
  state.textContent = "checking…";
  const body = await api("GET", "/api/audit/verify");
  state.className = body.ok ? "ok" : "error";
  state.textContent = body.ok ? `intact: ${body.rows} row(s) checked` : `broken: ${body.problem}`;
}

function reloadAudit() {
  notice("audit", "");
  guarded("audit", () => loadAudit(false));
}

pages.audit = {
  load: async () => {
    // The chain spans every org: checking it is offered to operators only.
    $("chain-line").hidden = !can("gateway:operate");
    await loadAudit(false);
    followAudit();
  },
  leave: () => clearTimeout(auditTimer),
};

window.addEventListener("DOMContentLoaded", () => {
  $("audit-filters").addEventListener("submit", (e) => {
    e.preventDefault();
    reloadAudit();
  });
  $("audit-since").addEventListener("change", reloadAudit);
  $("audit-live").addEventListener("change", followAudit);
  $("audit-more").addEventListener("click", () => guarded("audit", () => loadAudit(true)));
  $("chain-verify").addEventListener("click", () => guarded("audit", verifyChain));
});
