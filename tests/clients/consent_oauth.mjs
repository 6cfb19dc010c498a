// A person authorizes a per-end-user OAuth server from a consent link in a real browser
// (Debian's chromium via playwright-core): signed in at the upstream first (the oauth-server
// fixture's /login?user=UPSTREAM_USER), the link sends them to the organisation's provider,
// back to the consent page, on to the upstream's authorization and back to the gateway's
// callback. With "steal", the callback is not followed here but opened in another browser
// (no cookies), as an attacker holding the victim's callback URL would.
// Usage: SWITCHBOARD_NODE_MODULES=… node consent_oauth.mjs LINK LOGIN UPSTREAM UPSTREAM_USER [steal]
// Prints what it saw as JSON; exits 1 on a page error or a failed wait.
import { createRequire } from "node:module";
import { signInAtProvider } from "./provider_login.mjs";

const require = createRequire(`${process.env.SWITCHBOARD_NODE_MODULES}/`);
const { chromium } = require("playwright-core");
const [link, login, upstream, upstreamUser, mode] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
const out = { problems: [] };
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on("pageerror", (e) => out.problems.push(`page error: ${e.message}`));
  await page.goto(`${upstream}/login?user=${encodeURIComponent(upstreamUser)}`);
  let stolen = null;
  if (mode === "steal") {
    // The upstream's answer to the authorize request is the redirect to the callback:
    // taken here instead of followed (routes do not see redirects).
    await page.route(`${upstream}/authorize**`, async (route) => {
      const answer = await route.fetch({ maxRedirects: 0 });
      stolen = answer.headers()["location"];
      return route.abort();
    });
  }
  await page.goto(link);
  await signInAtProvider(page, login);
  const path = new URL(link).pathname;
  await page.waitForURL((u) => u.pathname === path, { timeout: 15000 });
  await page.waitForSelector("h1", { timeout: 15000 });
  out.consent_title = await page.textContent("h1");
  const button = await page.$('button[type="submit"]');
  out.offered_button = button !== null;
  if (button) {
    await button.click();
    if (mode === "steal") {
      for (let i = 0; i < 300 && !stolen; i++) await new Promise((r) => setTimeout(r, 50));
      if (!stolen) throw new Error(`no callback; at ${page.url()}: ${await page.textContent("body")}`);
      const other = await browser.newContext();
      const elsewhere = await other.newPage();
      const answer = await elsewhere.goto(stolen);
      out.status = answer.status();
      out.title = await elsewhere.textContent("h1");
      out.text = await elsewhere.textContent("body");
    } else {
      await page.waitForURL((u) => u.pathname.startsWith("/oauth/callback/"), { timeout: 15000 });
      await page.waitForSelector("h1", { timeout: 15000 });
      out.title = await page.textContent("h1");
      out.text = await page.textContent("body");
    }
  }
} catch (e) {
  out.problems.push(`failed: ${e.message}`);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
process.exit(out.problems.length ? 1 : 0);
