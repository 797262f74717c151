// requests.mjs prints, as one JSON document, what the Claude Code CLI sent
// to fake-api.mjs in one run (its request log, argv[2]): for every request
// its method, path and model, and for the Messages calls the messages array
// (how the CLI reads its transcript back), without the system prompt and
// tool definitions, which say nothing about the transcript and are large.
import fs from "node:fs";

// short cuts text longer than 300 characters (system reminders, skill
// listings) to its first 200 and its length: enough to match turns, and it
// keeps the fixtures small.
function short(m) {
	const cut = (t) => (t.length > 300 ? t.slice(0, 200) + `…[${t.length} chars]` : t);
	if (typeof m.content === "string") return { ...m, content: cut(m.content) };
	return {
		...m,
		content: m.content.map((b) => {
			if (b.type === "text") return { ...b, text: cut(b.text) };
			if (b.type === "tool_result" && typeof b.content === "string") return { ...b, content: cut(b.content) };
			return b;
		}),
	};
}

const out = [];
for (const line of fs.readFileSync(process.argv[2], "utf8").split("\n")) {
	if (!line) continue;
	const r = JSON.parse(line);
	const b = r.body && typeof r.body === "object" ? r.body : {};
	const e = { seq: r.seq, method: r.method, path: r.url.split("?")[0] };
	if (b.model) e.model = b.model;
	if (b.tools) e.tools = b.tools.map((t) => t.name);
	if (b.metadata && b.metadata.user_id) {
		try {
			e.sessionId = JSON.parse(b.metadata.user_id).session_id;
		} catch {
			// not JSON: leave it out
		}
	}
	if (b.messages) e.messages = b.messages.map(short);
	out.push(e);
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
