// gen.mjs writes the pi fixtures of sessiondb's jsonlimport tests with pi's
// own session code (@mariozechner/pi-coding-agent 0.73.1), driving its
// SessionManager directly: no model is called. Run by hand, not by the tests:
//
//   cd testdata/gen/pi && npm install && node gen.mjs
//
// It rewrites ../../pi/sessions/ (the session files pi wrote) and
// ../../pi/expected/<file>.json (what pi's SessionManager.open(file)
// .buildSessionContext() returns: messages, model, thinkingLevel, plus the
// session name and labels). With an argument, "node gen.mjs check DIR", it
// instead opens every .jsonl under DIR (a sessiondb export) with pi and
// prints the context it resumes, so that it can be compared with the
// expected files. "node gen.mjs branches" adds the context of every other
// branch tip (see below); "node gen.mjs double-header" adds the file pi
// writes when it opens an empty file (see below).
import { SessionManager } from "@mariozechner/pi-coding-agent";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../../pi");
const sessDir = path.join(root, "sessions");
const expDir = path.join(root, "expected");
const cwd = "/home/dev/proj";

let clock = Date.parse("2026-01-10T09:00:00.000Z");
const ts = () => (clock += 1000);

const user = (text) => ({ role: "user", content: text, timestamp: ts() });
const usage = (input, output, cacheRead, total) => ({
	input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead,
	cost: { input: input * 3e-6, output: output * 15e-6, cacheRead: cacheRead * 3e-7, cacheWrite: 0, total },
});
const assistant = (content, u, model = "claude-sonnet-4-5", provider = "anthropic") => ({
	role: "assistant", content, api: "anthropic-messages", provider, model,
	usage: u ?? usage(100, 20, 0, 0.0006), stopReason: content.some((b) => b.type === "toolCall") ? "toolUse" : "stop",
	timestamp: ts(),
});
const text = (t) => [{ type: "text", text: t }];
const toolResult = (id, name, out) => ({ role: "toolResult", toolCallId: id, toolName: name, content: text(out), isError: false, timestamp: ts() });

function context(file) {
	const sm = SessionManager.open(file);
	const c = sm.buildSessionContext();
	const labels = {};
	for (const e of sm.getEntries()) {
		const l = sm.getLabel(e.id);
		if (l) labels[e.id] = l;
	}
	return { messages: c.messages, model: c.model, thinkingLevel: c.thinkingLevel, name: sm.getSessionName() ?? null, labels, leafId: sm.getLeafId() };
}

// "node gen.mjs branches" writes ../../pi/expected/<name>.branches.json
// from the committed session files, without rewriting them: for every
// branch tip (an entry no other entry names as parent) other than the
// leaf, the context pi resumes after /tree moves the leaf there
// (SessionManager.branch(tip).buildSessionContext()). The files are
// opened from copies, as pi rewrites a version 1 file it migrates.
if (process.argv[2] === "branches") {
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pigen-"));
	for (const name of fs.readdirSync(sessDir).filter((f) => f.endsWith(".jsonl")).sort()) {
		const f = path.join(tmp, name);
		fs.copyFileSync(path.join(sessDir, name), f);
		const sm = SessionManager.open(f);
		const leaf = sm.getLeafId();
		const parents = new Set(sm.getEntries().map((e) => e.parentId));
		const out = {};
		for (const e of sm.getEntries()) {
			if (parents.has(e.id) || e.id === leaf) continue;
			sm.branch(e.id);
			const c = sm.buildSessionContext();
			out[e.id] = { messages: c.messages, model: c.model, thinkingLevel: c.thinkingLevel };
		}
		const base = name.replace(/\.jsonl$/, "");
		const dest = path.join(expDir, `${base}.branches.json`);
		if (Object.keys(out).length > 0) fs.writeFileSync(dest, JSON.stringify(out, null, 2) + "\n");
	}
	process.exit(0);
}

if (process.argv[2] === "check") {
	const dir = process.argv[3];
	const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]);
	for (const f of walk(dir).filter((f) => f.endsWith(".jsonl")).sort()) {
		console.log(JSON.stringify({ file: path.relative(dir, f), context: context(f) }));
	}
	process.exit(0);
}

