// server.mjs is a fake OpenAI Responses API for the Codex CLI: it answers
// POST /v1/responses with a streamed (SSE) response chosen by a script, and
// logs every request it gets. gen.mjs starts it; it is never run by tests.
//
//   node server.mjs <log-file>     prints "listening <port>" once ready
//
// The script: the latest user message of a request names a scenario with a
// marker "[[name]]" (SCENARIOS below); the step of that scenario is the
// number of function_call_output items after that message (each step that
// calls tools advances it by its number of calls). A request without a
// marker (Codex's own compaction prompt, for instance) is answered with a
// plain text message. Token usage is scripted too, so that the rollouts do
// not depend on the size of the request (which holds temp paths).
import http from 'node:http';
import fs from 'node:fs';

const logFile = process.argv[2];
if (!logFile) {
	console.error('usage: node server.mjs <log-file>');
	process.exit(2);
}

// usage builds a Responses API usage object.
function usage(input, cached, output, reasoning) {
	return {
		input_tokens: input,
		input_tokens_details: { cached_tokens: cached },
		output_tokens: output,
		output_tokens_details: { reasoning_tokens: reasoning },
		total_tokens: input + output,
	};
}

// A step is what one response holds: an optional reasoning summary, text,
// tool calls (shell commands), and its usage; or an error.
const SCENARIOS = {
	hello: [{ reasoning: 'The user greets me.', text: 'Hello! How can I help?', usage: usage(1200, 0, 40, 16) }],
	second: [{ text: 'Second answer: 42.', usage: usage(1500, 1024, 30, 0) }],
	parallel: [
		{ reasoning: 'Run both commands at once.', calls: ['echo a', 'echo b'], usage: usage(2000, 1024, 120, 64) },
		{ text: 'Both commands ran: a and b.', usage: usage(2300, 1920, 25, 0) },
	],
	single: [
		{ calls: ['echo c'], usage: usage(2600, 2048, 50, 10) },
		{ reasoning: 'Summarise.', text: 'The command printed c.', usage: usage(2700, 2560, 20, 8) },
	],
	other: [{ text: 'Answered by another model.', usage: usage(3000, 2560, 33, 12) }],
	big: [{ text: 'A long answer that fills the context.', usage: usage(180000, 100000, 500, 100) }],
	after: [{ text: 'Back after the compaction.', usage: usage(4000, 0, 44, 0) }],
	slow: [
		{ reasoning: 'This takes a while.', calls: ['sleep 30'], usage: usage(2100, 1024, 40, 8) },
		{ text: 'Slept.', usage: usage(2200, 2048, 5, 0) },
	],
	bigcall: [
		{ calls: ['echo d'], usage: usage(190000, 150000, 80, 20) },
		{ text: 'The command printed d.', usage: usage(6000, 2048, 22, 0) },
	],
	error: [{ error: { code: 'server_error', message: 'The fake server failed this turn on purpose.' } }],
	bad: [{ status: 400, body: { error: { type: 'invalid_request_error', code: 'bad_request', message: 'The fake server refused this request on purpose.' } } }],
};
const DEFAULT = { text: 'Summary of the conversation so far: greetings, two echo commands (a, b).', usage: usage(5000, 4096, 60, 0) };

let counter = 0;
function nextID(prefix) {
	counter++;
	return `${prefix}_${String(counter).padStart(4, '0')}`;
}

function textOf(item) {
	if (!Array.isArray(item.content)) return '';
	return item.content.map((c) => c.text ?? '').join('');
}

// COMPACTION answers Codex's remote compaction (the OpenAI provider): a
// request whose input ends with a compaction_trigger item gets one
// compaction item (opaque, as the real API's is).
const COMPACTION = { compaction: 'ZmFrZS1jb21wYWN0aW9u', usage: usage(7000, 6144, 90, 30) };

// pick finds the step that answers a request body.
function pick(body) {
	const input = Array.isArray(body.input) ? body.input : [];
	if (input.length > 0 && input[input.length - 1].type === 'compaction_trigger') return { name: 'compaction', step: COMPACTION };
	let last = -1;
	for (let i = input.length - 1; i >= 0; i--) {
		const it = input[i];
		if (it.type === 'message' && it.role === 'user' && !textOf(it).startsWith('<')) {
			last = i;
			break;
		}
	}
	const prompt = last >= 0 ? textOf(input[last]) : '';
	const m = /\[\[(\w+)\]\]/.exec(prompt);
	if (!m || !SCENARIOS[m[1]]) return { name: 'default', step: DEFAULT };
	const outputs = input.slice(last + 1).filter((it) => it.type === 'function_call_output').length;
	let seen = 0;
	for (const step of SCENARIOS[m[1]]) {
		if (seen === outputs) return { name: m[1], step };
		seen += (step.calls ?? []).length;
	}
	return { name: m[1], step: DEFAULT };
}

