// Drives the console in a real browser (Debian's chromium via playwright-core), section by
// section, as a new operator would: signs in with a token link and lands on the overview;
// Servers: SERVER's row ready, disabled and enabled from its buttons, its page with dated
// state changes; a remote server connected from the form to a port that refuses (the form
// keeps what was typed and says why, in place), then fixed to UPSTREAM_URL and ready; Tools:
// TOOL tried on the first try (the button enables it for agent `dashboard`), bad raw JSON said,
// not sent; Agents: the tool enabled there, a whole server's actions disabled and enabled at
// once; Resources & prompts: a resource read and a prompt got from the connected server;
// Policy: a changed definition of `shifty`'s weather tool (WEATHER_DESC rewritten) waits
// with its diff folded, then approved; Audit: rows there without asking, a new call's row
// arriving live, a row opened, the chain verified; Overview: the server-side figures and
// charts; Tokens & orgs: a token made (its secret shown once) and revoked, an org made, its
// feature changed, deleted. Keyboard use (nav links, list links, audit rows with Enter) and a
// narrow window (the Menu button) on the way; last, a VIEWER's page offers no operation.
// Screenshots go to SHOTS. Prints what it saw as JSON; exits 1 on a page error, a console
// error (CSP violations included) or a failed wait.
// Usage: SWITCHBOARD_NODE_MODULES=.fixtures/node/node_modules node dashboard.mjs BASE_URL TOKEN
//   SERVER TOOL ARGS_JSON SHOTS UPSTREAM_URL VIEWER_TOKEN WEATHER_DESC REFUSING_URL
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";

const require = createRequire(`${process.env.SWITCHBOARD_NODE_MODULES}/`);
const { chromium } = require("playwright-core");

