// random.mjs writes randomized pi session files with pi's own
// SessionManager (@mariozechner/pi-coding-agent 0.73.1), for a
// differential test of sessiondb's pi reader against pi's own loader.
// No model is called. Run by hand, not by the tests:
//
//   cd testdata/gen/pi && npm install && node random.mjs SEED N OUTDIR
//
// From a PRNG seeded with SEED it drives N sessions through random
// sequences of pi's public SessionManager API: appendMessage (user,
// assistant with text/thinking/toolCall content and usage, toolResult,
// bashExecution, custom), appendModelChange, appendThinkingLevelChange,
// appendCompaction (firstKeptEntryId mostly on the current branch),
// branch(id) and branchWithSummary, resetLeaf, appendLabelChange,
// appendSessionInfo, appendCustomEntry, appendCustomMessageEntry,
// SessionManager.open of the file then more appends (what a new pi
// process does with an existing file), a second process appending to the
// same file in turns with the first, /tree and /fork as pi's AgentSession
// does them (navigate, fork), and forks: createBranchedSession, forkFrom
// and newSession({parentSession}). Every file pi wrote
// lands in OUTDIR under the name pi gave it (<ts>_<uuid>.jsonl, or
// empty-<uuid>.jsonl for the empty files pi was pointed at; pi only
// writes a file once it holds an assistant message), and beside it
// <name>.expected.json: what SessionManager.open(file).buildSessionContext()
// returns (messages, model, thinkingLevel), the session name, the labels
// and the leaf id, as gen.mjs records them in testdata/pi/expected, plus
// "branches": for every branch tip other than the leaf, the context pi
// builds after branch(tip) (gen.mjs branches).
//
// STEPS (default 30) bounds the number of API calls per session (a fifth
// of the sessions get up to three times as many).
//
// The clock, pi's entry ids (crypto.randomUUID) and its uuidv7 session ids
// (crypto.getRandomValues) are driven by the seed too, so the same SEED
// and N write the same bytes.
//
// jsonlimport/pi's TestPiRandom checks sessiondb against a committed
// sample of these files (testdata/pi/random, made with
// "node random.mjs 67 20 ../../pi/random 12" after emptying that directory);
// SESSIONDB_PI_RANDOM=DIR points it at another corpus.
import crypto from "node:crypto";
import fs from "node:fs";
import module from "node:module";
import os from "node:os";
import path from "node:path";

const [seedArg, nArg, outArg, stepsArg = "30"] = process.argv.slice(2);
if (!seedArg || !nArg || !outArg) {
	console.error("usage: node random.mjs SEED N OUTDIR [STEPS]");
	process.exit(2);
}
const out = path.resolve(outArg);
fs.mkdirSync(out, { recursive: true });

// mulberry32: a small seeded PRNG.
function prng(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}
const rand = prng(Number(seedArg) * 7919 + 17);
const idRand = prng(Number(seedArg) * 104729 + 3);
const int = (n) => Math.floor(rand() * n);
const chance = (p) => rand() < p;
const pick = (a) => a[int(a.length)];

// Deterministic ids and clock for pi's code.
const hex = () => Math.floor(idRand() * 16).toString(16);
crypto.randomUUID = () => {
	let s = "";
	for (let i = 0; i < 32; i++) s += hex();
	return `${s.slice(0, 8)}-${s.slice(8, 12)}-4${s.slice(13, 16)}-a${s.slice(17, 20)}-${s.slice(20, 32)}`;
};
module.syncBuiltinESMExports();
globalThis.crypto.getRandomValues = (a) => {
	for (let i = 0; i < a.length; i++) a[i] = Math.floor(idRand() * 256);
	return a;
};
let clock = Date.parse("2026-03-01T08:00:00.000Z") + Number(seedArg) * 86400000;
const RealDate = Date;
globalThis.Date = class extends RealDate {
	constructor(...args) {
		if (args.length === 0) {
			clock += 1 + int(3000);
			super(clock);
		} else super(...args);
	}
	static now() {
		clock += 1;
		return clock;
	}
};

const { SessionManager } = await import("@mariozechner/pi-coding-agent");
const cwd = "/home/dev/proj";

const words = ["retry", "queue", "uploader", "backoff", "metrics", "wombat", "cache", "index", "flaky test", "lock", "schema", "parser",
	"naïve café", "日本語", "🦘", "line\nbreak", 'a "quote"', "tab\there", "sep\u2028arator", "back\\slash", "<b>&amp;</b>", "$HOME"];
