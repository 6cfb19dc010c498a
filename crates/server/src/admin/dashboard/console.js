// Switchboard console, tools: every tool of every server with a filter, one tool's definition
// (#tools/NAME) with why the policy holds it back if it does, and a playground that calls it
// through the full pipeline as an agent (optionally for an end user). The agent's toggle for
// the tool sits beside the call button, so the first try works: a tool not yet enabled for the
// agent is enabled, as the button says, then called.
// Shares the globals of dashboard.js ($, el, api, can, notice, pages, current) and servers.js
// (allTools, whyHidden, annotationText).
"use strict";

let shownTool = null; // the tool whose definition is shown
let enabledFor = null; // { agent, actions: Set } of the agent the playground calls as

function toolKey(tool) { return tool.name || tool.action_id; }

// Called by servers.js whenever /api/policy/tools was read again.
function toolsChanged() {
  if (current === "tools") drawToolList();
}

function drawToolList() {
  const filter = $("tool-filter").value.trim().toLowerCase();
  const tools = [...allTools].sort((a, b) => toolKey(a).localeCompare(toolKey(b)));
  const shown = tools.filter((t) => !filter || `${toolKey(t)} ${t.description || ""} ${t.server}`.toLowerCase().includes(filter));
  $("tools-count").textContent = `${tools.filter((t) => t.visible).length} exposed of ${tools.length}`;
  $("tool-list").replaceChildren(...shown.map((tool) => {
    const link = el("a", { href: `#tools/${encodeURIComponent(toolKey(tool))}` }, [
      el("span", { textContent: toolKey(tool) }),
      el("small", { className: tool.visible ? "muted" : "held-back", textContent: tool.visible ? tool.server : `${tool.server} · held back` }),
    ]);
    const item = el("li", {}, [link]);
    if (shownTool && toolKey(shownTool) === toolKey(tool)) {
      link.setAttribute("aria-current", "true");
      requestAnimationFrame(() => link.scrollIntoView({ block: "nearest" }));
    }
    item.dataset.tool = toolKey(tool);
    return item;
  }));
}

function showTool(name) {
  const tools = [...allTools].sort((a, b) => toolKey(a).localeCompare(toolKey(b)));
  const tool = tools.find((t) => toolKey(t) === name) || (name ? null : tools.find((t) => t.visible));
  shownTool = tool || null;
  drawToolList();
  const pane = document.querySelector("#console-section .detail-pane");
  pane.hidden = !tool;
  if (!tool) {
    if (name) notice("tools", `No tool ${name} (GET /api/policy/tools lists them).`);
    return;
  }
  $("tool-name").textContent = toolKey(tool);
  $("tool-description").textContent = tool.description || "(no description)";
  $("tool-annotations").textContent = annotationText(tool);
  $("tool-exposure").className = tool.visible ? "ok" : "held-back";
  $("tool-exposure").textContent = tool.visible ? `exposed by ${tool.server}`
    : `held back: ${whyHidden(tool)} — review it under Policy & approvals`;
  $("tool-input-schema").textContent = JSON.stringify(tool.input_schema || {}, null, 2);
  $("tool-output-schema").textContent = tool.output_schema ? JSON.stringify(tool.output_schema, null, 2) : "(none declared)";
  $("tool-form").replaceChildren(...fields(tool.input_schema || {}, ""));
  $("raw-args").value = "{}";
  $("result").replaceChildren();
  delete $("result").dataset.outcome;
  const manage = can("integrations:manage");
  $("call-form").hidden = !tool.visible;
  $("call-button").hidden = !manage;
  $("call-note").hidden = manage;
  $("call-enabled").disabled = !manage;
  return refreshEnabled();
}

// Whether the playground's agent has the shown tool's action on: its checkbox and the button.
async function refreshEnabled() {
  const agent = $("call-agent").value.trim() || "dashboard";
  if (!enabledFor || enabledFor.agent !== agent) {
    const body = await api("GET", `/api/agents/${encodeURIComponent(agent)}/actions`);
    const on = body.integrations.flatMap((g) => g.actions.filter((a) => a.enabled).map((a) => a.action_id));
    enabledFor = { agent, actions: new Set(on) };
  }
  drawEnabled();
}

function drawEnabled() {
  if (!shownTool || !enabledFor) return;
  const on = enabledFor.actions.has(shownTool.action_id);
  $("call-enabled").checked = on;
  $("call-enabled-text").textContent = `${shownTool.action_id} enabled for agent ${enabledFor.agent}`;
  $("call-button").textContent = on ? "Call through the pipeline" : `Enable for ${enabledFor.agent} and call`;
}

async function setEnabled(on) {
  const agent = enabledFor.agent;
  const path = `/api/agents/${encodeURIComponent(agent)}/actions/${encodeURIComponent(shownTool.action_id)}`;
  await api("PUT", path, { enabled: on });
  if (on) enabledFor.actions.add(shownTool.action_id);
  else enabledFor.actions.delete(shownTool.action_id);
  drawEnabled();
}

