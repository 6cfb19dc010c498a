// Drives tests/fixtures/relay_server.py's tools through an MCP endpoint with the official
// TypeScript SDK client, answering the upstream's sampling, elicitation and roots requests,
// and prints what it saw as JSON (the same shape as relay_probe.py; the Rust test decides).
//
// Usage: node relay_probe.mjs http URL PREFIX [ANSWER]
//        node relay_probe.mjs stdio PREFIX ANSWER -- COMMAND ARG...
//        node relay_probe.mjs call URL TOOL [ANSWER]   (one call; its text as "text")
//        node relay_probe.mjs call-stdio TOOL ANSWER -- COMMAND ARG...   (the same over stdio)
// The SDK comes from SWITCHBOARD_NODE_MODULES (scripts/fixtures.sh installs it).
import path from "node:path";
import { pathToFileURL } from "node:url";

const modules = process.env.SWITCHBOARD_NODE_MODULES;
const sdk = (p) =>
  import(pathToFileURL(path.join(modules, "@modelcontextprotocol/sdk/dist/esm", p)).href);
const { Client } = await sdk("client/index.js");
const { StreamableHTTPClientTransport } = await sdk("client/streamableHttp.js");
const { StdioClientTransport } = await sdk("client/stdio.js");
const T = await sdk("types.js");

const [kind, ...rest] = process.argv.slice(2);
const overHttp = kind === "http" || kind === "call";
const [target, prefixArg, answerArg] = overHttp
  ? [rest[0], rest[1], rest[2]]
  : [null, rest[0], rest[1]];
const prefix = prefixArg === "-" ? "" : prefixArg;
const answer = answerArg ?? "Grace";
const command = overHttp ? [] : rest.slice(rest.indexOf("--") + 1);

const seen = { elicit: [], sampling: [], roots_asked: 0, logs: [], progress: [] };
const updates = [];
const waiters = [];
// Resolves once `ready()` holds (checked on every notification), or after 5 s.
const until = (ready) =>
  new Promise((resolve) => {
    if (ready()) return resolve();
    const timer = setTimeout(resolve, 5000);
    waiters.push(() => ready() && (clearTimeout(timer), resolve(), true));
  });
const notify = () => waiters.splice(0).forEach((w) => w() || waiters.push(w));

const client = new Client(
  { name: "relay-probe-ts", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} } },
);
client.setRequestHandler(T.ElicitRequestSchema, async ({ params }) => {
  const mode = params.mode ?? "form";
  if (mode === "url") {
    seen.elicit.push({ message: params.message, mode, url: params.url });
    return { action: "accept" };
  }
  const props = params.requestedSchema.properties ?? {};
  const defaults = {};
  const enums = {};
  for (const [k, v] of Object.entries(props)) {
    defaults[k] = v.default ?? null;
    if (v.enum) enums[k] = v.enum;
  }
  seen.elicit.push({ message: params.message, mode, defaults, enums });
  return { action: "accept", content: { name: answer, color: "blue" } };
});
client.setRequestHandler(T.CreateMessageRequestSchema, async ({ params }) => {
  seen.sampling.push(params.messages[0].content.text);
  return {
    role: "assistant",
    content: { type: "text", text: `summary by ${answer}` },
    model: "probe-model",
  };
});
client.setRequestHandler(T.ListRootsRequestSchema, async () => {
  seen.roots_asked += 1;
  return { roots: [{ uri: "file:///probe/root", name: "probe" }] };
});
client.setNotificationHandler(T.LoggingMessageNotificationSchema, ({ params }) => {
  seen.logs.push({ level: params.level, data: params.data });
  notify();
});
client.setNotificationHandler(T.ResourceUpdatedNotificationSchema, ({ params }) => {
  updates.push(params.uri);
  notify();
});

const transport = overHttp
    ? new StreamableHTTPClientTransport(new URL(target))
    : new StdioClientTransport({ command: command[0], args: command.slice(1), stderr: "ignore" });
const setVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (version) => {
  seen.protocol = version;
  setVersion?.(version);
};

const text = (result) => result.content.map((c) => c.text ?? "").join("");
const call = (name, args = {}, options) =>
  client.callTool({ name: prefix + name, arguments: args }, undefined, options);
const attempt = async (key, work) => {
  try {
    await work();
  } catch (e) {
    seen[key] = `error: ${e.message}`;
  }
};

await client.connect(transport);
if (kind === "call" || kind === "call-stdio") {
  seen.text = text(await client.callTool({ name: prefixArg, arguments: {} }));
  console.log(JSON.stringify(seen));
  await client.close();
  process.exit(0);
}
seen.tools = (await client.listTools()).tools.map((t) => t.name).sort();
seen.ask_name = text(await call("ask_name"));
seen.ask_url = text(await call("ask_url"));
seen.summarize = text(await call("summarize", { text: "a long text" }));
seen.show_roots = text(await call("show_roots"));
seen.chatty = text(
  await call("chatty", { count: 3 }, { onprogress: (p) => seen.progress.push(p.progress) }),
);
// Log lines the upstream wrote before its result arrive before it.
seen.logs_at_result = seen.logs.length;
const rich = await call("rich");
seen.rich = {
  types: rich.content.map((c) => c.type),
  structured: rich.structuredContent,
  meta: rich._meta?.["fixture/trace"],
  annotations: rich.content.map((c) => c.annotations?.priority ?? null),
};
await attempt("logs_at_warning", async () => {
  await client.setLoggingLevel("warning");
  const before = seen.logs.length;
  await call("chatty", { count: 4 });
  seen.logs_at_warning = seen.logs.slice(before);
});
await attempt("completion", async () => {
  const done = await client.complete({
    ref: { type: "ref/prompt", name: prefix + "greet" },
    argument: { name: "name", value: "A" },
  });
  seen.completion = done.completion.values;
});
await attempt("updated", async () => {
  const uris = (await client.listResources()).resources.map((r) => r.uri);
  const prefixed = `switchboard://${prefix.replace(/_+$/, "")}/relay://counter`;
  const uri = uris.includes(prefixed) ? prefixed : "relay://counter";
  await client.subscribeResource({ uri });
  seen.subscribed_upstream = text(await call("subscriptions"));
  await call("bump");
  await until(() => updates.length >= 1);
  seen.updated = updates.map((u) => u === uri);
  await client.unsubscribeResource({ uri });
  seen.unsubscribed_upstream = text(await call("subscriptions"));
});
await client.close();
console.log(JSON.stringify(seen));
