// Switchboard console, resources and prompts: every resource, resource template and prompt
// the org's servers offer (GET /api/catalog) with a filter; a resource read, a template filled
// in and read, a prompt got with its arguments, each through the registry as an agent's would
// be (#catalog/resource/URI, #catalog/template/URI, #catalog/prompt/NAME).
// Shares dashboard.js's globals ($, el, api, can, notice, pages).
"use strict";

let catalog = { resources: [], resource_templates: [], prompts: [] };

async function loadCatalog(argument) {
  catalog = await api("GET", "/api/catalog");
  drawCatalog();
  const [kind, ...rest] = (argument || "").split("/");
  const key = rest.join("/");
  if (kind === "resource") showResource(catalog.resources.find((r) => r.uri === key));
  else if (kind === "template") showTemplate(catalog.resource_templates.find((t) => t.uriTemplate === key));
  else if (kind === "prompt") showPrompt(catalog.prompts.find((p) => p.name === key));
}

function pick(list, id, items, href, label, note) {
  const filter = $("catalog-filter").value.trim().toLowerCase();
  const shown = items.filter((i) => !filter || JSON.stringify(i).toLowerCase().includes(filter));
  $(list).replaceChildren(...shown.map((item) => {
    const li = el("li", {}, [el("a", { href: href(item) }, [el("span", { textContent: label(item) }),
      el("small", { className: "muted", textContent: note(item) })])]);
    li.dataset.key = id(item);
    return li;
  }));
  return shown.length;
}

// A server the org's policy hides: listed for the operator, refused to read.
function hiddenNote(item) { return item.visible === false ? " · hidden by the policy" : ""; }

function drawCatalog() {
  const link = (kind, key) => `#catalog/${kind}/${encodeURIComponent(key)}`;
  const count = (id, shown, all) => { $(id).textContent = shown === all ? `(${all})` : `(${shown} of ${all})`; };
  count("resources-count", pick("resource-list", (r) => r.uri, catalog.resources, (r) => link("resource", r.uri),
    (r) => r.title || r.name || r.uri, (r) => `${r.server}${hiddenNote(r)} · ${r.uri}`), catalog.resources.length);
  count("templates-count", pick("template-list", (t) => t.uriTemplate, catalog.resource_templates,
    (t) => link("template", t.uriTemplate), (t) => t.title || t.name || t.uriTemplate, (t) => `${t.server}${hiddenNote(t)} · ${t.uriTemplate}`),
  catalog.resource_templates.length);
  count("prompts-count", pick("prompt-list", (p) => p.name, catalog.prompts, (p) => link("prompt", p.name),
    (p) => p.title || p.name, (p) => `${p.server}${hiddenNote(p)} · ${p.name}`), catalog.prompts.length);
}

function detail(parts) {
  $("catalog-detail").replaceChildren(...parts);
}

function facts(item, keys) {
  return el("dl", {}, keys.filter((k) => item[k] !== undefined && item[k] !== null)
    .flatMap((k) => [el("dt", { textContent: k }), el("dd", { textContent: String(item[k]) })]));
}

function answerBox() { return el("div", { className: "answer", role: "status" }); }

// Runs `work` for the detail pane: its answer or its error in `box`.
async function answered(box, work) {
  box.replaceChildren(el("p", { className: "muted", textContent: "asking…" }));
  delete box.dataset.outcome;
  const started = performance.now();
  try {
    const parts = await work();
    box.dataset.outcome = "ok";
    box.replaceChildren(el("p", { className: "muted", textContent: `ok · ${(performance.now() - started).toFixed(0)} ms` }), ...parts);
  } catch (e) {
    box.dataset.outcome = e.kind || "error";
    box.replaceChildren(el("p", { className: "error", textContent: e.message }));
  }
}