// Form fields for an object schema: strings, numbers, booleans, enums and nested objects;
// anything else (arrays, unions) is a JSON box. Each input carries its dotted path.
function fields(schema, prefix) {
  const required = new Set(schema.required || []);
  return Object.entries(schema.properties || {}).map(([name, prop]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    const label = `${name}${required.has(name) ? " *" : ""}`;
    const help = prop.description ? el("small", { className: "muted", textContent: prop.description }) : "";
    if (prop.type === "object" && prop.properties) {
      return el("fieldset", {}, [el("legend", { textContent: label }), help, ...fields(prop, path)]);
    }
    let input;
    if (Array.isArray(prop.enum)) {
      const options = required.has(name) ? [] : [el("option", { value: "", textContent: "" })];
      input = el("select", {}, [...options, ...prop.enum.map((v) => el("option", { value: JSON.stringify(v), textContent: String(v) }))]);
      input.dataset.kind = "enum";
    } else if (prop.type === "boolean") {
      input = el("input", { type: "checkbox" });
      input.dataset.kind = "boolean";
    } else if (prop.type === "number" || prop.type === "integer") {
      input = el("input", { type: "number", step: prop.type === "integer" ? "1" : "any" });
      input.dataset.kind = "number";
    } else if (prop.type === "string") {
      input = el("input", { type: "text" });
      input.dataset.kind = "string";
    } else {
      input = el("textarea", { rows: 2, placeholder: "JSON" });
      input.dataset.kind = "json";
    }
    input.dataset.path = path;
    input.required = required.has(name) && input.dataset.kind !== "boolean";
    if (prop.default !== undefined && input.dataset.kind !== "enum") {
      if (input.type === "checkbox") input.checked = Boolean(prop.default);
      else input.value = typeof prop.default === "string" ? prop.default : JSON.stringify(prop.default);
    }
    return el("label", { className: "field" }, [el("span", { textContent: label }), input, help]);
  });
}

// The arguments the form says; empty optional fields are left out.
function formArguments() {
  const args = {};
  for (const input of $("tool-form").querySelectorAll("[data-path]")) {
    const kind = input.dataset.kind;
    let value;
    if (kind === "boolean") value = input.checked;
    else if (input.value === "") continue;
    else if (kind === "number") value = Number(input.value);
    else if (kind === "enum" || kind === "json") value = JSON.parse(input.value);
    else value = input.value;
    const keys = input.dataset.path.split(".");
    let at = args;
    for (const key of keys.slice(0, -1)) at = at[key] = at[key] || {};
    at[keys[keys.length - 1]] = value;
  }
  return args;
}

function showResult(outcome, parts, millis) {
  const box = $("result");
  box.dataset.outcome = outcome;
  box.replaceChildren(el("p", { className: "muted", textContent: `${outcome} · ${millis.toFixed(0)} ms` }), ...parts);
}

function contentParts(result) {
  const parts = [];
  if (result.isError) parts.push(el("p", { className: "error", textContent: "the tool reported an error" }));
  for (const block of result.content || []) {
    if (block.type === "text") parts.push(el("pre", { textContent: block.text }));
    else if (block.type === "image") parts.push(el("img", { src: `data:${block.mimeType};base64,${block.data}`, alt: "image result" }));
    else parts.push(el("pre", { textContent: JSON.stringify(block, null, 2) }));
  }
  if (result.structuredContent !== undefined) {
    parts.push(el("h4", { textContent: "structured" }), el("pre", { textContent: JSON.stringify(result.structuredContent, null, 2) }));
  }
  return parts;
}

async function callTool(event) {
  event.preventDefault();
  const tool = shownTool;
  if (!tool) return;
  notice("tools", "");
  let args;
  try {
    args = $("raw-mode").checked ? JSON.parse($("raw-args").value || "{}") : formArguments();
  } catch (e) {
    showResult("invalid_arguments", [el("p", { className: "error", textContent: `the arguments are not JSON: ${e.message}` })], 0);
    return;
  }
  await refreshEnabled();
  // The button said so: the agent gets the tool, then the call goes through the pipeline.
  if (!enabledFor.actions.has(tool.action_id)) await setEnabled(true);
  const body = { arguments: args };
  const user = $("call-end-user").value.trim();
  if (user) body.end_user_id = user;
  const started = performance.now();
  const response = await fetch(
    `/api/agents/${encodeURIComponent(enabledFor.agent)}/actions/${encodeURIComponent(tool.action_id)}/invoke`,
    { method: "POST", headers: { ...credentials(), "Content-Type": "application/json" }, body: JSON.stringify(body) },
  );
  const millis = performance.now() - started;
  const payload = await response.json().catch(() => ({}));
  if (response.ok) {
    showResult(payload.result.isError ? "tool_error" : "ok", contentParts(payload.result), millis);
  } else {
    const error = payload.error || {};
    showResult(error.kind || `http_${response.status}`, [el("p", { className: "error", textContent: error.message || response.statusText })], millis);
  }
}

function setRawMode() {
  const raw = $("raw-mode").checked;
  if (raw) {
    try {
      $("raw-args").value = JSON.stringify(formArguments(), null, 2);
    } catch {
      // Keep what the box had.
    }
  }
  $("tool-form").hidden = raw;
  $("raw-args").hidden = !raw;
}

pages.tools = { load: (name) => showTool(name) };

window.addEventListener("DOMContentLoaded", () => {
  $("tool-filter").addEventListener("input", drawToolList);
  $("call-form").addEventListener("submit", (e) => guarded("tools", () => callTool(e)));
  $("raw-mode").addEventListener("change", setRawMode);
  $("call-agent").addEventListener("change", () => guarded("tools", refreshEnabled));
  $("call-enabled").addEventListener("change", () => {
    const box = $("call-enabled");
    box.disabled = true;
    guarded("tools", () => setEnabled(box.checked).catch((e) => { box.checked = !box.checked; throw e; }))
      .finally(() => { box.disabled = !can("integrations:manage"); });
  });
});
