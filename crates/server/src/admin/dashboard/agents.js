// Switchboard console, agents: the org's agents (every one with an action toggled, and the
// playground's `dashboard`), and one agent's actions (#agents/ID) grouped by server, each
// toggled in place, a whole server's at once, or every action shown by the filter at once.
// Shares the globals of dashboard.js ($, el, api, can, notice, pages) and console.js
// (enabledFor, which a change here makes stale).
"use strict";

let agentShown = null; // { agent, integrations } of the agent whose actions are shown
let agentAsked = 0; // reads started: only the newest one's answer is shown

async function loadAgents(agent) {
  const body = await api("GET", "/api/agents");
  const agents = body.agents;
  if (!agents.some((a) => a.agent_id === "dashboard")) agents.push({ agent_id: "dashboard", enabled: 0 });
  if (agent && !agents.some((a) => a.agent_id === agent)) agents.push({ agent_id: agent, enabled: 0 });
  agents.sort((a, b) => a.agent_id.localeCompare(b.agent_id));
  $("agent-list").replaceChildren(...agents.map((a) => {
    const link = el("a", { href: `#agents/${encodeURIComponent(a.agent_id)}` }, [
      el("span", { textContent: a.agent_id }),
      el("small", { className: "muted", textContent: `${a.enabled} action(s) on` }),
    ]);
    if (a.agent_id === agent) link.setAttribute("aria-current", "true");
    const item = el("li", {}, [link]);
    item.dataset.agent = a.agent_id;
    item.dataset.enabled = String(a.enabled);
    return item;
  }));
  const chosen = agent || "dashboard";
  await showAgent(chosen);
}

async function showAgent(agent) {
  const asked = ++agentAsked;
  const body = await api("GET", `/api/agents/${encodeURIComponent(agent)}/actions`);
  if (asked !== agentAsked) return;
  agentShown = body;
  $("agent-title").textContent = `Agent ${agent}`;
  $("action-filter").hidden = false;
  drawActions();
}

function drawActions() {
  const agent = agentShown.agent;
  const filter = $("action-filter").value.trim().toLowerCase();
  const manage = can("integrations:manage");
  const groups = agentShown.integrations.map((group) => {
    const actions = group.actions.filter((a) => !filter || `${a.action_id} ${a.description || ""}`.toLowerCase().includes(filter));
    if (!actions.length) return null;
    const boxes = actions.map((action) => {
      const box = el("input", { type: "checkbox", checked: action.enabled, disabled: !manage });
      box.dataset.action = action.action_id;
      box.addEventListener("change", () => toggle(agent, [action.action_id], box.checked, [box]));
      return el("label", { className: "inline" }, [box, ` ${action.name}`,
        el("small", { className: "muted", textContent: ` ${action.action_id}${action.description ? ` — ${action.description}` : ""}` })]);
    });
    const on = actions.filter((a) => a.enabled).length;
    const bulk = (enabled) => el("button", {
      type: "button",
      textContent: enabled ? "Enable all" : "Disable all",
      disabled: !manage || (enabled ? on === actions.length : on === 0),
      onclick: () => toggle(agent, actions.map((a) => a.action_id), enabled, boxesOf(fieldset)),
    });
    const fieldset = el("fieldset", {}, [
      el("legend", { textContent: `${group.server} (${group.source}) · ${on} of ${actions.length} on` }),
      el("div", { className: "bulk" }, [bulk(true), bulk(false)]),
      ...boxes,
    ]);
    fieldset.dataset.integration = group.integration;
    return fieldset;
  }).filter(Boolean);
  const all = agentShown.integrations.flatMap((g) => g.actions);
  $("agent-actions").replaceChildren(...(groups.length ? groups
    : [el("p", { className: "muted", textContent: all.length ? "No action matches the filter." : "No server offers an action yet." })]));
  $("agent-actions").dataset.agent = agent;
}

function boxesOf(fieldset) { return [...fieldset.querySelectorAll("input[data-action]")]; }

// One PUT for any number of actions; the boxes wait, and go back if it is refused.
async function toggle(agent, actionIds, enabled, boxes) {
  for (const box of boxes) box.disabled = true;
  notice("agents", "");
  try {
    await api("PUT", `/api/agents/${encodeURIComponent(agent)}/actions`, { enabled, action_ids: actionIds });
    enabledFor = null;
    // Another agent opened meanwhile: its boxes are not these.
    if (agentShown.agent !== agent) return;
    for (const group of agentShown.integrations) {
      for (const action of group.actions) if (actionIds.includes(action.action_id)) action.enabled = enabled;
    }
    drawActions();
    for (const id of actionIds) {
      const box = document.querySelector(`#agent-actions input[data-action="${CSS.escape(id)}"]`);
      if (box) box.dataset.saved = String(enabled);
    }
    const count = agentShown.integrations.flatMap((g) => g.actions).filter((a) => a.enabled).length;
    const item = document.querySelector(`#agent-list li[data-agent="${CSS.escape(agent)}"]`);
    if (item) {
      item.dataset.enabled = String(count);
      item.querySelector("small").textContent = `${count} action(s) on`;
    }
  } catch (e) {
    notice("agents", `${enabled ? "enable" : "disable"} for ${agent}: ${e.message}`);
    drawActions();
  }
}

pages.agents = { load: (agent) => loadAgents(agent) };

window.addEventListener("DOMContentLoaded", () => {
  $("agent-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const agent = $("agent-name").value.trim();
    if (agent) go(`agents/${encodeURIComponent(agent)}`);
  });
  $("action-filter").addEventListener("input", () => agentShown && drawActions());
});
