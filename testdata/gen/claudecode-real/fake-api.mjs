// fake-api.mjs is a small stand-in for the Anthropic Messages API that the
// real Claude Code CLI talks to (ANTHROPIC_BASE_URL) while gen.sh makes
// transcript fixtures. It is ours, written for sessiondb's tests; it does
// not try to be a model.
//
//	node fake-api.mjs <port> <log.jsonl> <project dir>
//
// What it answers is scripted by tags in the latest user prompt of the
// request (see reply()), so the same prompts give the same transcript:
//
//	#parallel  thinking + text + two parallel Bash tool_use (echo a, echo b)
//	#read      text + a Read tool_use of notes.txt
//	#write     text + a Write tool_use of out.txt (a new file)
//	#big       a Bash tool_use with a large output (seq 1 12000)
//	#agent     a Task/Agent tool_use whose prompt carries #sub
//	#bgagent   an Agent tool_use run in the background (the default)
//	#sub       (the sub-agent) a Bash tool_use (echo sub), then text
//	#error     HTTP 400 (Claude Code retries once, then writes an API error turn)
//	#overload  HTTP 529 once, then the answer (Claude Code retries)
//	#model=X   answer as model X (message_start's model) whatever was asked
//	anything else, and every turn after tool results: a short text.
//
// Requests that are not the main loop (no tools: titles, summaries, quota
// checks) get a short text; /v1/messages/count_tokens a plausible count;
// HEAD/GET probes 200 {}. Every request (method, path, headers of note,
// body) is appended to the log as one JSON line: the messages array
// Claude Code sends is how it reads its own transcript.
import http from "node:http";
import fs from "node:fs";

const port = Number(process.argv[2] || 8787);
const logPath = process.argv[3] || "requests.jsonl";
const project = process.argv[4] || process.cwd(); // the CLI's working directory

let msgSeq = 0; // message ids of main-loop answers
let sideSeq = 0; // message ids of side requests
let toolSeq = 0;
let reqSeq = 0;
const failedOnce = new Set(); // prompts already failed once (#error, #overload)

function log(entry) {
	fs.appendFileSync(logPath, JSON.stringify(entry) + "\n");
}

// lastUser is the scripted prompt of a request: the text of the latest
// user message that is not only tool results or system reminders (the
// prompt; "" when the latest such message carries no tag, e.g. a
// background task's notification), and whether the conversation ends with
// tool results (messages of role system, which the CLI appends, skipped).
function lastUser(messages) {
	const blocks = (m) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content || []);
	const turns = messages.filter((m) => m.role !== "system");
	const last = turns[turns.length - 1];
	const afterTools = !!last && last.role === "user" && blocks(last).some((b) => b.type === "tool_result");
	for (let i = turns.length - 1; i >= 0; i--) {
		const m = turns[i];
		if (m.role !== "user") continue;
		const bs = blocks(m);
		const texts = bs.filter((b) => b.type === "text" && !b.text.trimStart().startsWith("<system-reminder>")).map((b) => b.text);
		if (texts.length === 0 && bs.some((b) => b.type === "tool_result")) continue;
		if (texts.length === 0) return { text: "", afterTools }; // a notification, a reminder: no prompt
		// The last block only: resuming after an API error, Claude Code
		// sends the failed prompt and the new one as one user message.
		const text = texts[texts.length - 1];
		return { text: text.includes("#") ? text : "", afterTools };
	}
	return { text: "", afterTools };
}

function toolId() {
	toolSeq++;
	return "toolu_fake" + String(toolSeq).padStart(4, "0");
}

