// A person opens a consent link in a real browser (Debian's chromium via playwright-core): the
// gateway sends them to the organisation's provider first (its development login and consent
// forms), back to the consent page, and, when the page offers the form, types SECRET and saves.
// Usage: SWITCHBOARD_NODE_MODULES=… node consent_page.mjs LINK LOGIN SECRET
// Prints what it saw as JSON (the consent page's last status, title and text); exits 1 on a
// page error or a failed wait.
import { createRequire } from "node:module";
import { signInAtProvider } from "./provider_login.mjs";

const require = createRequire(`${process.env.SWITCHBOARD_NODE_MODULES}/`);
const { chromium } = require("playwright-core");
const [link, login, secret] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
const out = { problems: [], statuses: [] };
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => out.problems.push(`page error: ${e.message}`));
  const path = new URL(link).pathname;
  page.on("response", (r) => {
    if (new URL(r.url()).pathname === path) out.statuses.push(r.status());
  });
  await page.goto(link);
  await signInAtProvider(page, login);
  await page.waitForURL((u) => u.pathname === path, { timeout: 15000 });
  await page.waitForSelector("h1", { timeout: 15000 });
  out.offered_form = (await page.$('input[name="secret"]')) !== null;
  if (out.offered_form) {
    await page.fill('input[name="secret"]', secret);
    await page.click('button[type="submit"]');
    await page.waitForFunction(() => !document.querySelector('input[name="secret"]'), null, { timeout: 15000 });
  }
  out.title = await page.textContent("h1");
  out.text = await page.textContent("body");
  out.status = out.statuses[out.statuses.length - 1];
  // The link works once: opened again in the same (signed-in) browser, it is gone.
  const again = await page.goto(link);
  out.again = again.status();
} catch (e) {
  out.problems.push(`failed: ${e.message}`);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
process.exit(out.problems.length ? 1 : 0);
