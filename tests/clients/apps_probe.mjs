// Reads an MCP endpoint as an MCP Apps host would, with the official TypeScript SDK client:
// lists tools and resources, reads the UI resource each tool names in `_meta.ui.resourceUri`,
// calls each tool, and prints what it saw as JSON (the Rust test decides).
//
// Usage: node apps_probe.mjs URL
// The SDK comes from SWITCHBOARD_NODE_MODULES (scripts/fixtures.sh installs it).
import path from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.env.SWITCHBOARD_NODE_MODULES;
const sdk = (p) =>
  import(pathToFileURL(path.join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");

const client = new Client({ name: "apps-probe-ts", version: "1.0.0" }, { capabilities: {} });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
const { tools } = await client.listTools();
const { resources } = await client.listResources();
const reads = {};
const calls = {};
for (const tool of tools) {
  const uri = tool._meta?.ui?.resourceUri;
  if (uri && !(uri in reads)) {
    const { contents } = await client.readResource({ uri });
    reads[uri] = contents.map((c) => ({ uri: c.uri, mimeType: c.mimeType, text: c.text, meta: c._meta }));
  }
  const result = await client.callTool({ name: tool.name, arguments: {} });
  calls[tool.name] = result.content?.[0]?.text ?? null;
}
await client.close();
console.log(
  JSON.stringify({
    tools: tools.map((t) => ({ name: t.name, meta: t._meta ?? null })),
    resources: resources.map((r) => ({ uri: r.uri, mimeType: r.mimeType, meta: r._meta ?? null })),
    reads,
    calls,
  }),
);