// "node gen.mjs double-header" writes ../../pi/sessions/double-header.jsonl
// and its expected context only: pi's SessionManager.open() of an empty
// file writes a header, and the first flush of the conversation writes
// the header again before the entries. pi loads such a file without
// complaint (the second header is not an entry).
if (process.argv[2] === "double-header") {
	const dest = path.join(sessDir, "double-header.jsonl");
	fs.writeFileSync(dest, "");
	const sm = SessionManager.open(dest);
	sm.appendMessage(user("Opened an empty file."));
	sm.appendMessage(assistant(text("pi wrote its header twice.")));
	sm.appendMessage(user("And then?"));
	sm.appendMessage(assistant(text("It loads the file all the same.")));
	fs.writeFileSync(path.join(expDir, "double-header.json"), JSON.stringify(context(dest), null, 2) + "\n");
	// open() names the process's directory as cwd: use the fixtures' one.
	const lines = fs.readFileSync(dest, "utf8").split("\n").map((l) => {
		if (!l) return l;
		const e = JSON.parse(l);
		if (e.type !== "session") return l;
		e.cwd = cwd;
		return JSON.stringify(e);
	});
	fs.writeFileSync(dest, lines.join("\n"));
	console.log("wrote", dest);
	process.exit(0);
}

// "node gen.mjs growth" writes ../../pi/growth/<name>.jsonl and
// <name>.json only: files pi wrote in two stretches, for the tests that
// import a file while pi is still writing it. The expected file is the
// context at the end (as above, plus "branches" as in "gen.mjs branches")
// and "cut", the number of lines the file held when the first stretch
// ended (what an import between the two saw).
if (process.argv[2] === "growth") {
	const dir = path.join(root, "growth");
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	const lines = (f) => fs.readFileSync(f, "utf8").split("\n").filter((l) => l).length;
	const growth = (name, first, second) => {
		const sm = SessionManager.create(cwd, dir);
		const state = first(sm);
		const file = sm.getSessionFile();
		const cut = lines(file);
		second(sm, state);
		const dest = path.join(dir, `${name}.jsonl`);
		fs.renameSync(file, dest);
		const exp = context(dest);
		const leaf = exp.leafId;
		const o = SessionManager.open(dest);
		const parents = new Set(o.getEntries().map((e) => e.parentId));
		exp.branches = {};
		for (const e of o.getEntries()) {
			if (parents.has(e.id) || e.id === leaf) continue;
			o.branch(e.id);
			const c = o.buildSessionContext();
			exp.branches[e.id] = { messages: c.messages, model: c.model, thinkingLevel: c.thinkingLevel };
		}
		exp.cut = cut;
		fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(exp, null, 2) + "\n");
	};
	// The second stretch compacts at the leaf and then goes back (/tree)
	// to before the compaction: the compaction, no message, is a branch
	// tip among the new lines.
	growth("compaction-abandoned", (sm) => {
		const u = sm.appendMessage(user("Summarize the logs."));
		const a = sm.appendMessage(assistant(text("Logs summarized.")));
		return { u, a };
	}, (sm, { u, a }) => {
		sm.appendCompaction("The logs were summarized.", u, 2000);
		sm.branchWithSummary(a, "Compacted, then went back before it.");
		sm.appendMessage(user("Go on without the compaction."));
		sm.appendMessage(assistant(text("Going on.")));
	});
	console.log("wrote", dir);
	process.exit(0);
}

// "node gen.mjs named" writes ../../pi/named/ only: a session pi keeps in
// a file of the user's naming (pi --session notes.jsonl: open() of a path
// that does not exist starts a session there, its id in no file name),
// and a /fork of it (pi's AgentSessionRuntime.fork: the source opened
// again, createBranchedSession at an entry) whose header names the source
// by that path. Each with <name>.json, the context as above.
if (process.argv[2] === "named") {
	const dir = path.join(root, "named");
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	const src = path.join(dir, "notes.jsonl");
	const sm = SessionManager.open(src, dir, cwd);
	sm.appendMessage(user("Plan the migration."));
	const a = sm.appendMessage(assistant(text("Step 1: dump; step 2: load.")));
	sm.appendMessage(user("Do step 1."));
	sm.appendMessage(assistant(text("Dumped.")));
	const forked = SessionManager.open(src, dir).createBranchedSession(a);
	const fork = SessionManager.open(forked, dir);
	fork.appendMessage(user("Do step 2 first instead."));
	fork.appendMessage(assistant(text("Loaded.")));
	const dest = path.join(dir, "fork-of-notes.jsonl");
	fs.renameSync(forked, dest);
	// The header names the source by absolute path: name it where the
	// user kept it, so the fixture does not depend on this checkout.
	const lines = fs.readFileSync(dest, "utf8").split("\n");
	const h = JSON.parse(lines[0]);
	h.parentSession = "/home/dev/notes/notes.jsonl";
	lines[0] = JSON.stringify(h);
	fs.writeFileSync(dest, lines.join("\n"));
	for (const f of [src, dest]) fs.writeFileSync(f.replace(/\.jsonl$/, ".json"), JSON.stringify(context(f), null, 2) + "\n");
	console.log("wrote", dir);
	process.exit(0);
}