const [base, token, server, tool, argsJson, shots, upstream, viewer, weatherDesc, refusing] = process.argv.slice(2);
const args = JSON.parse(argsJson);
const action = `mcp.${server}.${tool.split("__").slice(1).join("__")}`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium", args: ["--no-sandbox"] });
const problems = [];
const httpErrors = [];
const T = { timeout: 20000 };
const seen = {};
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  // Answers with an error status are logged by the browser too: kept apart, since a refused
  // request is expected; every other console error (CSP violations included) is a problem.
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    if (/^Failed to load resource: the server responded with a status of \d+/.test(m.text())) httpErrors.push(m.text());
    else problems.push(`console: ${m.text()}`);
  });
  const shot = (name) => page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  const visible = (page_) => page.waitForSelector(`section[data-page="${page_}"]:not([hidden])`, T);
  const nav = async (name) => { await page.click(`#nav a[data-page="${name}"]`); await visible(name); };

  // Signed in by the link, on the overview, with the address bar cleaned.
  await page.goto(`${base}/#token=${encodeURIComponent(token)}`);
  await visible("overview");
  seen.url_after_sign_in = page.url();
  await page.waitForFunction(() => document.querySelector("#connection")?.textContent === "live", null, T);
  seen.connection = await page.textContent("#connection");
  seen.nav = await page.$$eval("#nav a:not([hidden])", (links) => links.map((a) => a.dataset.page));
  await page.waitForSelector('#cards [data-figure="servers"]', T);
  await shot("overview-empty");

  // Servers: the row, its operations, its page.
  await nav("servers");
  const row = (status) => `tr[data-server="${server}"][data-status="${status}"]`;
  await page.waitForSelector(row("ready"), T);
  await page.waitForFunction((sel) => document.querySelector(sel)?.textContent.includes("get_current_time"), row("ready"), T);
  seen.summary = await page.textContent("#summary");
  seen.ready_row = await page.$$eval(`${row("ready")} td`, (tds) => tds.map((td) => td.textContent));
  seen.statuses = ["ready"];
  await page.click(`${row("ready")} button:text("disable")`);
  await page.waitForSelector(row("disabled"), T);
  seen.statuses.push("disabled");
  await page.click(`${row("disabled")} button:text("enable")`);
  await page.waitForSelector(row("ready"), T);
  seen.statuses.push("ready");
  const history = `tr[data-server="${server}"] .history[data-changes*="disabled"][data-changes$="ready"]`;
  await page.waitForSelector(history, T);
  seen.history = await page.getAttribute(history, "data-changes");
  await shot("servers");
  await page.click(`tr[data-server="${server}"] td:first-child a`);
  await visible("server");
  await page.waitForSelector("#server-tools article", T);
  seen.server_page = {
    url: page.url(),
    title: await page.textContent("#server-title"),
    facts: await page.textContent("#server-facts"),
    changes: await page.$$eval("#server-history li", (l) => l.length),
    tools: await page.$$eval("#server-tools article", (a) => a.map((x) => x.dataset.tool)),
  };
  await shot("server");

  // Connect a server whose URL refuses: the form keeps it and says why, where it was typed.
  await nav("servers");
  await page.fill("#connect-name", "Everything");
  await page.fill("#connect-url", refusing);
  await page.click("#connect-button");
  await page.waitForFunction(() => document.querySelector("#connect-error")?.textContent.includes("did not connect"), null, T);
  seen.refused = {
    error: await page.textContent("#connect-error"),
    url_kept: await page.inputValue("#connect-url"),
    button: await page.textContent("#connect-button"),
    slug_locked: await page.$eval("#connect-slug", (i) => i.disabled),
    top_message_hidden: await page.$eval("#message", (m) => m.hidden),
  };
  await shot("connect-refused");
  await page.fill("#connect-url", upstream);
  await page.click("#connect-button");
  const connected = 'tr[data-server="everything"][data-status="ready"]';
  await page.waitForSelector(connected, { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector("#connect-button")?.textContent === "Connect", null, T);
  seen.connect_status = await page.textContent("#connect-status");
  await shot("connected");

  // Tools: the first try works (the button enables the tool for the agent, as it says).
  await nav("tools");
  await page.click(`#tool-list li[data-tool="${tool}"] a`);
  await page.waitForFunction((t) => document.querySelector("#tool-name")?.textContent === t, tool, T);
  await page.waitForFunction(() => document.querySelector("#call-button")?.textContent.startsWith("Enable for dashboard"), null, T);
  seen.input_schema = await page.textContent("#tool-input-schema");
  seen.annotations = await page.textContent("#tool-annotations");
  seen.first_button = await page.textContent("#call-button");
  for (const [path, value] of Object.entries(args)) await page.fill(`[data-path="${path}"]`, value);
  await shot("tool");
  await page.click("#call-button");
  await page.waitForSelector("#result[data-outcome]", T);
  seen.first_outcome = await page.getAttribute("#result", "data-outcome");
  seen.first_text = await page.textContent("#result");
  seen.enabled_after = await page.isChecked("#call-enabled");
  await shot("call");
  await page.check("#raw-mode");
  await page.fill("#raw-args", "{not json");
  await page.click("#call-button");
  await page.waitForSelector('#result[data-outcome="invalid_arguments"]', T);
  await page.uncheck("#raw-mode");

  // Agents: the action is on for `dashboard`; a whole server off, then on, at once.
  await nav("agents");
  await page.waitForSelector(`#agent-actions input[data-action="${action}"]`, T);
  seen.agent_action_on = await page.isChecked(`#agent-actions input[data-action="${action}"]`);
  const group = `#agent-actions fieldset[data-integration="mcp_${server}"]`;
  await page.click(`${group} button:text("Disable all")`);
  await page.waitForSelector(`${group} input[data-saved="false"]`, T);
  seen.after_disable_all = await page.$$eval(`${group} input[data-action]`, (b) => b.filter((x) => x.checked).length);
  await page.click(`${group} button:text("Enable all")`);
  await page.waitForSelector(`${group} input[data-saved="true"]`, T);
  seen.after_enable_all = await page.$$eval(`${group} input[data-action]`, (b) => b.filter((x) => x.checked).length);
  seen.agent_list = await page.$$eval("#agent-list li", (l) => l.map((x) => [x.dataset.agent, x.dataset.enabled]));
  await shot("agents");

  // Resources & prompts of the connected server: one read, one got.
  await nav("catalog");
  await page.waitForSelector("#resource-list li a", T);
  seen.resources = await page.$$eval("#resource-list li", (l) => l.length);
  await page.click("#resource-list li a");
  await page.click('#catalog-detail button:text("Read")');
  await page.waitForSelector("#catalog-detail .answer[data-outcome]", T);
  seen.resource_outcome = await page.getAttribute("#catalog-detail .answer", "data-outcome");
  await shot("resource");
  const prompt = await page.evaluate(() => catalog.prompts.find((p) => !(p.arguments || []).some((a) => a.required))?.name);
  await page.click(`#prompt-list li[data-key="${prompt}"] a`);
  await page.click('#catalog-detail button:text("Get")');
  await page.waitForSelector("#catalog-detail .answer[data-outcome]", T);
  seen.prompt = prompt;
  seen.prompt_outcome = await page.getAttribute("#catalog-detail .answer", "data-outcome");
  seen.prompt_messages = await page.$$eval("#catalog-detail .message", (m) => m.length);
  await shot("prompt");

  // Policy: a changed definition waits, folded, with the badge; approved, it is gone.
  writeFileSync(weatherDesc, "Current weather for a city, in degrees Celsius.");
  await nav("servers");
  await page.click('tr[data-server="shifty"] button:text("refresh")');
  await page.waitForSelector("#badge-policy:not([hidden])", { timeout: 30000 });
  seen.badge = await page.textContent("#badge-policy");
  await nav("policy");
  const waiting = '#approvals article[data-server="shifty"][data-tool="weather"]';
  await page.waitForSelector(waiting, T);
  seen.diff_folded = !(await page.isVisible(`${waiting} .diff`));
  seen.held_back = await page.$$eval("#held-back tbody tr", (r) => r.map((x) => x.dataset.action));
  await page.click(`${waiting} summary`);
  seen.diff_removed = await page.$$eval(`${waiting} .del`, (s) => s.map((x) => x.textContent));
  seen.diff_added = await page.$$eval(`${waiting} .add`, (s) => s.map((x) => x.textContent));
  seen.policy_doc = await page.inputValue("#policy-doc");
  await shot("approval");
  await page.click(`${waiting} button`);
  await page.waitForSelector(waiting, { state: "detached", timeout: 30000 });
  seen.badge_after = await page.$eval("#badge-policy", (b) => b.hidden);

  // Audit, reached with the keyboard: rows without asking, a new call arriving live.
  await page.focus('#nav a[data-page="audit"]');
  await page.keyboard.press("Enter");
  await visible("audit");
  seen.focus_after_nav = await page.evaluate(() => document.activeElement?.closest("section")?.dataset.page);
  const okRow = `#audit tbody tr[data-action="${action}"][data-outcome="ok"]`;
  await page.waitForSelector(okRow, T);
  seen.audit_first = await page.$$eval("#audit tbody tr[data-seq]", (r) => r.length);
  await page.evaluate(async ([a, body]) => api("POST", `/api/agents/dashboard/actions/${a}/invoke`, { arguments: body }), [action, args]);
  await page.waitForFunction((sel) => document.querySelectorAll(sel).length >= 2, okRow, T);
  seen.audit_live = await page.$$eval(okRow, (r) => r.length);
  await page.focus(`${okRow} button`);
  await page.keyboard.press("Enter");
  await page.waitForSelector("#audit tr.record dl", T);
  seen.record = await page.textContent("#audit tr.record");
  await page.fill("#audit-server", "nobody");
  await page.click("#audit-load");
  await page.waitForFunction(() => document.querySelector("#audit-count")?.textContent === "0 row(s)", null, T);
  await page.fill("#audit-server", "");
  await page.click("#audit-load");
  await page.click("#chain-verify");
  await page.waitForSelector("#chain-state.ok, #chain-state.error", T);
  seen.chain = await page.textContent("#chain-state");
  await shot("audit");

  // Overview: the gateway's own figures, with both calls, and the charts drawn from them.
  await nav("overview");
  await page.waitForSelector(`#figures tbody tr[data-server="${server}"]`, T);
  seen.figures = await page.$$eval(`#figures tbody tr[data-server="${server}"] td`, (tds) => tds.map((td) => td.textContent));
  seen.chart_points = await page.getAttribute("#chart-calls", "data-points");
  seen.cards = await page.$$eval("#cards [data-figure]", (c) => Object.fromEntries(c.map((x) => [x.dataset.figure, x.querySelector("strong").textContent])));
  await shot("overview");

  // Tokens & orgs.
  await nav("tokens");
  await page.waitForSelector("#token-form:not([hidden])", T);
  await page.click("#token-create");
  await page.waitForSelector("#token-secret:not([hidden])", T);
  const made = await page.evaluate(() => ({ id: document.querySelector("#token-secret").dataset.token,
    secret: document.querySelector("#token-secret code").textContent }));
  const tokenRow = `#tokens tr[data-token="${made.id}"]`;
  await page.waitForSelector(`${tokenRow}[data-state="live"]`, T);
  seen.new_token_status = await page.evaluate(async (t) => (await fetch("/api/me", { headers: { authorization: `Bearer ${t}` } })).status, made.secret);
  seen.secret_in_table = (await page.textContent("#tokens")).includes(made.secret);
  page.once("dialog", (dialog) => dialog.accept());
  await page.click(`${tokenRow} button`);
  await page.waitForSelector(`${tokenRow}[data-state="revoked"]`, T);
  seen.revoked_token_status = await page.evaluate(async (t) => (await fetch("/api/me", { headers: { authorization: `Bearer ${t}` } })).status, made.secret);
  await page.fill("#org-name", "beta");
  await page.click("#org-create");
  await page.waitForSelector('#orgs tr[data-org="beta"]', T);
  await page.uncheck('#orgs tr[data-org="beta"] input[data-feature="mcp_external_servers"]');
  await page.waitForFunction(async () => !(await api("GET", "/api/orgs")).orgs.find((o) => o.name === "beta").features.length, null, T);
  await shot("tokens");
  page.once("dialog", (dialog) => dialog.accept());
  await page.click('#orgs tr[data-org="beta"] button');
  await page.waitForSelector('#orgs tr[data-org="beta"]', { state: "detached", timeout: 20000 });
  seen.orgs = await page.$$eval("#orgs tbody tr", (r) => r.map((x) => x.dataset.org));

  // Disconnect, after confirming, from its row.
  await nav("servers");
  page.once("dialog", (dialog) => dialog.accept());
  await page.click(`${connected} button:text("disconnect")`);
  await page.waitForSelector('tr[data-server="everything"]', { state: "detached", timeout: 20000 });

  // The skip link moves to the page without leaving the section; no section says an error.
  await page.focus(".skip");
  await page.keyboard.press("Enter");
  seen.after_skip = await page.$eval("main > section:not([hidden])", (s) => s.dataset.page);
  seen.notices = await page.$$eval("[data-notice]", (n) => n.map((x) => x.textContent).filter(Boolean));
  // A narrow window: the sections behind a Menu button that opens and closes.
  await page.setViewportSize({ width: 420, height: 900 });
  await page.waitForSelector("#nav-toggle:not([hidden])", T);
  seen.narrow_nav_hidden = !(await page.isVisible("#nav"));
  await page.click("#nav-toggle");
  await page.waitForSelector("#nav.open", T);
  await shot("narrow-menu");
  await page.click('#nav a[data-page="tools"]');
  await visible("tools");
  seen.narrow_nav_closed = !(await page.isVisible("#nav"));
  seen.narrow_overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await shot("narrow");

  // A viewer's page: states and tools, but no operation, connect form or call button.
  const view = await browser.newPage();
  view.on("pageerror", (e) => problems.push(`viewer page error: ${e.message}`));
  view.on("console", (m) => {
    if (m.type() === "error" && !/^Failed to load resource/.test(m.text())) problems.push(`viewer console: ${m.text()}`);
  });
  await view.goto(`${base}/#token=${encodeURIComponent(viewer)}`);
  await view.waitForSelector('section[data-page="overview"]:not([hidden])', T);
  await view.click('#nav a[data-page="servers"]');
  await view.waitForSelector(row("ready"), T);
  seen.viewer = {
    buttons: await view.$$eval(`${row("ready")} button`, (b) => b.length),
    connect_hidden: await view.$eval("#connect-section", (s) => s.hidden),
  };
  await view.click('#nav a[data-page="tools"]');
  await view.click(`#tool-list li[data-tool="${tool}"] a`);
  await view.waitForFunction((t) => document.querySelector("#tool-name")?.textContent === t, tool, T);
  seen.viewer.call_hidden = await view.$eval("#call-button", (b) => b.hidden);
  seen.viewer.note = await view.textContent("#call-note");
  await view.screenshot({ path: `${shots}/viewer.png`, fullPage: true });
  seen.problems = problems;
  seen.http_errors = httpErrors;
  console.log(JSON.stringify(seen));
  process.exitCode = problems.length ? 1 : 0;
} catch (e) {
  console.log(JSON.stringify({ failed: String(e), problems, seen }));
  process.exitCode = 1;
} finally {
  await browser.close();
}
