// A person signs in to the dashboard with the organisation's provider in a real browser
// (Debian's chromium via playwright-core): the dashboard's "Sign in with your organisation's
// account" link, the provider's login and consent forms, back on the dashboard signed in with
// the roles the claims map to. Then: the session cookie's attributes, a change refused without
// the CSRF header and let through with it, the same session seen by OTHER (another replica),
// and a sign-out that ends it there too.
// Usage: SWITCHBOARD_NODE_MODULES=… node dashboard_sign_in.mjs BASE LOGIN OTHER
// Prints what it saw as JSON; exits 1 on a page error or a failed wait.
import { createRequire } from "node:module";
import { signInAtProvider } from "./provider_login.mjs";

const require = createRequire(`${process.env.SWITCHBOARD_NODE_MODULES}/`);
const { chromium } = require("playwright-core");
const [base, login, other] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox"],
});
const out = { problems: [] };
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => out.problems.push(`page error: ${e.message}`));
  await page.goto(`${base}/`);
  await page.waitForSelector("#provider-sign-in:not([hidden])", { timeout: 15000 });
  await page.click("#provider-link");
  await signInAtProvider(page, login);
  await page.waitForURL(`${base}/`, { timeout: 15000 });
  await page.waitForFunction(() => document.getElementById("person").textContent !== "", null, { timeout: 15000 });
  out.person = await page.textContent("#person");
  out.me = await page.evaluate(() => fetch("/api/me").then((r) => r.json()));
  const cookie = (await page.context().cookies()).find((c) => c.name === "sb_session");
  out.cookie = { httpOnly: cookie.httpOnly, sameSite: cookie.sameSite, path: cookie.path };
  // A change without the CSRF header is refused; with it, it reaches the route (which then
  // judges the body).
  const change = (withCsrf) => page.evaluate(async ([csrf]) => {
    const headers = { "Content-Type": "application/json" };
    if (csrf) headers["X-Switchboard-CSRF"] = csrf;
    const r = await fetch("/api/integrations/mcp/servers", { method: "POST", headers, body: "{}" });
    return { status: r.status, body: await r.json().catch(() => ({})) };
  }, [withCsrf ? out.me.csrf : null]);
  out.without_csrf = await change(false);
  out.with_csrf = await change(true);
  // Another replica knows the session (it is in the shared store).
  const onOther = () => fetch(`${other}/api/me`, { headers: { cookie: `sb_session=${cookie.value}` } })
    .then((r) => r.status);
  out.other_before = await onOther();
  await page.click("#sign-out");
  await page.waitForFunction(() => document.getElementById("connection").textContent === "not signed in");
  // The page says so only after the session ended in the shared store.
  out.other_after = await onOther();
} catch (e) {
  out.problems.push(`failed: ${e.message}`);
} finally {
  await browser.close();
}
console.log(JSON.stringify(out));
process.exit(out.problems.length ? 1 : 0);