// "node gen.mjs fork-labels" writes ../../pi/forks/ only: a session with
// a label on its path, and the /fork pi makes of it. createBranchedSession
// leaves the path's label entries out and writes the labels anew at the
// end, so the entry after a label names a parent the fork does not hold:
// pi resumes the fork from that entry on. Each file with <name>.json, the
// context as above plus "branches" (gen.mjs branches).
if (process.argv[2] === "fork-labels") {
	const dir = path.join(root, "forks");
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	const sm = SessionManager.create(cwd, dir);
	const u = sm.appendMessage(user("Find the leak."));
	sm.appendMessage(assistant(text("It is in the cache.")));
	sm.appendLabelChange(u, "leak");
	sm.appendMessage(user("Fix it."));
	const a = sm.appendMessage(assistant(text("Fixed: entries expire.")));
	const src = sm.getSessionFile();
	const forked = SessionManager.open(src, dir).createBranchedSession(a);
	const fork = SessionManager.open(forked, dir);
	fork.appendMessage(user("Add a test."));
	fork.appendMessage(assistant(text("Test added.")));
	const files = { "labelled": src, "fork-of-labelled": forked };
	for (const [name, f] of Object.entries(files)) fs.renameSync(f, path.join(dir, `${name}.jsonl`));
	const dest = path.join(dir, "fork-of-labelled.jsonl");
	const lines = fs.readFileSync(dest, "utf8").split("\n");
	const h = JSON.parse(lines[0]);
	h.parentSession = `/home/dev/.pi/agent/sessions/--home-dev-proj--/${path.basename(files["labelled"])}`;
	lines[0] = JSON.stringify(h);
	fs.writeFileSync(dest, lines.join("\n"));
	for (const name of Object.keys(files)) {
		const f = path.join(dir, `${name}.jsonl`);
		const exp = context(f);
		const o = SessionManager.open(f);
		const parents = new Set(o.getEntries().map((e) => e.parentId));
		exp.branches = {};
		for (const e of o.getEntries()) {
			if (parents.has(e.id) || e.id === exp.leafId) continue;
			o.branch(e.id);
			const c = o.buildSessionContext();
			exp.branches[e.id] = { messages: c.messages, model: c.model, thinkingLevel: c.thinkingLevel };
		}
		fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(exp, null, 2) + "\n");
	}
	console.log("wrote", dir);
	process.exit(0);
}

