// check-export.mjs opens pi session files with pi's own SessionManager
// (@mariozechner/pi-coding-agent 0.73.1) and prints, per file, one JSON
// line: what buildSessionContext resumes (the number of messages, their
// roles) and the tool calls without a later result and results without
// an earlier call. TestExportCorpusPiLoadsInPi runs it on our
// translated exports when node_modules is installed here (npm install).
//
//   node check-export.mjs FILE...
import { SessionManager } from "@mariozechner/pi-coding-agent";

for (const file of process.argv.slice(2)) {
	const ctx = SessionManager.open(file).buildSessionContext();
	const open = new Set();
	let orphans = 0;
	const roles = [];
	for (const m of ctx.messages) {
		roles.push(m.role);
		if (m.role === "assistant") {
			for (const b of m.content) if (b.type === "toolCall") open.add(b.id);
		} else if (m.role === "toolResult") {
			if (open.has(m.toolCallId)) open.delete(m.toolCallId);
			else orphans++;
		}
	}
	console.log(JSON.stringify({ file, messages: ctx.messages.length, roles, unpaired: open.size, orphans }));
}
