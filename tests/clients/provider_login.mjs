// The organisation's provider's development forms (tests/fixtures/oidc_provider.mjs), as a
// person fills them in a browser page that was sent there: login, then consent.
export async function signInAtProvider(page, login) {
  await page.waitForSelector('input[name="login"]', { timeout: 15000 });
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', "any");
  await page.click('button[type="submit"]');
  await page.waitForSelector('button[type="submit"]', { timeout: 15000 });
  await page.click('button[type="submit"]');
}
