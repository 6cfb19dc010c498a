// An end user signs in to the dashboard with the organisation's provider in a real browser
// (Debian's chromium via playwright-core), opens "My grants", sees their own grants and revokes
// SERVER's with its button.
// Usage: SWITCHBOARD_NODE_MODULES=… node my_grants.mjs BASE LOGIN SERVER
// Prints what it saw as JSON (the servers listed before and after); exits 1 on a page error or
// a failed wait.
import { createRequire } from "node:module";
import { signInAtProvider } from "./provider_login.mjs";

const require = createRequire(`${process.env.SWITCHBOARD_NODE_MODULES}/`);
const { chromium } = require("playwright-core");
const [base, login, server] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
const out = { problems: [] };
const listed = (page) => page.$$eval("#my-grants tbody tr", (rows) => rows.map((r) => r.dataset.server));
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => out.problems.push(`page error: ${e.message}`));
  await page.goto(`${base}/`);
  await page.waitForSelector("#provider-sign-in:not([hidden])", { timeout: 15000 });
  await page.click("#provider-link");
  await signInAtProvider(page, login);
  // "My grants" is a section of its own, offered to a person whose identity is an end user.
  await page.click('#nav a[data-page="grants"]', { timeout: 15000 });
  await page.waitForSelector(`#my-grants tr[data-server="${server}"]`, { timeout: 15000 });
  out.who = await page.textContent("#grants-who");
  out.before = await listed(page);
  await page.click(`#my-grants tr[data-server="${server}"] button`);
  await page.waitForSelector(`#my-grants tr[data-server="${server}"]`, { state: "detached", timeout: 15000 });
  out.after = await listed(page);
} catch (e) {
  out.problems.push(`failed: ${e.message}`);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
process.exit(out.problems.length ? 1 : 0);
