// live.mjs writes one pi session with pi's own SessionManager
// (@mariozechner/pi-coding-agent 0.73.1), turn by turn with a pause
// between entries, the way pi writes while it works; no model is called.
// The watch tests run it while a watcher follows DIR:
//
//   node live.mjs DIR TURNS PAUSE_MS
//
// At the end it prints one JSON line: the session file and what pi's
// SessionManager.open(file).buildSessionContext() resumes from it.
import { SessionManager } from "@mariozechner/pi-coding-agent";

const [dir, turns = "5", pause = "50"] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let clock = Date.parse("2026-02-01T10:00:00.000Z");
const ts = () => (clock += 1000);
const usage = (input, output) => ({
	input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output,
	cost: { input: input * 3e-6, output: output * 15e-6, cacheRead: 0, cacheWrite: 0, total: input * 3e-6 + output * 15e-6 },
});
const assistant = (text, i) => ({
	role: "assistant", content: [{ type: "text", text }], api: "anthropic-messages", provider: "anthropic",
	model: "claude-sonnet-4-5", usage: usage(100 + i, 20 + i), stopReason: "stop", timestamp: ts(),
});

const sm = SessionManager.create("/home/dev/proj", dir);
for (let i = 0; i < Number(turns); i++) {
	sm.appendMessage({ role: "user", content: `live question ${i}: wombat${i}`, timestamp: ts() });
	await sleep(Number(pause));
	if (i === 1) {
		sm.appendModelChange("anthropic", "claude-sonnet-4-5");
		sm.appendSessionInfo("Live session");
	}
	sm.appendMessage(assistant(`live answer ${i}: kangaroo${i}`, i));
	await sleep(Number(pause));
}
const file = sm.getSessionFile();
const c = SessionManager.open(file).buildSessionContext();
console.log(JSON.stringify({ file, messages: c.messages.length }));
