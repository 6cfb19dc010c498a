// The official MCP TypeScript SDK client with an OAuth client provider against a gateway that
// accepts access tokens: the SDK reads the Protected Resource Metadata, registers with the
// provider (dynamic client registration) and runs authorization code + PKCE; the provider's
// login and consent forms are answered over HTTP (no browser). Then it lists and calls tools.
//
// Usage: node oauth_probe.mjs MCP_URL LOGIN TOOL
// Prints {"tools", "call"} as JSON on its last line. The SDK comes from SWITCHBOARD_NODE_MODULES.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.env.SWITCHBOARD_NODE_MODULES;
const sdk = (p) =>
  import(pathToFileURL(path.join(modules, '@modelcontextprotocol/sdk/dist/esm', p)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { UnauthorizedError } = await sdk('client/auth.js');

const [url, login, tool] = process.argv.slice(2);
const REDIRECT = 'http://127.0.0.1:9/callback';

// Follows the authorization URL through the provider's forms to the redirect: the code.
async function signIn(start) {
  const cookies = new Map();
  const send = async (target, init = {}) => {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(target, {
      ...init, redirect: 'manual', headers: { ...(init.headers || {}), cookie },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
  let response = await send(start);
  for (let step = 0; step < 20; step += 1) {
    if (response.status >= 300 && response.status < 400) {
      const location = new URL(response.headers.get('location'), response.url || start).href;
      if (location.startsWith(REDIRECT)) {
        const code = new URL(location).searchParams.get('code');
        if (!code) throw new Error(`the provider refused: ${location}`);
        return code;
      }
      response = await send(location);
      continue;
    }
    const html = await response.text();
    const action = html.match(/action="([^"]+)"/);
    const prompt = html.match(/name="prompt" value="(\w+)"/);
    if (!action || !prompt) throw new Error(`unexpected page ${response.status}: ${html.slice(0, 300)}`);
    const form = new URLSearchParams({ prompt: prompt[1] });
    if (prompt[1] === 'login') { form.set('login', login); form.set('password', 'any'); }
    const target = new URL(action[1], response.url || start).href;
    response = await send(target, {
      method: 'POST', body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
  }
  throw new Error('too many steps');
}

let clientInfo; let tokens; let verifier; let code;
const authProvider = {
  get redirectUrl() { return REDIRECT; },
  get clientMetadata() {
    return {
      client_name: 'switchboard-test', redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  },
  clientInformation: () => clientInfo,
  saveClientInformation: (info) => { clientInfo = info; },
  tokens: () => tokens,
  saveTokens: (t) => { tokens = t; },
  redirectToAuthorization: async (authorizationUrl) => { code = await signIn(authorizationUrl.href); },
  saveCodeVerifier: (v) => { verifier = v; },
  codeVerifier: () => verifier,
};

const connect = async () => {
  const client = new Client({ name: 'oauth-probe', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider }));
  return client;
};
let client;
try {
  client = await connect();
} catch (e) {
  if (!(e instanceof UnauthorizedError)) throw e;
  // The sign-in ran in redirectToAuthorization; trade its code for tokens, then connect.
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider });
  await transport.finishAuth(code);
  client = await connect();
}
const out = { tools: (await client.listTools()).tools.map((t) => t.name) };
if (tool) {
  const result = await client.callTool({ name: tool, arguments: {} });
  out.call = {
    is_error: Boolean(result.isError),
    text: result.content.map((c) => c.text || '').join(''),
  };
}
await client.close();
console.log(JSON.stringify(out));
