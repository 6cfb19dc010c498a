// Switchboard console, overview: servers ready, tools exposed, approvals waiting, and the
// calls of the window chosen (five minutes, an hour, a day) as the gateway computes them from
// every replica's audit rows (GET /api/stats): totals, charts of calls and errors and of p50
// and p99 call time per slot (inline SVG, nothing fetched from elsewhere), and a table by
// server, read again every 5 s while shown.
// Shares the globals of dashboard.js ($, el, api, notice, pages, current) and servers.js.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
let statsTimer = null;
let lastStats = null;
let statsAsked = 0; // reads started: an answer older than the newest one asked is dropped

function svg(tag, attrs = {}, children = []) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const child of children) node.append(child);
  return node;
}

function card(label, value, note, id) {
  const box = el("div", { className: "card-figure" }, [el("span", { className: "muted", textContent: label }),
    el("strong", { textContent: value }), el("small", { className: "muted", textContent: note || "" })]);
  box.dataset.figure = id;
  return box;
}

function drawCards() {
  const rows = [...servers.values()];
  const ready = rows.filter((r) => r.status === "ready").length;
  const failing = rows.filter((r) => r.status === "error").length;
  const exposed = allTools.filter((t) => t.visible).length;
  const all = lastStats && lastStats.all;
  const ms = (v) => (v === null || v === undefined ? "—" : `${v.toFixed(1)} ms`);
  $("cards").replaceChildren(
    card("Servers ready", `${ready} of ${rows.length}`, failing ? `${failing} in error` : "", "servers"),
    card("Tools exposed", String(exposed), `${allTools.length - exposed} held back`, "tools"),
    card("Waiting for approval", String(typeof pending === "undefined" ? 0 : pending.length), "", "approvals"),
    card("Calls", String(all ? all.calls : 0), all ? `${all.calls_per_s.toFixed(2)}/s` : "", "calls"),
    card("Errors", String(all ? all.errors : 0), all && all.calls ? `${((100 * all.errors) / all.calls).toFixed(1)} %` : "", "errors"),
    card("Call time p50 / p99", all ? `${ms(all.p50_ms)} / ${ms(all.p99_ms)}` : "—", "", "latency"),
  );
}