const sentence = () => Array.from({ length: 2 + int(6) }, () => pick(words)).join(" ");
// A tiny PNG, as pi stores a pasted or read image.
const image = () => ({ type: "image", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", mimeType: "image/png" });
// Now and then a long tool output (pi keeps what the tool printed).
const output = () => (chance(0.02) ? sentence().repeat(2000 + int(4000)) : sentence());
const models = [["anthropic", "claude-sonnet-4-5", "anthropic-messages"], ["openai", "gpt-4o", "openai-responses"], ["google", "gemini-2.5-pro", "google-generative-ai"]];

function usage() {
	const input = int(5000), output = int(800), cacheRead = chance(0.5) ? int(20000) : 0, cacheWrite = chance(0.2) ? int(3000) : 0;
	const cost = { input: input * 3e-6, output: output * 15e-6, cacheRead: cacheRead * 3e-7, cacheWrite: cacheWrite * 3.75e-6 };
	cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
	return { input, output, cacheRead, cacheWrite, totalTokens: input + output + cacheRead + cacheWrite, cost };
}

// One generated conversation: the SessionManager it writes with, the
// tool calls awaiting a result, the model in use.
class Run {
	constructor() {
		if (chance(0.05)) {
			// pi --session FILE on a file that exists and is empty: pi
			// writes a header, and its first flush writes it again.
			const f = path.join(out, `empty-${crypto.randomUUID()}.jsonl`);
			fs.writeFileSync(f, "");
			this.sm = SessionManager.open(f, undefined, cwd);
		} else {
			this.sm = SessionManager.create(cwd, out);
			this.sm.newSession({ id: crypto.randomUUID() });
		}
		this.pending = [];
		this.others = []; // other pi processes on the same file
		this.model = pick(models);
		this.files = new Set();
		this.calls = 0;
	}
	note() {
		const f = this.sm.getSessionFile();
		if (f && fs.existsSync(f)) this.files.add(f);
	}
	ids() {
		return this.sm.getEntries().map((e) => e.id);
	}
	user() {
		const content = chance(0.7) ? sentence() : [{ type: "text", text: sentence() }, ...(chance(0.3) ? [image()] : [])];
		this.sm.appendMessage({ role: "user", content, timestamp: Date.now() });
	}
	assistant() {
		const content = [];
		if (chance(0.4)) content.push({ type: "thinking", thinking: sentence(), ...(chance(0.5) ? { thinkingSignature: "sig" + int(1000) } : {}) });
		if (chance(0.8)) content.push({ type: "text", text: sentence() });
		const calls = chance(0.4) ? 1 + int(3) : 0;
		for (let i = 0; i < calls; i++) {
			const id = `call_${++this.calls}_${int(1e6)}`;
			const name = pick(["bash", "read", "edit", "write"]);
			content.push({ type: "toolCall", id, name, arguments: name === "bash" ? { command: sentence() } : { path: `src/${pick(words).replace(" ", "_")}.go` } });
			this.pending.push([id, name]);
		}
		const [provider, model, api] = this.model;
		const stop = calls > 0 ? "toolUse" : pick(["stop", "stop", "stop", "length", "aborted", "error"]);
		if (stop === "aborted" && chance(0.5)) content.length = 0;
		const msg = { role: "assistant", content, api, provider, model, usage: usage(), stopReason: stop, timestamp: Date.now() };
		if (stop === "error") msg.errorMessage = "overloaded";
		this.sm.appendMessage(msg);
	}
	toolResult() {
		const [id, name] = this.pending.shift();
		const content = [{ type: "text", text: output() }, ...(name === "read" && chance(0.2) ? [image()] : [])];
		this.sm.appendMessage({ role: "toolResult", toolCallId: id, toolName: name, content, ...(chance(0.3) ? { details: { exit: int(3) } } : {}), isError: chance(0.15), timestamp: Date.now() });
	}
	// /tree as pi's AgentSession.navigateTree does it: to the parent of a
	// user or custom message (its text goes back to the editor), else to
	// the entry; with a summary of the branch left, or a label.
	navigate() {
		const sm = this.sm;
		const target = pick(sm.getEntries());
		const toParent = (target.type === "message" && target.message.role === "user") || target.type === "custom_message";
		const leaf = toParent ? target.parentId : target.id;
		const summary = chance(0.4) ? sentence() : "";
		const label = chance(0.2) ? "nav" + int(10) : undefined;
		if (summary) {
			const id = sm.branchWithSummary(leaf, summary, chance(0.5) ? { readFiles: [], modifiedFiles: [] } : undefined);
			if (label) sm.appendLabelChange(id, label);
		} else if (leaf === null) sm.resetLeaf();
		else sm.branch(leaf);
		if (label && !summary) sm.appendLabelChange(target.id, label);
		this.pending = [];
	}
	// /fork as pi's AgentSessionRuntime.fork does it: at an entry, or
	// before a user message; before the first one, a new empty session
	// naming its parent; else the path to the target in a new file, which
	// a new SessionManager opens (when it holds no assistant message yet,
	// pi has not written it, and open starts that file afresh).
	fork() {
		this.note();
		const f = this.sm.getSessionFile();
		if (!f || !fs.existsSync(f)) return;
		const entries = this.sm.getEntries();
		const users = entries.filter((e) => e.type === "message" && e.message.role === "user");
		let target;
		if (users.length > 0 && chance(0.5)) target = pick(users).parentId;
		else target = pick(entries).id;
		if (!target) {
			this.sm = SessionManager.create(cwd, out);
			this.sm.newSession({ parentSession: f });
		} else {
			// (cwd as pi's own process.cwd(): open() of a path pi has
			// not written takes the process's.)
			const forked = SessionManager.open(f, out, cwd).createBranchedSession(target);
			this.sm = SessionManager.open(forked, out, cwd);
		}
		this.others = [];
		this.pending = [];
	}
	step() {
		if (this.others.length > 0 && chance(0.3)) {
			// Another pi process on the same file takes a turn: it
			// appends under the leaf it loaded, unaware of the other's
			// lines.
			const i = int(this.others.length);
			[this.sm, this.others[i]] = [this.others[i], this.sm];
			this.pending = [];
			if (this.sm.getSessionFile() !== this.others[i].getSessionFile()) this.others = [];
		}
		if (this.pending.length > 0 && chance(0.85)) return this.toolResult();
		const r = rand();
		const sm = this.sm;
		const ids = this.ids();
		if (r < 0.22) return this.user();
		if (r < 0.5) return this.assistant();
		if (r < 0.53) return sm.appendMessage({ role: "bashExecution", command: sentence(), output: sentence(), exitCode: int(2), cancelled: false, truncated: false, timestamp: Date.now(), ...(chance(0.3) ? { excludeFromContext: true } : {}) });
		if (r < 0.55) return sm.appendMessage({ role: "custom", customType: "ext", content: sentence(), display: chance(0.5), timestamp: Date.now() });
		if (r < 0.59) {
			this.model = pick(models);
			return sm.appendModelChange(this.model[0], this.model[1]);
		}
		if (r < 0.62) return sm.appendThinkingLevelChange(pick(["off", "minimal", "low", "medium", "high", "xhigh"]));
		if (r < 0.67 && ids.length > 0) {
			// A compaction keeps from an entry of the current branch
			// (rarely another one's, or an id never written).
			const branch = sm.getBranch().map((e) => e.id);
			let keep = pick(branch.length > 0 ? branch : ids);
			if (chance(0.1)) keep = pick(ids);
			if (chance(0.03)) keep = "deadbeef";
			return sm.appendCompaction(sentence(), keep, int(100000), chance(0.5) ? { readFiles: ["a.go"], modifiedFiles: [] } : undefined, chance(0.2) ? true : undefined);
		}
		if (r < 0.70 && ids.length > 1) {
			sm.branch(pick(ids));
			this.pending = [];
			return;
		}
		if (r < 0.74 && ids.length > 1) return this.navigate();
		if (r < 0.78 && ids.length > 1) {
			sm.branchWithSummary(chance(0.95) ? pick(ids) : null, chance(0.9) ? sentence() : "", chance(0.3) ? { readFiles: [] } : undefined);
			this.pending = [];
			return;
		}
		if (r < 0.79) {
			sm.resetLeaf();
			this.pending = [];
			return;
		}
		if (r < 0.83 && ids.length > 0) return sm.appendLabelChange(pick(ids), chance(0.75) ? pick(["checkpoint", "bug", "good", "idea"]) + int(10) : chance(0.5) ? undefined : "");
		if (r < 0.85) return sm.appendSessionInfo(chance(0.9) ? sentence() : pick(["", "  "]));
		if (r < 0.88) return sm.appendCustomEntry(pick(["todo", "plan"]), chance(0.8) ? { n: int(100) } : undefined);
		if (r < 0.92) {
			const content = chance(0.6) ? sentence() : [{ type: "text", text: sentence() }];
			return sm.appendCustomMessageEntry("ext", content, chance(0.7), chance(0.3) ? { k: int(9) } : undefined);
		}
		if (r < 0.935) {
			// A second pi process opens the file while this one goes on.
			const f = sm.getSessionFile();
			if (f && fs.existsSync(f)) this.others.push(SessionManager.open(f));
			return;
		}
		if (r < 0.95) {
			// A new pi process resumes the file.
			this.note();
			const f = sm.getSessionFile();
			if (f && fs.existsSync(f)) {
				this.sm = SessionManager.open(f);
				this.pending = [];
			}
			return;
		}
		if (r < 0.958 && ids.length > 0) {
			// createBranchedSession: a new file with the path to an entry,
			// this SessionManager going on in it.
			this.note();
			const e = pick(this.sm.getEntries());
			this.sm.createBranchedSession(e.id);
			this.pending = [];
			return;
		}
		if (r < 0.966 && ids.length > 0) return this.fork();
		if (r < 0.975) {
			this.note();
			const f = sm.getSessionFile();
			if (f && fs.existsSync(f)) {
				this.sm = SessionManager.forkFrom(f, cwd, out);
				this.pending = [];
			}
			return;
		}
		if (r < 0.985) {
			this.note();
			const f = sm.getSessionFile();
			sm.newSession(chance(0.7) ? { parentSession: f } : undefined);
			this.pending = [];
			return;
		}
		return this.user();
	}
}

function context(file) {
	const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pirand-")), path.basename(file));
	fs.copyFileSync(file, tmp);
	const sm = SessionManager.open(tmp);
	const c = sm.buildSessionContext();
	const labels = {};
	for (const e of sm.getEntries()) {
		const l = sm.getLabel(e.id);
		if (l) labels[e.id] = l;
	}
	const res = { messages: c.messages, model: c.model, thinkingLevel: c.thinkingLevel, name: sm.getSessionName() ?? null, labels, leafId: sm.getLeafId() };
	const leaf = sm.getLeafId();
	const parents = new Set(sm.getEntries().map((e) => e.parentId));
	const branches = {};
	for (const e of sm.getEntries()) {
		if (parents.has(e.id) || e.id === leaf) continue;
		sm.branch(e.id);
		const b = sm.buildSessionContext();
		branches[e.id] = { messages: b.messages, model: b.model, thinkingLevel: b.thinkingLevel };
	}
	res.branches = branches;
	fs.rmSync(path.dirname(tmp), { recursive: true, force: true });
	return res;
}

const written = new Set();
for (let i = 0; i < Number(nArg); i++) {
	const run = new Run();
	const steps = 4 + int(chance(0.2) ? 3 * Number(stepsArg) : Number(stepsArg));
	// Start the way pi does: the model and thinking level of the new
	// session (mostly), a prompt and an answer.
	if (chance(0.7)) {
		run.sm.appendModelChange(run.model[0], run.model[1]);
		run.sm.appendThinkingLevelChange(pick(["off", "medium", "high"]));
	}
	run.user();
	run.assistant();
	for (let s = 0; s < steps; s++) {
		run.step();
		run.note();
	}
	// Answer the calls left open, as pi would before it stops.
	while (run.pending.length > 0) run.toolResult();
	run.note();
	for (const f of run.files) written.add(f);
}
for (const f of [...written].sort()) {
	const name = path.basename(f).replace(/\.jsonl$/, "");
	fs.writeFileSync(path.join(out, `${name}.expected.json`), JSON.stringify(context(f), null, 2) + "\n");
}
// A fork's header names its source by absolute path: name it where pi
// keeps it by default, so that the files do not depend on OUTDIR (the
// source is found beside the fork by its name).
for (const f of written) {
	const lines = fs.readFileSync(f, "utf8").split("\n");
	const h = JSON.parse(lines[0]);
	if (!h.parentSession) continue;
	h.parentSession = `/home/dev/.pi/agent/sessions/--home-dev-proj--/${path.basename(h.parentSession)}`;
	lines[0] = JSON.stringify(h);
	fs.writeFileSync(f, lines.join("\n"));
}
console.log(`wrote ${written.size} session files to ${out}`);
