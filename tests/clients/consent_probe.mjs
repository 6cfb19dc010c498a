// Calls one tool through an MCP endpoint as an end user with the official TypeScript SDK
// client, declaring URL-mode elicitation (2025-11-25). A consent link the gateway sends is
// printed at once as a JSON line {"elicited": {...}} (the test opens it in a browser) and
// answered ACTION; then the call's outcome is printed as the last JSON line, in the shape
// consent_probe.py prints (the Rust test decides).
// Usage: node consent_probe.mjs URL TOKEN TOOL [ACTION]
// The SDK comes from SWITCHBOARD_NODE_MODULES (scripts/fixtures.sh installs it).
import path from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.env.SWITCHBOARD_NODE_MODULES;
const sdk = (p) =>
  import(pathToFileURL(path.join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const T = await sdk("types.js");

const [url, token, tool, action = "accept"] = process.argv.slice(2);
const seen = { elicited: [], completed: [] };
const client = new Client(
  { name: "consent-probe", version: "1.0.0" },
  { capabilities: { elicitation: { url: {} } } },
);
client.setRequestHandler(T.ElicitRequestSchema, async (request) => {
  const params = request.params;
  const entry = { mode: params.mode ?? null, message: params.message };
  if (params.mode === "url") {
    entry.url = params.url;
    entry.id = params.elicitationId;
  }
  seen.elicited.push(entry);
  console.log(JSON.stringify({ elicited: entry }));
  return { action };
});
client.setNotificationHandler(T.ElicitationCompleteNotificationSchema, (notification) => {
  seen.completed.push(notification.params.elicitationId);
});
const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const out = {};
await client.connect(transport);
try {
  // The call waits for the end user: no client-side timeout shorter than the gateway's.
  const result = await client.callTool({ name: tool, arguments: {} }, undefined, {
    timeout: 600000,
  });
  out.error = result.isError ?? false;
  out.text = (result.content ?? []).map((c) => c.text ?? "").join("");
} catch (e) {
  out.rpc_error = { code: e.code ?? null, message: String(e.message), data: e.data ?? null };
}
Object.assign(out, seen);
console.log(JSON.stringify(out));
await client.close();
process.exit(0);
