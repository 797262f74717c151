// gen.mjs makes the real Codex CLI (the release pinned in package.json)
// write rollouts against the fake Responses API of server.mjs, and copies
// what it wrote to testdata/codex-real. Run by hand (see README.md):
//
//   cd testdata/gen/codex-real && npm ci && node gen.mjs
//
// Nothing of the machine is read: HOME and CODEX_HOME are fresh folders under
// BASE, the environment is emptied but for PATH, and the model provider is
// the fake server on 127.0.0.1. The scenarios are listed in SCENARIOS.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const out = path.join(root, 'testdata/codex-real');
// BASE is fixed (not mktemp) so that the cwd written in the rollouts is the
// same on every run.
const BASE = '/tmp/sessiondb-codex-real';
const codexBin = path.join(here, 'node_modules/.bin/codex');
const MODEL = 'gpt-5.1-codex';
const OTHER = 'gpt-5.4-mini';

if (!fs.existsSync(codexBin)) {
	console.error('run npm ci in testdata/gen/codex-real first');
	process.exit(2);
}

fs.rmSync(BASE, { recursive: true, force: true });
const home = path.join(BASE, 'home');
const codexHome = path.join(BASE, 'codex-home');
const project = path.join(BASE, 'project');
for (const d of [home, codexHome, project]) fs.mkdirSync(d, { recursive: true });
const logFile = path.join(BASE, 'requests.jsonl');

// startServer runs server.mjs and waits for its port.
async function startServer() {
	const child = spawn(process.execPath, [path.join(here, 'server.mjs'), logFile], { stdio: ['ignore', 'pipe', 'inherit'] });
	const rl = readline.createInterface({ input: child.stdout });
	for await (const line of rl) {
		const m = /^listening (\d+)$/.exec(line);
		if (m) return { child, port: Number(m[1]) };
	}
	throw new Error('fake server did not start');
}

const { child: server, port } = await startServer();
// Short instructions and no skills or permissions text keep every rollout
// (session_meta holds the instructions) and request a few KB.
const instructions = path.join(BASE, 'instructions.md');
fs.writeFileSync(instructions, 'You are a test agent. Answer briefly.\n');
fs.writeFileSync(
	path.join(codexHome, 'config.toml'),
	`model = "${MODEL}"
model_provider = "fake"
model_instructions_file = "${instructions}"
include_permissions_instructions = false
# Compact once the context passes this many tokens (the "big" turn reports
# 180000 input tokens).
model_auto_compact_token_limit = 100000

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:${port}/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_KEY"
request_max_retries = 0
stream_max_retries = 0

[skills]
include_instructions = false
`,
);

const runs = [];

function codexEnv() {
	return {
		PATH: process.env.PATH,
		HOME: home,
		CODEX_HOME: codexHome,
		FAKE_OPENAI_KEY: 'dummy-key',
		OPENAI_API_KEY: 'dummy-key',
		TZ: 'UTC',
		LANG: 'C.UTF-8',
	};
}

// codexInterrupted runs one codex exec and sends it SIGINT after ms
// milliseconds, as a user pressing Ctrl-C would.
async function codexInterrupted(label, args, ms) {
	const argv = ['exec', '--strict-config', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--json', ...args];
	const child = spawn(codexBin, argv, { cwd: project, env: codexEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (d) => (stdout += d));
	child.stderr.on('data', (d) => (stderr += d));
	const timer = setTimeout(() => child.kill('SIGINT'), ms);
	const status = await new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? signal)));
	clearTimeout(timer);
	const events = stdout
		.split('\n')
		.filter((l) => l.startsWith('{'))
		.map((l) => JSON.parse(l));
	const thread = events.find((e) => e.type === 'thread.started')?.thread_id;
	runs.push({ label, args, status, thread, events, stderr: stderr.split('\n').filter((l) => l && !l.startsWith('WARNING: proceeding')) });
	console.log(`${label}: exit ${status}, thread ${thread}`);
	return thread;
}

