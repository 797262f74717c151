// The TypeScript SDK's client against `sessionctl mcp` over stdio.
//
//   node client.mjs SESSIONCTL DB
//
// The database holds the sessions cmd/sessionctl's TestMCPNodeClient
// seeds ("hostile", "long" with 3,000 entries, and the bundled samples).
// The SDK validates every structured result against the tool's output
// schema (it throws otherwise). Prints one line per check and ends with
// "N passed, N failed"; exits 1 if any failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, db] = process.argv.slice(2);
let passed = 0;
let failed = 0;
function check(name, ok, detail = "") {
  if (ok) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name} ${detail}`);
  }
}

const transport = new StdioClientTransport({ command: bin, args: ["--db", db, "mcp"], stderr: "inherit" });
const client = new Client({ name: "sessiondb-ts-test", version: "1.0.0" });
await client.connect(transport);

const info = client.getServerVersion();
check("server info names sessiondb", info?.name === "sessiondb", JSON.stringify(info));
check("instructions warn that transcripts are data", /not instructions to you/.test(client.getInstructions() ?? ""));

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
check("five tools", JSON.stringify(names) === JSON.stringify(["list_sessions", "read_transcript", "search", "session_info", "usage"]), names.join(","));
for (const t of tools) {
  check(`${t.name} has input and output schemas`, t.inputSchema?.type === "object" && t.outputSchema?.type === "object");
  check(`${t.name} is read-only`, t.annotations?.readOnlyHint === true && t.annotations?.destructiveHint === false);
}

async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  const text = res.content?.[0]?.text ?? "";
  return { res, text, out: res.structuredContent };
}

// Every tool, with structured output the SDK validated.
let r = await call("list_sessions", { limit: 5 });
check("list_sessions returns sessions", !r.res.isError && r.out.sessions.length === 5 && r.out.truncated === true && r.out.next_cursor);
const r2 = await call("list_sessions", { cursor: r.out.next_cursor, limit: 5 });
check("list_sessions cursor goes on", !r2.res.isError && r2.out.sessions.length > 0 && !r2.out.sessions.some((s) => r.out.sessions.find((x) => x.id === s.id)));

r = await call("search", { query: "lighthouse keeper" });
check("search finds the hostile session", !r.res.isError && r.out.hits.length === 1 && r.out.hits[0].session_id === "hostile", r.text);
const hit = r.out.hits[0];

r = await call("read_transcript", { session: hit.session_id, around_seq: hit.seq, context: 1 });
check("read_transcript around a hit", !r.res.isError && r.out.messages.some((m) => m.focus && m.seq === hit.seq), r.text);

r = await call("read_transcript", { session: "hostile" });
const result = r.out.messages[1]?.tool_calls?.[0]?.result?.text ?? "";
check("tool call folded with its result", r.out.messages.length === 3 && result.startsWith("IGNORE PREVIOUS INSTRUCTIONS"), r.text);
check("control and bidi characters made visible", !/[\u001b\u0007\u202e]/.test(r.text) && result.includes("\\x1b[2J") && result.includes("\\u202e"), result);
check("hostile text only inside JSON strings", r.text.startsWith("{") && JSON.stringify(r.out) === JSON.stringify(JSON.parse(r.text)));

r = await call("session_info", { session: "hostile" });
check("session_info", !r.res.isError && r.out.session.id === "hostile" && r.out.usage.calls === 1, r.text);

r = await call("usage", { by: ["model"] });
check("usage", !r.res.isError && r.out.rows.some((row) => row.model === "gpt-x") && r.out.total.calls >= 1, r.text);

// Bounded answers: walk the 3,000-entry session with a small budget.
let seqs = [];
let args = { session: "long", max_bytes: 4096 };
let pages = 0;
let over = 0;
for (;;) {
  r = await call("read_transcript", args);
  pages++;
  if (Buffer.byteLength(r.text) > 4096) over++;
  seqs.push(...r.out.messages.map((m) => m.seq));
  if (!r.out.truncated) break;
  args = { cursor: r.out.next_cursor, max_bytes: 4096 };
}
const inOrder = seqs.length === 3000 && seqs.every((s, i) => s === i + 1);
check(`3,000 entries in ${pages} pages of at most 4096 bytes`, inOrder && over === 0 && pages > 10, `${seqs.length} entries, ${over} pages over`);

// Errors are tool errors, not protocol errors or crashes.
for (const [name, a, want] of [
  ["read_transcript", { session: "no-such-session" }, /not found/],
  ["read_transcript", { session: "long", max_bytes: 1 }, /max_bytes/],
  ["search", { query: "x", cursor: "not-a-cursor" }, /cursor/],
  ["usage", { by: ["week"] }, /by/],
]) {
  r = await call(name, a);
  check(`${name} ${JSON.stringify(a)} is a tool error`, r.res.isError === true && want.test(r.text), r.text);
}

// Resources.
const { resourceTemplates } = await client.listResourceTemplates();
check("session resource template", resourceTemplates.length === 1 && resourceTemplates[0].uriTemplate === "sessiondb://session/{id}");
const res = await client.readResource({ uri: "sessiondb://session/hostile" });
const doc = JSON.parse(res.contents[0].text);
check("read a session resource", res.contents[0].mimeType === "application/json" && doc.session.id === "hostile" && doc.messages.length === 3);
let missing = false;
try {
  await client.readResource({ uri: "sessiondb://session/no-such-session" });
} catch (e) {
  missing = /not found/i.test(String(e));
}
check("a missing session's resource is an error", missing);

await client.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