// "node gen.mjs tree" writes ../../pi/tree/ only: two sessions of the
// shapes real pi users leave behind (issue 38), each with <name>.json (the
// context as above plus "branches" as in "gen.mjs branches"):
//
//   - navigated: a session that moved about its tree the way pi's /tree
//     does (AgentSession.navigateTree, mirrored by navigate() below): on
//     leaving a branch a branch_summary entry is written at the target
//     (the parent of a user message, the entry itself otherwise), a label
//     given in /tree goes on that summary entry (a label entry after it),
//     and the conversation goes on from there; tool calls and results
//     throughout, one branch left without summary, and twice back to
//     the first prompt (the summary, or without one the next prompt, is
//     then another root).
//   - renamed: a linear session named mid-way (session_info, /name) whose
//     model changed twice (model_change, then answers of the new model),
//     with a thinking level change between.
if (process.argv[2] === "tree") {
	const dir = path.join(root, "tree");
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir, { recursive: true });
	let calls = 0;
	const turn = (sm, prompt, answer, model, provider) => {
		const u = sm.appendMessage(user(prompt));
		const id = `call_${++calls}`;
		sm.appendMessage(assistant([{ type: "toolCall", id, name: "read", arguments: { path: `src/f${calls}.go` } }], usage(900 + 100 * calls, 30, 500, 0.003), model, provider));
		sm.appendMessage(toolResult(id, "read", `package f${calls}`));
		const a = sm.appendMessage(assistant(text(answer), usage(1000 + 100 * calls, 50, 800, 0.004), model, provider));
		return { u, a };
	};
	// navigate is AgentSession.navigateTree without the model: summary
	// and label as /tree gives them.
	const navigate = (sm, targetId, summary, label) => {
		const target = sm.getEntry(targetId);
		const toParent = (target.type === "message" && target.message.role === "user") || target.type === "custom_message";
		const newLeaf = toParent ? target.parentId : targetId;
		if (summary) {
			const id = sm.branchWithSummary(newLeaf, summary, { readFiles: ["src/f1.go"], modifiedFiles: [] }, false);
			if (label) sm.appendLabelChange(id, label);
		} else if (newLeaf === null) {
			sm.resetLeaf();
		} else {
			sm.branch(newLeaf);
		}
		if (label && !summary) sm.appendLabelChange(targetId, label);
	};
	const write = (name, build) => {
		const sm = SessionManager.create(cwd, dir);
		build(sm);
		const dest = path.join(dir, `${name}.jsonl`);
		fs.renameSync(sm.getSessionFile(), dest);
		const exp = context(dest);
		const o = SessionManager.open(dest);
		const parents = new Set(o.getEntries().map((e) => e.parentId));
		exp.branches = {};
		for (const e of o.getEntries()) {
			if (parents.has(e.id) || e.id === exp.leafId) continue;
			o.branch(e.id);
			const c = o.buildSessionContext();
			exp.branches[e.id] = { messages: c.messages, model: c.model, thinkingLevel: c.thinkingLevel };
		}
		fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(exp, null, 2) + "\n");
	};
	write("navigated", (sm) => {
		const t1 = turn(sm, "Find why the upload stalls.", "The retry loop never sleeps.");
		const t2 = turn(sm, "Try a fixed sleep.", "Added a one-second sleep.");
		turn(sm, "Now make it configurable.", "The sleep is a flag now.");
		// Leave approach A for B from the first answer, labelled.
		navigate(sm, t2.u, "Tried a fixed, then configurable sleep (approach A).", "approach-a");
		const b1 = turn(sm, "Use exponential backoff instead.", "Backoff with jitter in place.");
		turn(sm, "Cap it at a minute.", "Capped.");
		// Back into A at its second answer, without a summary.
		navigate(sm, t2.a);
		turn(sm, "Keep the fixed sleep but log each retry.", "Each retry is logged.");
		// And to B's first answer, summarized, no label.
		navigate(sm, b1.a, "Logged retries on approach A.");
		turn(sm, "Add a test for the backoff.", "Test added; it passes.");
		// Label an earlier entry from /tree without moving (pi's label key).
		sm.appendLabelChange(t1.a, "root-cause");
		turn(sm, "Ship it.", "Shipped.");
		// Back to the first prompt (a root: the summary is a root too),
		// to ask it again.
		navigate(sm, t1.u, "Shipped backoff with a test.", "shipped");
		const r = turn(sm, "Find why the upload stalls, on the server side.", "The server closes idle connections.");
		// Back to the first prompt without summary: the next prompt is
		// another root.
		navigate(sm, t1.u);
		turn(sm, "Find why the download stalls.", "Same retry loop.");
		// And back to the server branch's answer, summarized.
		navigate(sm, r.a, "Download stalls share the retry loop.");
		turn(sm, "Raise the idle timeout.", "Raised to five minutes.");
	});
	write("renamed", (sm) => {
		turn(sm, "List the services.", "api, worker, web.");
		turn(sm, "Which one is slow?", "The worker.");
		sm.appendSessionInfo("Slow worker");
		sm.appendModelChange("openai", "gpt-5");
		turn(sm, "Profile the worker.", "JSON decoding takes 70%.", "gpt-5", "openai");
		sm.appendThinkingLevelChange("high");
		turn(sm, "Suggest a faster decoder.", "Use a streaming decoder.", "gpt-5", "openai");
		sm.appendModelChange("anthropic", "claude-opus-4-5");
		turn(sm, "Write the patch.", "Patch written.", "claude-opus-4-5", "anthropic");
		turn(sm, "Run the benchmark.", "Twice as fast.", "claude-opus-4-5", "anthropic");
	});
	console.log("wrote", dir);
	process.exit(0);
}