// codex runs one codex exec and returns the thread id it reports.
function codex(label, args) {
	const env = codexEnv();
	const argv = ['exec', '--strict-config', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', '--json', ...args];
	const r = spawnSync(codexBin, argv, { cwd: project, env, encoding: 'utf8', input: '', timeout: 120000 });
	const events = r.stdout
		.split('\n')
		.filter((l) => l.startsWith('{'))
		.map((l) => JSON.parse(l));
	const thread = events.find((e) => e.type === 'thread.started')?.thread_id;
	runs.push({ label, args, status: r.status, thread, events, stderr: r.stderr.split('\n').filter((l) => l && !l.startsWith('WARNING: proceeding')) });
	console.log(`${label}: exit ${r.status}, thread ${thread}`);
	return thread;
}

// Session A: plain multi-turn, parallel tool calls, resumes, another model.
const a = codex('a1 hello', ['[[hello]] Hi there.']);
codex('a2 parallel (resume)', ['resume', a, '[[parallel]] Run echo a and echo b in parallel.']);
codex('a3 other model (resume)', ['resume', a, '-m', OTHER, '[[other]] Answer with the other model.']);
codex('a4 single call (resume --last)', ['resume', '--last', '[[single]] Run echo c.']);
codex('a5 second (resume)', ['resume', a, '[[second]] And the answer?']);

// Session B: a turn whose usage passes the auto-compact limit, then more.
const b = codex('b1 big', ['[[big]] Fill the context.']);
codex('b2 after (resume)', ['resume', b, '[[after]] Go on after the compaction.']);

// Session C: a failed turn (response.failed), a refused request (HTTP 400),
// then a turn that works.
const c = codex('c1 error', ['[[error]] This turn fails.']);
codex('c2 bad (resume)', ['resume', c, '[[bad]] This request is refused.']);
codex('c3 hello (resume)', ['resume', c, '[[hello]] Try again.']);

// Session D: parallel tool calls in a fresh session's first turn.
codex('d1 parallel', ['[[parallel]] Run echo a and echo b.']);

// Session E: a fork of session A, with a turn of its own.
codex('e1 fork of a', ['fork', a, '[[second]] A question in the fork.']);

// Sessions I and J: a fork of B (after its compaction) and a fork of E (a
// fork of a fork).
codex('i1 fork of b', ['fork', b, '[[hello]] Hello from a fork of B.']);
const e = runs.find((r) => r.label === 'e1 fork of a').thread;
codex('j1 fork of e', ['fork', e, '[[other]] A fork of the fork.']);

// Session F: a tool call whose response passes the auto-compact limit, so
// that Codex compacts in the middle of the turn, before sending the output.
codex('f1 compaction mid-turn', ['[[bigcall]] Run echo d.']);

// Session G: a turn interrupted (SIGINT) while its command runs, then
// resumed.
const g = await codexInterrupted('g1 interrupted', ['[[slow]] Sleep a while.'], 4000);
codex('g2 hello (resume)', ['resume', g, '[[hello]] Are you there?']);

// Session H: the built-in OpenAI provider pointed at the fake server. Codex
// tries a WebSocket first (the server refuses it, Codex falls back to
// HTTPS), and compacts remotely: a request ending with a compaction_trigger
// item, answered with one opaque compaction item, whose usage Codex records
// in a token_usage_record but not in the token_count totals.
const openai = ['-c', 'model_provider="openai"', '-c', `openai_base_url="http://127.0.0.1:${port}/v1"`];
const h = codex('h1 big (openai provider)', [...openai, '[[big]] Fill the context.']);
codex('h2 after (resume, remote compaction)', ['resume', h, ...openai, '[[after]] Go on after the compaction.']);

// Archive session D: Codex moves its rollout to archived_sessions.
const d = runs.find((r) => r.label === 'd1 parallel').thread;
const ar = spawnSync(codexBin, ['archive', d], { cwd: project, env: codexEnv(), encoding: 'utf8', input: '' });
console.log(`archive d: exit ${ar.status} ${ar.stdout.trim()} ${ar.stderr.split('\n').filter((l) => l && !l.startsWith('WARNING')).join(' ')}`);

server.kill();

// Copy what Codex wrote.
fs.rmSync(path.join(out, 'codex-home'), { recursive: true, force: true });
fs.mkdirSync(path.join(out, 'codex-home'), { recursive: true });
for (const name of ['sessions', 'archived_sessions', 'session_index.jsonl']) {
	const from = path.join(codexHome, name);
	if (fs.existsSync(from)) fs.cpSync(from, path.join(out, 'codex-home', name), { recursive: true });
}
fs.writeFileSync(path.join(out, 'runs.json'), JSON.stringify(runs, null, 1) + '\n');
// The requests, without the instructions and tool schemas (the same long
// text in every request): the input items are what matters.
const reqs = fs
	.readFileSync(logFile, 'utf8')
	.split('\n')
	.filter(Boolean)
	.map((l) => JSON.parse(l))
	.map((r) => {
		const body = { ...(r.body ?? {}) };
		if (typeof body.instructions === 'string') body.instructions = `(${body.instructions.length} characters)`;
		if (Array.isArray(body.tools)) body.tools = body.tools.map((t) => t.name ?? t.type);
		return { ...r, body };
	});
fs.writeFileSync(path.join(out, 'requests.jsonl'), reqs.map((r) => JSON.stringify(r)).join('\n') + '\n');
const version = spawnSync(codexBin, ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: codexHome } }).stdout;
fs.writeFileSync(path.join(out, 'VERSION'), version);

// ccusage's answers on the copied tree: the release pinned in
// ../ccusage/package.json, run as ../ccusage/gen.sh runs it (empty HOME,
// UTC days, prices built into the binary).
const ccusage = path.join(here, '../ccusage/node_modules/.bin/ccusage');
if (!fs.existsSync(ccusage)) {
	console.error('ccusage is not installed: npm install in testdata/gen/ccusage, then run gen.mjs again');
	process.exit(1);
}
fs.mkdirSync(path.join(out, 'ccusage'), { recursive: true });
const ccHome = fs.mkdtempSync(path.join(BASE, 'cchome-'));
function cc(args) {
	const env = { PATH: process.env.PATH, HOME: ccHome, TZ: 'UTC', NO_COLOR: '1', CODEX_HOME: path.join(out, 'codex-home') };
	const r = spawnSync(ccusage, args, { env, encoding: 'utf8' });
	if (r.status !== 0) throw new Error(`ccusage ${args.join(' ')}: ${r.stderr}`);
	return r.stdout;
}
fs.writeFileSync(path.join(out, 'ccusage', 'VERSION'), cc(['--version']));
for (const report of ['daily', 'session']) {
	fs.writeFileSync(path.join(out, 'ccusage', `codex-${report}.json`), cc(['codex', report, '--json', '--offline', '--timezone', 'UTC']));
}
console.log(`wrote ${out}`);
