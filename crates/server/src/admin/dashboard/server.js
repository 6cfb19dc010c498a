// Switchboard server page: one server's state, last error, protocol version, its whole status
// history, and every tool it offers with description, annotations, labels, findings, schemas
// and whether the policy exposes it (with why not). Opened from the server's name.
// Shares dashboard.js's globals ($, el, servers) and console.js's (allTools, annotationText).
"use strict";

let openServer = null; // the slug shown, re-drawn at each relist

function showServer(slug) {
  openServer = slug;
  const server = [...servers.values()].find((s) => (s.slug || s.server) === slug);
  if (!server) return closeServer();
  $("server-title").textContent = `${slug} (${server.source || "api"}, ${server.transport || "http"})`;
  const facts = [`status ${server.status}`];
  if (server.protocol_version) facts.push(`protocol ${server.protocol_version}`);
  if (server.url) facts.push(server.url);
  $("server-facts").textContent = facts.join(" · ");
  $("server-error").textContent = server.last_error || "";
  $("server-history").replaceChildren(...(server.status_history || []).map((c) =>
    el("li", { textContent: `${new Date(c.at_ms).toLocaleString()}: ${c.status}` })));
  const tools = allTools.filter((t) => t.server === slug);
  $("server-tools").replaceChildren(...tools.map((tool) => {
    const why = tool.visible ? "exposed" : `not exposed: ${tool.quarantined || tool.hidden || tool.withheld || "hidden"}`;
    const schema = (label, value) => el("details", {}, [el("summary", { textContent: label }),
      el("pre", { textContent: value ? JSON.stringify(value, null, 2) : "(none declared)" })]);
    const article = el("article", { className: "approval" }, [
      el("h3", { textContent: tool.name || tool.action_id }),
      el("p", { textContent: tool.description || "(no description)" }),
      el("p", { className: "muted", textContent: annotationText(tool) }),
      el("p", { className: tool.visible ? "ok" : "held-back", textContent: why }),
      schema("Input schema", tool.input_schema),
      schema("Output schema", tool.output_schema),
    ]);
    article.dataset.tool = tool.name || tool.action_id;
    return article;
  }));
  const waiting = document.querySelectorAll(`#approvals article[data-server="${CSS.escape(slug)}"]`).length;
  $("server-waiting").textContent = waiting ? `${waiting} definition(s) waiting for approval (below the servers)` : "";
  $("server-section").hidden = false;
}

function closeServer() {
  openServer = null;
  $("server-section").hidden = true;
}

window.addEventListener("DOMContentLoaded", () => {
  $("server-close").addEventListener("click", closeServer);
});