// A chart of `series` (one object per slot) with one mark per key: bars stacked, or lines.
function chart(box, series, marks, kind, unit) {
  const width = 600;
  const height = 160;
  const left = 44;
  const bottom = 18;
  const values = series.flatMap((s) => (kind === "bars" ? [marks.reduce((n, m) => n + (s[m.key] || 0), 0)] : marks.map((m) => s[m.key] || 0)));
  const top = Math.max(1, ...values);
  const step = (width - left) / Math.max(1, series.length);
  const y = (v) => height - bottom - ((height - bottom - 6) * v) / top;
  const parts = [
    svg("line", { x1: left, y1: y(0), x2: width, y2: y(0), class: "axis" }),
    svg("text", { x: left - 4, y: y(top) + 4, "text-anchor": "end", class: "tick" }, [`${+top.toFixed(1)}${unit}`]),
    svg("text", { x: left - 4, y: y(0), "text-anchor": "end", class: "tick" }, [`0`]),
  ];
  if (series.length) {
    const time = (s) => new Date(s.at_ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
    parts.push(svg("text", { x: left, y: height - 2, class: "tick" }, [time(series[0])]),
      svg("text", { x: width, y: height - 2, "text-anchor": "end", class: "tick" }, [time(series[series.length - 1])]));
  }
  series.forEach((s, i) => {
    const x = left + i * step;
    if (kind === "bars") {
      let base = 0;
      for (const m of marks) {
        const v = s[m.key] || 0;
        if (!v) continue;
        const bar = svg("rect", { x: x + 0.5, y: y(base + v), width: Math.max(1, step - 1), height: y(base) - y(base + v), class: m.css },
          [svg("title", {}, [`${new Date(s.at_ms).toLocaleTimeString()}: ${v} ${m.label}`])]);
        parts.push(bar);
        base += v;
      }
    }
  });
  if (kind === "lines") {
    for (const m of marks) {
      // One line per run of slots with calls: an empty slot breaks the line.
      const runs = [[]];
      series.forEach((s, i) => {
        if (s[m.key] === null || s[m.key] === undefined) runs.push([]);
        else runs[runs.length - 1].push(`${left + i * step + step / 2},${y(s[m.key])}`);
      });
      for (const run of runs.filter((r) => r.length)) parts.push(svg("polyline", { points: run.join(" "), class: m.css }));
      series.forEach((s, i) => {
        if (s[m.key] === null || s[m.key] === undefined) return;
        parts.push(svg("circle", { cx: left + i * step + step / 2, cy: y(s[m.key]), r: 2, class: m.css },
          [svg("title", {}, [`${new Date(s.at_ms).toLocaleTimeString()}: ${m.label} ${s[m.key].toFixed(2)}${unit}`])]));
      });
    }
  }
  const legend = el("p", { className: "legend" }, marks.map((m) => el("span", { className: `key ${m.css}`, textContent: m.label })));
  const picture = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": box.previousElementSibling.textContent }, parts);
  box.replaceChildren(picture, legend);
  box.dataset.points = String(values.filter(Boolean).length);
}

function drawStats(stats) {
  const minutes = stats.window_s / 60;
  $("overview-window").textContent = minutes >= 60 ? `(last ${minutes / 60} h)` : `(last ${minutes} min)`;
  document.querySelector("#chart-calls").previousElementSibling.textContent = `Calls and errors per ${stats.step_s} s`;
  const series = (stats.all && stats.all.series) || [];
  const ok = series.map((s) => ({ ...s, ok: s.calls - s.errors }));
  chart($("chart-calls"), ok, [{ key: "ok", label: "calls", css: "calls" }, { key: "errors", label: "errors", css: "errors" }], "bars", "");
  chart($("chart-latency"), series, [{ key: "p50_ms", label: "p50", css: "p50" }, { key: "p99_ms", label: "p99", css: "p99" }], "lines", " ms");
  const ms = (v) => (v === null || v === undefined ? "—" : v.toFixed(1));
  const rows = stats.servers.map((s) => {
    const tr = el("tr", {}, [
      el("td", {}, [el("a", { href: `#server/${encodeURIComponent(s.server)}`, textContent: s.server })]),
      el("td", { textContent: String(s.calls) }),
      el("td", { textContent: s.calls_per_s.toFixed(2) }),
      el("td", { textContent: ms(s.p50_ms) }),
      el("td", { textContent: ms(s.p99_ms) }),
      el("td", { textContent: String(s.errors) }),
    ]);
    tr.dataset.server = s.server;
    tr.dataset.calls = String(s.calls);
    tr.dataset.errors = String(s.errors);
    return tr;
  });
  $("figures").tBodies[0].replaceChildren(...rows);
  $("figures-empty").hidden = rows.length > 0;
}

async function loadStats() {
  const [seconds, step] = $("figures-window").value.split(":");
  const asked = ++statsAsked;
  const stats = await api("GET", `/api/stats?window_s=${seconds}&step_s=${step}`);
  if (asked !== statsAsked) return;
  lastStats = stats;
  drawStats(lastStats);
  drawCards();
  notice("overview", "");
}

function followStats() {
  clearTimeout(statsTimer);
  if (current !== "overview") return;
  // Every 5 s for five minutes; a longer window's slots move slower, and so does its refresh.
  const step = Number($("figures-window").value.split(":")[1]);
  statsTimer = setTimeout(() => guarded("overview", loadStats).finally(followStats), Math.max(5000, step * 500));
}

pages.overview = {
  load: async () => {
    drawCards();
    await loadStats();
    followStats();
  },
  leave: () => clearTimeout(statsTimer),
};

window.addEventListener("DOMContentLoaded", () => {
  $("figures-window").addEventListener("change", () => guarded("overview", loadStats));
});