fs.rmSync(sessDir, { recursive: true, force: true });
fs.rmSync(expDir, { recursive: true, force: true });
fs.mkdirSync(sessDir, { recursive: true });
fs.mkdirSync(expDir, { recursive: true });

const files = {};
function session(name, build) {
	const sm = SessionManager.create(cwd, sessDir);
	build(sm);
	const file = sm.getSessionFile();
	const dest = path.join(sessDir, `${name}.jsonl`);
	fs.renameSync(file, dest);
	files[name] = dest;
	return { sm, dest };
}

// 1. linear: every entry kind on one path.
session("linear", (sm) => {
	const u1 = sm.appendMessage(user("Add a retry to the uploader."));
	sm.appendMessage(assistant([{ type: "thinking", thinking: "Run tests first." }, { type: "toolCall", id: "call_1", name: "bash", arguments: { command: "go test ./..." } }], usage(1200, 40, 1000, 0.0045)));
	sm.appendMessage(toolResult("call_1", "bash", "ok"));
	sm.appendMessage({ role: "bashExecution", command: "git status", output: "clean", exitCode: 0, cancelled: false, truncated: false, timestamp: ts() });
	sm.appendModelChange("openai", "gpt-4o");
	sm.appendThinkingLevelChange("high");
	sm.appendCustomEntry("my-extension", { count: 42 });
	sm.appendCustomMessageEntry("my-extension", "Injected context.", true);
	sm.appendLabelChange(u1, "checkpoint-1");
	sm.appendSessionInfo("Retry for the uploader");
	sm.appendMessage(assistant(text("Added retry with backoff; tests pass."), usage(2000, 60, 1500, 0.002), "gpt-4o", "openai"));
});

// 2. branched: /tree back to the first answer, with a branch summary.
session("branched", (sm) => {
	sm.appendMessage(user("Make the uploader robust."));
	const a1 = sm.appendMessage(assistant(text("Two options: in-process retry or a queue.")));
	sm.appendMessage(user("Try the in-process retry."));
	sm.appendMessage(assistant(text("Done: retry loop with backoff.")));
	const l = sm.appendMessage(user("Hmm, that blocks the caller."));
	sm.appendLabelChange(l, "dead-end");
	sm.appendLabelChange(l, undefined);
	sm.branchWithSummary(a1, "Explored approach A (in-process retry); it blocks the caller.");
	sm.appendMessage(user("Use a queue instead."));
	sm.appendMessage(assistant(text("Queue-based uploader in place.")));
});

// 3. compaction: summary, then the kept tail and newer messages.
session("compaction", (sm) => {
	sm.appendMessage(user("Step one."));
	sm.appendMessage(assistant(text("One done.")));
	const keep = sm.appendMessage(user("Step two."));
	sm.appendMessage(assistant(text("Two done."), usage(5000, 100, 0, 0.0165)));
	sm.appendCompaction("User asked for steps one and two; both done.", keep, 50000, { readFiles: ["up.go"], modifiedFiles: ["up.go"] });
	sm.appendMessage(user("Step three."));
	sm.appendMessage(assistant(text("Three done.")));
});

// 4. compaction on a branch, with the abandoned branch after it in the file.
session("compaction-branch", (sm) => {
	sm.appendMessage(user("Start."));
	const a = sm.appendMessage(assistant(text("Started.")));
	const keep = sm.appendMessage(user("Continue."));
	sm.appendMessage(assistant(text("Continued.")));
	const c = sm.appendCompaction("Started and continued.", keep, 9000);
	sm.appendMessage(user("Path X."));
	sm.appendMessage(assistant(text("X done.")));
	sm.branch(c);
	sm.appendMessage(user("Path Y instead."));
	sm.appendMessage(assistant(text("Y done.")));
	sm.branch(a);
	sm.appendMessage(user("Old path Z."));
	sm.appendMessage(assistant(text("Z done.")));
	sm.branch(c);
	sm.appendMessage(user("Back to Y: finish."));
	sm.appendMessage(assistant(text("Finished.")));
});

