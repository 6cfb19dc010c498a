// Drives the dashboard in a real browser (Debian's chromium via playwright-core): signs in with
// a token link, waits for SERVER to be ready, reads its row, then disables and enables it with
// the row's buttons. Prints what it saw as JSON; exits 1 on a page error or a wait that fails.
// Usage: SWITCHBOARD_NODE_MODULES=.fixtures/node/node_modules node dashboard.mjs BASE_URL TOKEN SERVER
import { createRequire } from "node:module";

const require = createRequire(`${process.env.SWITCHBOARD_NODE_MODULES}/`);
const { chromium } = require("playwright-core");

const [base, token, server] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
const problems = [];
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
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
  seen.message = await page.textContent("#message");
  seen.problems = problems;
  console.log(JSON.stringify(seen));
  process.exitCode = problems.length ? 1 : 0;
} catch (e) {
  console.log(JSON.stringify({ failed: String(e), problems }));
  process.exitCode = 1;
} finally {
  await browser.close();
}