function contentsParts(result) {
  return (result.contents || []).map((c) => {
    if (c.text !== undefined) return el("pre", { textContent: c.text });
    if (c.blob && (c.mimeType || "").startsWith("image/")) return el("img", { src: `data:${c.mimeType};base64,${c.blob}`, alt: c.uri });
    return el("p", { className: "muted", textContent: `${c.mimeType || "binary"}, ${Math.floor((c.blob || "").length * 0.75)} bytes` });
  });
}

function readButton(label, box, uri) {
  const button = el("button", { type: "button", textContent: label, hidden: !can("integrations:manage") });
  button.addEventListener("click", () => answered(box, async () =>
    contentsParts((await api("POST", "/api/catalog/resources/read", { uri: uri() })).result)));
  return button;
}

function manageNote() {
  return can("integrations:manage") ? "" : el("p", { className: "muted", textContent: "Reading needs a token with integrations:manage." });
}

function showResource(resource) {
  if (!resource) return detail([el("p", { className: "muted", textContent: "No such resource." })]);
  const box = answerBox();
  detail([el("h3", { textContent: resource.title || resource.name || resource.uri }),
    el("p", { textContent: resource.description || "" }),
    facts(resource, ["uri", "server", "source", "mimeType", "size"]),
    readButton("Read", box, () => resource.uri), manageNote(), box]);
}

// `{name}` and `{+name}` of a URI template (RFC 6570 level 1 and 2) as form fields.
function showTemplate(template) {
  if (!template) return detail([el("p", { className: "muted", textContent: "No such template." })]);
  const names = [...template.uriTemplate.matchAll(/\{\+?([^}]+)\}/g)].map((m) => m[1]);
  const inputs = names.map((name) => {
    const input = el("input", { type: "text" });
    input.dataset.variable = name;
    return el("label", { className: "field" }, [el("span", { textContent: name }), input]);
  });
  const uri = () => template.uriTemplate.replace(/\{(\+?)([^}]+)\}/g, (_, plus, name) => {
    const value = $("catalog-detail").querySelector(`[data-variable="${CSS.escape(name)}"]`).value;
    return plus ? encodeURI(value) : encodeURIComponent(value);
  });
  const box = answerBox();
  detail([el("h3", { textContent: template.title || template.name || template.uriTemplate }),
    el("p", { textContent: template.description || "" }),
    facts(template, ["uriTemplate", "server", "source", "mimeType"]), ...inputs,
    readButton("Read", box, uri), manageNote(), box]);
}

function showPrompt(prompt) {
  if (!prompt) return detail([el("p", { className: "muted", textContent: "No such prompt." })]);
  const inputs = (prompt.arguments || []).map((arg) => {
    const input = el("input", { type: "text", required: Boolean(arg.required) });
    input.dataset.argument = arg.name;
    return el("label", { className: "field" }, [el("span", { textContent: `${arg.name}${arg.required ? " *" : ""}` }), input,
      arg.description ? el("small", { className: "muted", textContent: arg.description }) : ""]);
  });
  const box = answerBox();
  const form = el("form", {}, [...inputs, el("button", { type: "submit", textContent: "Get", hidden: !can("integrations:manage") })]);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const args = {};
    for (const input of form.querySelectorAll("[data-argument]")) if (input.value) args[input.dataset.argument] = input.value;
    answered(box, async () => {
      const result = (await api("POST", "/api/catalog/prompts/get", { name: prompt.name, arguments: args })).result;
      return [el("p", { textContent: result.description || "" }), ...(result.messages || []).map((m) =>
        el("div", { className: "message" }, [el("strong", { textContent: m.role }),
          el("pre", { textContent: m.content.type === "text" ? m.content.text : JSON.stringify(m.content, null, 2) })]))];
    });
  });
  detail([el("h3", { textContent: prompt.title || prompt.name }), el("p", { textContent: prompt.description || "" }),
    facts(prompt, ["name", "server", "source"]), form, manageNote(), box]);
}

pages.catalog = { load: (argument) => loadCatalog(argument) };

window.addEventListener("DOMContentLoaded", () => {
  $("catalog-filter").addEventListener("input", drawCatalog);
});