// 5. fork: /fork of the branched session's current leaf into a new file.
{
	const src = SessionManager.open(files["branched"]);
	const leaf = src.getLeafId();
	const forked = src.createBranchedSession(leaf);
	const dest = path.join(sessDir, "fork-of-branched.jsonl");
	fs.renameSync(forked, dest);
	// The header points at the source by path; point it at the renamed file.
	const lines = fs.readFileSync(dest, "utf8").split("\n");
	const h = JSON.parse(lines[0]);
	h.parentSession = files["branched"];
	lines[0] = JSON.stringify(h);
	fs.writeFileSync(dest, lines.join("\n"));
	const sm = SessionManager.open(dest);
	sm.appendMessage(user("In the fork: add metrics."));
	sm.appendMessage(assistant(text("Metrics added.")));
	files["fork-of-branched"] = dest;
}

// 6. damaged: a copy of linear with the defects pi skips silently.
{
	const lines = fs.readFileSync(files["linear"], "utf8").split("\n").filter((l) => l);
	const out = [lines[0], lines[1], lines[2].slice(0, 40), "", "not json at all", "\u0000\u0000\u0000\u0000", ...lines.slice(3), lines[4].slice(0, 25)];
	const dest = path.join(sessDir, "damaged.jsonl");
	fs.writeFileSync(dest, out.join("\n"));
	files["damaged"] = dest;
}

// 7. version 1: a linear file without ids (written by hand in the v1
// shape: pi only writes v3), with a compaction by firstKeptEntryIndex and a
// v2 "hookMessage". pi migrates it on open and rewrites the file, so its
// context is taken from a copy.
{
	const t = (s) => `2026-01-09T08:00:0${s}.000Z`;
	const v1 = [
		{ type: "session", id: "0a0a0a0a-0000-4000-8000-000000000001", timestamp: t(0), cwd },
		{ type: "message", timestamp: t(1), message: { role: "user", content: "Old step one.", timestamp: 1767945601000 } },
		{ type: "message", timestamp: t(2), message: assistant(text("Old one done.")) },
		{ type: "message", timestamp: t(3), message: { role: "user", content: "Old step two.", timestamp: 1767945603000 } },
		{ type: "message", timestamp: t(4), message: assistant(text("Old two done.")) },
		{ type: "compaction", timestamp: t(5), summary: "Steps one and two were done.", firstKeptEntryIndex: 3, tokensBefore: 1234 },
		{ type: "message", timestamp: t(6), message: { role: "hookMessage", customType: "hook", content: "Hook says hi.", display: true, timestamp: 1767945606000 } },
		{ type: "message", timestamp: t(7), message: { role: "user", content: "Step three.", timestamp: 1767945607000 } },
		{ type: "message", timestamp: t(8), message: assistant(text("Three done.")) },
	];
	const dest = path.join(sessDir, "v1.jsonl");
	fs.writeFileSync(dest, v1.map((e) => JSON.stringify(e)).join("\n") + "\n");
	files["v1"] = dest;
}

for (const [name, file] of Object.entries(files)) {
	let f = file;
	if (name === "v1") {
		f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "pigen-")), "v1.jsonl");
		fs.copyFileSync(file, f);
	}
	const c = context(f);
	fs.writeFileSync(path.join(expDir, `${name}.json`), JSON.stringify(c, null, 2) + "\n");
}
// The fork's header names the source by absolute path: make it relative to
// the fixtures so the tests can find it wherever the repository is.
for (const name of ["fork-of-branched"]) {
	const f = files[name];
	const lines = fs.readFileSync(f, "utf8").split("\n");
	const h = JSON.parse(lines[0]);
	// (the name pi gave the source before this script renamed it).
	const srcHeader = JSON.parse(fs.readFileSync(h.parentSession, "utf8").split("\n")[0]);
	h.parentSession = `/home/dev/.pi/agent/sessions/--home-dev-proj--/${srcHeader.timestamp.replace(/[:.]/g, "-")}_${srcHeader.id}.jsonl`;
	lines[0] = JSON.stringify(h);
	fs.writeFileSync(f, lines.join("\n"));
}
console.log("wrote", Object.keys(files).join(", "));
