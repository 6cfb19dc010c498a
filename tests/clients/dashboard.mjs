// Drives the dashboard in a real browser (Debian's chromium via playwright-core): signs in with
// a token link, waits for SERVER to be ready, reads its row, then disables and enables it with
// the row's buttons; then the console: TOOL's schema, a playground call refused (the agent's
// action is off), the action toggled on in the agents panel, the call again (ok), a bad raw
// JSON, and the audit view filtered to that action. Screenshots go to SHOTS. Prints what it
// saw as JSON; exits 1 on a page error, a console error (CSP violations included) or a failed
// wait.
// Then a remote server connected through the form (a bad URL refused in place first), seen
// ready, edited, and disconnected after confirming; a changed definition of `shifty`'s weather
// tool (WEATHER_DESC rewritten, the server refreshed) approved from its diff; last, a VIEWER
// token's page offers no operation.
// Usage: SWITCHBOARD_NODE_MODULES=.fixtures/node/node_modules node dashboard.mjs BASE_URL TOKEN
//   SERVER TOOL ARGS_JSON SHOTS UPSTREAM_URL VIEWER_TOKEN WEATHER_DESC
import { createRequire } from "node:module";
import { writeFileSync } from "node:fs";

const require = createRequire(`${process.env.SWITCHBOARD_NODE_MODULES}/`);
const { chromium } = require("playwright-core");