// reply is the scripted answer: a model, content blocks and a stop reason,
// or an HTTP error to send instead.
function reply(body) {
	const tools = (body.tools || []).map((t) => t.name);
	const { text, afterTools } = lastUser(body.messages || []);
	const side = tools.length === 0;
	const m = text.match(/#model=([\w.\-]+)/);
	const model = m ? m[1] : body.model;
	if (side) {
		return { side, model: body.model, content: [{ type: "text", text: "Fake title" }], stop: "end_turn" };
	}
	const key = text + "\x00" + JSON.stringify(body.messages.length);
	if (text.includes("#error") && !afterTools) {
		return { status: 400, error: { type: "invalid_request_error", message: "fake: prompt rejected" } };
	}
	if (text.includes("#overload") && !afterTools && !failedOnce.has(key)) {
		failedOnce.add(key);
		return { status: 529, error: { type: "overloaded_error", message: "Overloaded" } };
	}
	if (afterTools) {
		if (text.includes("#sub")) return { model, content: [{ type: "text", text: "Sub-agent done: sub." }], stop: "end_turn" };
		return { model, content: [{ type: "text", text: "Both tools ran; done." }], stop: "end_turn" };
	}
	if (text.includes("#sub")) {
		return { model, content: [{ type: "tool_use", id: toolId(), name: "Bash", input: { command: "echo sub", description: "Print sub" } }], stop: "tool_use" };
	}
	if (text.includes("#parallel")) {
		return {
			model,
			content: [
				{ type: "thinking", thinking: "I will run two commands at once.", signature: "fakesig0001" },
				{ type: "text", text: "Running two commands in parallel." },
				{ type: "tool_use", id: toolId(), name: "Bash", input: { command: "echo a", description: "Print a" } },
				{ type: "tool_use", id: toolId(), name: "Bash", input: { command: "echo b", description: "Print b" } },
			],
			stop: "tool_use",
		};
	}
	if (text.includes("#read")) {
		return {
			model,
			content: [
				{ type: "text", text: "Reading the notes." },
				{ type: "tool_use", id: toolId(), name: "Read", input: { file_path: project + "/notes.txt" } },
			],
			stop: "tool_use",
		};
	}
	if (text.includes("#write")) {
		return {
			model,
			content: [
				{ type: "text", text: "Writing a file." },
				{ type: "tool_use", id: toolId(), name: "Write", input: { file_path: project + "/out.txt", content: "written by the fake model\n" } },
			],
			stop: "tool_use",
		};
	}
	if (text.includes("#big")) {
		return {
			model,
			content: [{ type: "tool_use", id: toolId(), name: "Bash", input: { command: "seq 1 12000", description: "Print many lines" } }],
			stop: "tool_use",
		};
	}
	if (text.includes("#bgagent")) {
		// The Agent tool's default: the sub-agent runs in the background and
		// the CLI is told when it ends.
		return {
			model,
			content: [{ type: "tool_use", id: toolId(), name: "Agent", input: { description: "Run bg", prompt: "Run echo bg #sub", subagent_type: "general-purpose" } }],
			stop: "tool_use",
		};
	}
	if (text.includes("#agent")) {
		const name = tools.includes("Agent") ? "Agent" : "Task";
		return {
			model,
			content: [
				{ type: "text", text: "Delegating to a sub-agent." },
				{ type: "tool_use", id: toolId(), name, input: { description: "Run sub", prompt: "Run echo sub #sub", subagent_type: "general-purpose", model: "haiku", run_in_background: false } },
			],
			stop: "tool_use",
		};
	}
	return { model, content: [{ type: "text", text: "Hello from the fake API." }], stop: "end_turn" };
}

// usageFor gives fixed, distinct token counts per answer so that sums
// in the fixtures are easy to check by hand.
function usageFor(n, outTokens) {
	return {
		input_tokens: 10 + n,
		cache_creation_input_tokens: 100 * n,
		cache_read_input_tokens: 1000 + n,
		cache_creation: { ephemeral_5m_input_tokens: 100 * n, ephemeral_1h_input_tokens: 0 },
		output_tokens: outTokens,
		service_tier: "standard",
	};
}

function sse(res, event, data) {
	res.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
// blockDelay is the pause before each content block and before the final
// usage (FAKE_BLOCK_DELAY_MS, default 150).
const blockDelay = Number(process.env.FAKE_BLOCK_DELAY_MS || 150);

// stream writes r as the API streams it, pausing between content blocks
// as a real model does (the CLI writes a line per block as it ends).
async function stream(res, id, r, n, requestId) {
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": requestId });
	const outTokens = 5 + 7 * r.content.length;
	const start = usageFor(n, 1);
	sse(res, "message_start", {
		message: { id, type: "message", role: "assistant", model: r.model, content: [], stop_reason: null, stop_sequence: null, usage: start },
	});
	sse(res, "ping", {});
	for (const [i, b] of r.content.entries()) {
		await sleep(blockDelay);
		if (b.type === "thinking") {
			sse(res, "content_block_start", { index: i, content_block: { type: "thinking", thinking: "", signature: "" } });
			sse(res, "content_block_delta", { index: i, delta: { type: "thinking_delta", thinking: b.thinking } });
			sse(res, "content_block_delta", { index: i, delta: { type: "signature_delta", signature: b.signature } });
		} else if (b.type === "text") {
			sse(res, "content_block_start", { index: i, content_block: { type: "text", text: "" } });
			const half = Math.floor(b.text.length / 2);
			sse(res, "content_block_delta", { index: i, delta: { type: "text_delta", text: b.text.slice(0, half) } });
			sse(res, "content_block_delta", { index: i, delta: { type: "text_delta", text: b.text.slice(half) } });
		} else if (b.type === "tool_use") {
			sse(res, "content_block_start", { index: i, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
			sse(res, "content_block_delta", { index: i, delta: { type: "input_json_delta", partial_json: JSON.stringify(b.input) } });
		}
		sse(res, "content_block_stop", { index: i });
	}
	await sleep(blockDelay);
	const final = usageFor(n, outTokens);
	delete final.cache_creation;
	delete final.service_tier;
	sse(res, "message_delta", { delta: { stop_reason: r.stop, stop_sequence: null }, usage: final });
	sse(res, "message_stop", {});
	res.end();
}

const server = http.createServer((req, res) => {
	let raw = "";
	req.on("data", (c) => (raw += c));
	req.on("end", () => {
		reqSeq++;
		const requestId = "req_fake" + String(reqSeq).padStart(4, "0");
		let body = null;
		try {
			body = raw ? JSON.parse(raw) : null;
		} catch {
			body = raw;
		}
		const path = req.url.split("?")[0];
		log({ seq: reqSeq, method: req.method, url: req.url, beta: req.headers["anthropic-beta"] || null, body });
		if (req.method === "POST" && path === "/v1/messages/count_tokens") {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ input_tokens: 42 }));
			return;
		}
		if (req.method !== "POST" || path !== "/v1/messages" || !body || typeof body !== "object") {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(req.method === "HEAD" ? undefined : "{}");
			return;
		}
		const r = reply(body);
		if (r.status) {
			res.writeHead(r.status, { "content-type": "application/json", "request-id": requestId, "x-should-retry": r.status === 529 ? "true" : "false" });
			res.end(JSON.stringify({ type: "error", error: r.error, request_id: requestId }));
			return;
		}
		let id, n;
		if (r.side) {
			sideSeq++;
			n = 0;
			id = "msg_fakeside" + String(sideSeq).padStart(4, "0");
		} else {
			msgSeq++;
			n = msgSeq;
			id = "msg_fake" + String(msgSeq).padStart(4, "0");
		}
		if (body.stream) {
			stream(res, id, r, n, requestId);
			return;
		}
		res.writeHead(200, { "content-type": "application/json", "request-id": requestId });
		const usage = usageFor(n, 5 + 7 * r.content.length);
		res.end(JSON.stringify({ id, type: "message", role: "assistant", model: r.model, content: r.content, stop_reason: r.stop, stop_sequence: null, usage }));
	});
});

server.listen(port, "127.0.0.1", () => {
	console.log(`fake-api listening on 127.0.0.1:${port}, log ${logPath}`);
});