// callItem writes a shell command as a call of whichever shell tool the
// request offers.
function callItem(tools, command) {
	const names = new Set((tools ?? []).map((t) => t.name));
	const callID = nextID('call');
	let name, args;
	if (names.has('shell_command')) {
		name = 'shell_command';
		args = { command };
	} else if (names.has('exec_command')) {
		name = 'exec_command';
		args = { cmd: command };
	} else {
		name = 'shell';
		args = { command: ['bash', '-lc', command] };
	}
	return { type: 'function_call', id: nextID('fc'), call_id: callID, name, arguments: JSON.stringify(args) };
}

function sse(res, type, data) {
	res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

function answer(req, res, body, reqNo) {
	const { name, step } = pick(body);
	fs.appendFileSync(logFile, JSON.stringify({ n: reqNo, method: req.method, url: req.url, scenario: name, body }) + '\n');
	if (step.status) {
		res.writeHead(step.status, { 'content-type': 'application/json' });
		res.end(JSON.stringify(step.body));
		return;
	}
	const respID = nextID('resp');
	const model = body.model ?? 'gpt-5';
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
	const base = { id: respID, object: 'response', created_at: 1767225600, model, output: [] };
	sse(res, 'response.created', { response: { ...base, status: 'in_progress' } });
	if (step.error) {
		sse(res, 'response.failed', { response: { ...base, status: 'failed', error: step.error } });
		res.end();
		return;
	}
	const output = [];
	let idx = 0;
	if (step.reasoning) {
		const item = { type: 'reasoning', id: nextID('rs'), summary: [] };
		sse(res, 'response.output_item.added', { output_index: idx, item });
		sse(res, 'response.reasoning_summary_part.added', { item_id: item.id, output_index: idx, summary_index: 0, part: { type: 'summary_text', text: '' } });
		sse(res, 'response.reasoning_summary_text.delta', { item_id: item.id, output_index: idx, summary_index: 0, delta: step.reasoning });
		const done = { ...item, summary: [{ type: 'summary_text', text: step.reasoning }], encrypted_content: 'ZmFrZS1yZWFzb25pbmc=' };
		sse(res, 'response.output_item.done', { output_index: idx, item: done });
		output.push(done);
		idx++;
	}
	if (step.text) {
		const item = { type: 'message', id: nextID('msg'), role: 'assistant', status: 'in_progress', content: [] };
		sse(res, 'response.output_item.added', { output_index: idx, item });
		sse(res, 'response.content_part.added', { item_id: item.id, output_index: idx, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
		const half = Math.ceil(step.text.length / 2);
		for (const delta of [step.text.slice(0, half), step.text.slice(half)]) {
			sse(res, 'response.output_text.delta', { item_id: item.id, output_index: idx, content_index: 0, delta });
		}
		sse(res, 'response.output_text.done', { item_id: item.id, output_index: idx, content_index: 0, text: step.text });
		const done = { ...item, status: 'completed', content: [{ type: 'output_text', text: step.text, annotations: [] }] };
		sse(res, 'response.output_item.done', { output_index: idx, item: done });
		output.push(done);
		idx++;
	}
	if (step.compaction) {
		const item = { type: 'compaction', id: nextID('cmp'), encrypted_content: step.compaction };
		sse(res, 'response.output_item.added', { output_index: idx, item });
		sse(res, 'response.output_item.done', { output_index: idx, item });
		output.push(item);
		idx++;
	}
	for (const command of step.calls ?? []) {
		const item = callItem(body.tools, command);
		sse(res, 'response.output_item.added', { output_index: idx, item: { ...item, arguments: '' } });
		sse(res, 'response.function_call_arguments.done', { item_id: item.id, output_index: idx, arguments: item.arguments });
		sse(res, 'response.output_item.done', { output_index: idx, item });
		output.push(item);
		idx++;
	}
	sse(res, 'response.completed', { response: { ...base, status: 'completed', output, usage: step.usage } });
	res.end();
}

let requests = 0;
const server = http.createServer((req, res) => {
	const chunks = [];
	req.on('data', (c) => chunks.push(c));
	req.on('end', () => {
		const n = ++requests;
		const raw = Buffer.concat(chunks).toString('utf8');
		let body = null;
		try {
			body = raw ? JSON.parse(raw) : null;
		} catch {
			body = { unparsed: raw.slice(0, 2000) };
		}
		if (req.method === 'POST' && req.url.replace(/\?.*$/, '').endsWith('/responses')) {
			answer(req, res, body ?? {}, n);
			return;
		}
		fs.appendFileSync(logFile, JSON.stringify({ n, method: req.method, url: req.url, scenario: 'unhandled', body }) + '\n');
		if (req.url.startsWith('/v1/models')) {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
			return;
		}
		res.writeHead(404, { 'content-type': 'application/json' });
		res.end(JSON.stringify({ error: { message: `fake server: no route for ${req.method} ${req.url}` } }));
	});
});
server.listen(0, '127.0.0.1', () => {
	console.log(`listening ${server.address().port}`);
});