const [base, token, server, tool, argsJson, shots, upstream, viewer, weatherDesc] = process.argv.slice(2);
const args = JSON.parse(argsJson);
const action = `mcp.${server}.${tool.split("__").slice(1).join("__")}`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
const problems = [];
const httpErrors = [];
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  // Answers with an error status are logged by the browser too: kept apart, since a refused
  // call is expected; every other console error (CSP violations included) is a problem.
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    if (/^Failed to load resource: the server responded with a status of \d+/.test(m.text())) httpErrors.push(m.text());
    else problems.push(`console: ${m.text()}`);
  });
  await page.goto(`${base}/#token=${encodeURIComponent(token)}`);
  const row = (status) => `tr[data-server="${server}"][data-status="${status}"]`;
  await page.waitForSelector(row("ready"), { timeout: 20000 });
  await page.waitForFunction(
    (sel) => document.querySelector(sel)?.textContent.includes("get_current_time"),
    row("ready"), { timeout: 20000 });
  // The first listing can land before the live event stream opens: give it the time to.
  await page.waitForFunction(
    () => document.querySelector("#connection")?.textContent === "live", null, { timeout: 20000 },
  ).catch(() => {});
  const cells = await page.$$eval(`${row("ready")} td`, (tds) => tds.map((td) => td.textContent));
  const seen = {
    url_after_sign_in: page.url(),
    connection: await page.textContent("#connection"),
    summary: await page.textContent("#summary"),
    ready_row: cells,
    statuses: ["ready"],
  };
  await page.click(`${row("ready")} button:text("disable")`);
  await page.waitForSelector(row("disabled"), { timeout: 20000 });
  seen.statuses.push("disabled");
  await page.click(`${row("disabled")} button:text("enable")`);
  await page.waitForSelector(row("ready"), { timeout: 20000 });
  seen.statuses.push("ready");
  // The row keeps the server's last state changes and its protocol version.
  const history = `tr[data-server="${server}"] .history[data-changes*="disabled"][data-changes$="ready"]`;
  await page.waitForSelector(history, { timeout: 20000 });
  seen.history = await page.getAttribute(history, "data-changes");
  seen.history_text = await page.textContent(history);
  // The server's page: its state changes and every tool with its definition.
  await page.click(`tr[data-server="${server}"] button.link`);
  await page.waitForSelector("#server-section:not([hidden])", { timeout: 20000 });
  await page.waitForSelector("#server-tools article", { timeout: 20000 });
  seen.server_page = {
    title: await page.textContent("#server-title"),
    facts: await page.textContent("#server-facts"),
    changes: await page.$$eval("#server-history li", (l) => l.length),
    tools: await page.$$eval("#server-tools article", (a) => a.map((x) => x.dataset.tool)),
  };
  await page.screenshot({ path: `${shots}/server.png`, fullPage: true });
  await page.click("#server-close");
  seen.message = await page.textContent("#message");
  await page.screenshot({ path: `${shots}/servers.png`, fullPage: true });

  // The tool's definition.
  await page.selectOption("#tool-select", tool);
  await page.waitForFunction(
    () => document.querySelector("#tool-input-schema")?.textContent.includes("properties"), null, { timeout: 20000 });
  seen.input_schema = await page.textContent("#tool-input-schema");
  seen.annotations = await page.textContent("#tool-annotations");
  await page.screenshot({ path: `${shots}/tool.png`, fullPage: true });
  // A call through the pipeline: the agent's action is off, so it is refused, with the kind.
  for (const [path, value] of Object.entries(args)) await page.fill(`[data-path="${path}"]`, value);
  await page.click("#call-button");
  await page.waitForSelector("#result[data-outcome]", { timeout: 20000 });
  seen.first_outcome = await page.getAttribute("#result", "data-outcome");
  seen.first_text = await page.textContent("#result");
  await page.screenshot({ path: `${shots}/refused.png`, fullPage: true });
  // Toggle the action on for the agent, in place.
  await page.click("#agent-load");
  await page.waitForSelector(`#agent-actions input[data-action="${action}"]`, { timeout: 20000 });
  seen.integrations = await page.$$eval("#agent-actions legend", (ls) => ls.map((l) => l.textContent));
  await page.check(`#agent-actions input[data-action="${action}"]`);
  await page.waitForSelector(`#agent-actions input[data-action="${action}"][data-saved="true"]`, { timeout: 20000 });
  await page.screenshot({ path: `${shots}/agent.png`, fullPage: true });
  // Now it runs.
  await page.evaluate(() => { delete document.querySelector("#result").dataset.outcome; });
  await page.click("#call-button");
  await page.waitForSelector("#result[data-outcome]", { timeout: 20000 });
  seen.second_outcome = await page.getAttribute("#result", "data-outcome");
  seen.second_text = await page.textContent("#result");
  await page.screenshot({ path: `${shots}/call.png`, fullPage: true });
  // Raw JSON that is not JSON is said, not sent.
  await page.check("#raw-mode");
  await page.fill("#raw-args", "{not json");
  await page.click("#call-button");
  await page.waitForSelector('#result[data-outcome="invalid_arguments"]', { timeout: 20000 });
  await page.uncheck("#raw-mode");
  // The audit view, filtered to the action: the refused call and the one that ran.
  await page.fill("#audit-action", action);
  // Audit rows are committed off the call path: show again until the call's row is there.
  // The table names the filters it shows: a reload the call started may answer after this one.
  const okRow = `#audit[data-filters="${new URLSearchParams({ action_id: action })}"] tbody tr[data-action="${action}"][data-outcome="ok"]`;
  const until = Date.now() + 20000;
  for (;;) {
    await page.click("#audit-load");
    if (await page.waitForSelector(okRow, { timeout: 500 }).then(() => true, () => false)) break;
    if (Date.now() > until) throw new Error("the call's audit row never showed");
  }
  seen.audit = await page.$$eval("#audit tbody tr", (rows) => rows.map((r) => r.dataset.outcome));
  // Every cell of those rows (seq, time, action, agent, end user, verdict, outcome, ms), for
  // the failure message.
  seen.audit_rows = await page.$$eval("#audit tbody tr", (rows) =>
    rows.map((r) => [...r.cells].map((c) => c.textContent).join(" | ")));
  await page.screenshot({ path: `${shots}/audit.png`, fullPage: true });
  // Filtered by server instead: the same rows; by another server: none.
  await page.fill("#audit-action", "");
  await page.fill("#audit-server", server);
  await page.click("#audit-load");
  const byServer = `#audit[data-filters="${new URLSearchParams({ server })}"] tbody tr[data-action="${action}"][data-outcome="ok"]`;
  await page.waitForSelector(byServer, { timeout: 20000 });
  seen.audit_by_server = await page.$$eval("#audit tbody tr", (rows) => rows.map((r) => [r.dataset.action, r.dataset.outcome]));
  await page.fill("#audit-server", "nobody");
  await page.click("#audit-load");
  await page.waitForFunction(() => document.querySelector("#audit-count")?.textContent === "0 row(s)", null, { timeout: 20000 });
  await page.fill("#audit-server", "");
  // The operator checks the whole chain.
  await page.click("#chain-verify");
  await page.waitForSelector("#chain-state.ok, #chain-state.error", { timeout: 20000 });
  seen.chain = await page.textContent("#chain-state");
  await page.screenshot({ path: `${shots}/chain.png`, fullPage: true });
  // The live figures catch up with both calls within a refresh or two.
  await page.waitForSelector(`#figures tbody tr[data-server="${server}"][data-calls="2"]`, { timeout: 20000 });
  seen.figures = await page.$$eval(`#figures tbody tr[data-server="${server}"] td`, (tds) => tds.map((td) => td.textContent));
  await page.screenshot({ path: `${shots}/figures.png`, fullPage: true });
  // Connect a remote server through the form: a bad URL is refused in place with the API's words.
  await page.fill("#connect-name", "Everything");
  await page.fill("#connect-url", "not a url");
  await page.click("#connect-button");
  await page.waitForFunction(() => document.querySelector("#connect-error")?.textContent, null, { timeout: 20000 });
  seen.connect_error = await page.textContent("#connect-error");
  seen.slug = await page.inputValue("#connect-slug");
  await page.screenshot({ path: `${shots}/connect-refused.png`, fullPage: true });
  await page.fill("#connect-url", upstream);
  await page.click("#connect-button");
  const connected = 'tr[data-server="everything"][data-status="ready"]';
  await page.waitForSelector(connected, { timeout: 30000 });
  seen.connected_row = await page.$$eval(`${connected} td`, (tds) => tds.map((td) => td.textContent));
  await page.screenshot({ path: `${shots}/connected.png`, fullPage: true });
  // Edit it in the same form: a bad URL is refused in place, then a new name is saved.
  await page.click(`${connected} button:text("edit")`);
  seen.edit_button = await page.textContent("#connect-button");
  seen.edit_slug_locked = await page.$eval("#connect-slug", (i) => i.disabled);
  await page.fill("#connect-url", "not a url");
  await page.click("#connect-button");
  await page.waitForFunction(() => document.querySelector("#connect-error")?.textContent, null, { timeout: 20000 });
  seen.edit_error = await page.textContent("#connect-error");
  await page.fill("#connect-url", upstream);
  await page.fill("#connect-name", "Everything, renamed");
  seen.edit_slug = await page.inputValue("#connect-slug");
  await page.screenshot({ path: `${shots}/edit.png`, fullPage: true });
  await page.click("#connect-button");
  await page.waitForFunction(() => document.querySelector("#connect-button")?.textContent === "Connect", null, { timeout: 30000 });
  await page.waitForSelector(connected, { timeout: 30000 });
  seen.edited_name = await page.evaluate(async () =>
    (await api("GET", "/api/integrations/mcp/servers")).servers.find((s) => s.slug === "everything")?.name);
  // A changed definition waits for approval with its diff; Approve puts it back.
  writeFileSync(weatherDesc, "Current weather for a city, in degrees Celsius.");
  await page.click('tr[data-server="shifty"] button:text("refresh")');
  const waiting = '#approvals article[data-server="shifty"][data-tool="weather"]';
  await page.waitForSelector(waiting, { timeout: 30000 });
  seen.diff_removed = await page.$$eval(`${waiting} .del`, (s) => s.map((x) => x.textContent));
  seen.diff_added = await page.$$eval(`${waiting} .add`, (s) => s.map((x) => x.textContent));
  await page.screenshot({ path: `${shots}/approval.png`, fullPage: true });
  await page.click(`${waiting} button`);
  await page.waitForSelector(waiting, { state: "detached", timeout: 30000 });
  seen.approvals_hidden = await page.$eval("#approvals-section", (s) => s.hidden);
  // API tokens: listed without secrets; one made for the purpose is revoked from its row and
  // is refused at once.
  const made = await page.evaluate(async () => await api("POST", "/api/tokens", { roles: ["integrations:view"], expires: "1h" }));
  await page.evaluate(async () => await loadTokens());
  const tokenRow = `#tokens tr[data-token="${made.id}"]`;
  await page.waitForSelector(`${tokenRow}[data-state="live"]`, { timeout: 20000 });
  seen.tokens_secret_shown = (await page.textContent("#tokens")).includes(made.token);
  page.once("dialog", (dialog) => dialog.accept());
  await page.click(`${tokenRow} button`);
  await page.waitForSelector(`${tokenRow}[data-state="revoked"]`, { timeout: 20000 });
  seen.revoked_token_status = await page.evaluate(async (t) =>
    (await fetch("/api/me", { headers: { authorization: `Bearer ${t}` } })).status, made.token);
  await page.screenshot({ path: `${shots}/tokens.png`, fullPage: true });
  // Disconnect, after confirming.
  page.once("dialog", (dialog) => { seen.confirm = dialog.message(); dialog.accept(); });
  await page.click(`${connected} button:text("disconnect")`);
  await page.waitForSelector('tr[data-server="everything"]', { state: "detached", timeout: 20000 });
  // A narrow window still shows every part.
  await page.setViewportSize({ width: 420, height: 900 });
  await page.screenshot({ path: `${shots}/narrow.png`, fullPage: true });
  // A viewer's page: states and tools, but no operation, connect form or call button.
  const view = await browser.newPage();
  view.on("pageerror", (e) => problems.push(`viewer page error: ${e.message}`));
  await view.goto(`${base}/#token=${encodeURIComponent(viewer)}`);
  await view.waitForSelector(row("ready"), { timeout: 20000 });
  await view.waitForSelector("#console-section:not([hidden])", { timeout: 20000 });
  seen.viewer = {
    buttons: await view.$$eval(`${row("ready")} button`, (b) => b.length),
    connect_hidden: await view.$eval("#connect-section", (s) => s.hidden),
    call_hidden: await view.$eval("#call-button", (b) => b.hidden),
    note: await view.textContent("#call-note"),
  };
  await view.screenshot({ path: `${shots}/viewer.png`, fullPage: true });
  seen.problems = problems;
  seen.http_errors = httpErrors;
  console.log(JSON.stringify(seen));
  process.exitCode = problems.length ? 1 : 0;
} catch (e) {
  console.log(JSON.stringify({ failed: String(e), problems }));
  process.exitCode = 1;
} finally {
  await browser.close();
}
