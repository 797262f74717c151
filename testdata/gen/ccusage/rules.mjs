// rules.mjs shows, on small hand-made transcripts, how the pinned ccusage
// counts Claude Code usage: which line of a streamed response it keeps, how
// it dedupes across files and sessions, which lines it skips, how it dates a
// response and prices it. Each case gets its own day in January 2030, so the
// daily report shows each case on its own row. Run by hand:
//   node testdata/gen/ccusage/rules.mjs
// The observations are quoted in README.md.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const here = path.dirname(new URL(import.meta.url).pathname);
const bin = path.join(here, "node_modules/.bin/ccusage");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ccusage-rules-"));
const proj = path.join(tmp, "claude", "projects", "-p");
let n = 0;
const line = (o) => JSON.stringify(Object.assign({ parentUuid: null, isSidechain: false, userType: "external", cwd: "/p",
  sessionId: "s1", version: "2.1.100", type: "assistant", uuid: `u${++n}` }, o));
const asst = (day, time, o, usage, extra = {}) => line({ sessionId: o.sid ?? "s1", timestamp: `2030-01-${day}T${time}Z`,
  ...(o.req === undefined ? { requestId: `req_${day}` } : o.req === null ? {} : { requestId: o.req }),
  message: { ...(o.mid === null ? {} : { id: o.mid ?? `msg_${day}` }), type: "message", role: "assistant", model: o.model ?? "claude-sonnet-4-5-20250929",
    content: [{ type: "text", text: "x" }], usage }, ...extra });
const U = (i, o, cr = 0, cc = 0) => ({ input_tokens: i, cache_creation_input_tokens: cc, cache_read_input_tokens: cr, output_tokens: o });
const files = {};
const add = (f, l) => ((files[f] ??= []).push(l));
const cases = [
  ["10", "streamed response: 3 lines, output 1, 1, 40 (last line also latest)", () => {
    add("s1.jsonl", asst("10", "10:00:00", {}, U(10, 1, 100, 50)));
    add("s1.jsonl", asst("10", "10:00:01", {}, U(10, 1, 100, 50)));
    add("s1.jsonl", asst("10", "10:00:02", {}, U(10, 40, 100, 50))); }],
  ["11", "streamed response whose LAST line has the smaller total (in 10, out 35) than an earlier one (in 10, out 30, cache read 1000)", () => {
    add("s1.jsonl", asst("11", "10:00:00", {}, U(10, 30, 1000)));
    add("s1.jsonl", asst("11", "10:00:01", {}, U(10, 35, 0))); }],
  ["12", "response split over midnight: line 1 on the 12th (out 1), line 2 on the 13th (out 40)", () => {
    add("s1.jsonl", asst("12", "23:59:59", { mid: "msg_12x", req: "req_12x" }, U(10, 1)));
    add("s1.jsonl", asst("13", "00:00:01", { mid: "msg_12x", req: "req_12x" }, U(10, 40))); }],
  ["14", "equal totals on both lines (out 5, then out 5): first or last kept? (second line 1 s later, 14th vs 15th)", () => {
    add("s1.jsonl", asst("14", "23:59:59", { mid: "msg_14x", req: "req_14x" }, U(5, 5)));
    add("s1.jsonl", asst("15", "00:00:01", { mid: "msg_14x", req: "req_14x" }, U(5, 5))); }],
  ["16", "same message.id + requestId in two session files (sessionId s1 and s2)", () => {
    add("s1.jsonl", asst("16", "10:00:00", {}, U(10, 40)));
    add("s2.jsonl", asst("16", "10:00:00", { sid: "s2" }, U(10, 40))); }],
  ["17", "same message.id + requestId, main file and its sub-agent file (isSidechain true, output 99)", () => {
    add("s1.jsonl", asst("17", "10:00:00", {}, U(10, 40)));
    add("s1/subagents/agent-a1.jsonl", asst("17", "10:00:00", {}, U(10, 99), { isSidechain: true, agentId: "a1" })); }],
  ["18", "no requestId, msg_ id, two lines at different times (out 3, out 9)", () => {
    add("s1.jsonl", asst("18", "10:00:00", { req: null }, U(1, 3)));
    add("s1.jsonl", asst("18", "10:00:05", { req: null }, U(1, 9))); }],
  ["19", "no requestId, gateway id (not msg_), two lines at different times (out 3, out 9)", () => {
    add("s1.jsonl", asst("19", "10:00:00", { req: null, mid: "gw-19" }, U(1, 3)));
    add("s1.jsonl", asst("19", "10:00:05", { req: null, mid: "gw-19" }, U(1, 9))); }],
  ["20", "no message.id, two lines (out 3, out 9)", () => {
    add("s1.jsonl", asst("20", "10:00:00", { mid: null, req: null }, U(1, 3)));
    add("s1.jsonl", asst("20", "10:00:05", { mid: null, req: null }, U(1, 9))); }],
  ["21", "<synthetic> model with usage (in 7, out 7)", () => add("s1.jsonl", asst("21", "10:00:00", { model: "<synthetic>" }, U(7, 7)))],
  ["22", "isApiErrorMessage: true line with usage (in 7, out 7)", () => add("s1.jsonl", asst("22", "10:00:00", {}, U(7, 7), { isApiErrorMessage: true }))],
  ["23", "costUSD 1.5 on the line (mode auto)", () => add("s1.jsonl", asst("23", "10:00:00", {}, U(1000, 1000), { costUSD: 1.5 }))],
  ["24", "costUSD null on the line", () => add("s1.jsonl", asst("24", "10:00:00", {}, U(1000, 1000), { costUSD: null }))],
  ["25", "version \"abc\" (not semver)", () => add("s1.jsonl", asst("25", "10:00:00", { }, U(1000, 1000), { version: "abc" }))],
  ["26", "usage written as \"usage\": { (a space after the colon)", () => add("s1.jsonl", asst("26", "10:00:00", {}, U(1000, 1000)).replace('"usage":{', '"usage": {'))],
  ["27", "unknown model name \"my-gateway-model\"", () => add("s1.jsonl", asst("27", "10:00:00", { model: "my-gateway-model" }, U(1000, 1000)))],
  ["28", "line in projects/-p/s1/subagents/workflows/wf_1/agent-w.jsonl and in journal.jsonl", () => {
    add("s1/subagents/workflows/wf_1/agent-w.jsonl", asst("28", "10:00:00", { mid: "msg_28w", req: "req_28w" }, U(1, 11), { isSidechain: true }));
    add("s1/subagents/workflows/wf_1/journal.jsonl", asst("28", "11:00:00", { mid: "msg_28j", req: "req_28j" }, U(1, 22))); }],
  ["29", "2.0.x layout: projects/-p/agent-b2.jsonl with sessionId s1", () => add("agent-b2.jsonl", asst("29", "10:00:00", {}, U(1, 13), { isSidechain: true }))],
  ["30", "torn line (cut in the middle) followed by a valid response", () => {
    add("s1.jsonl", asst("30", "10:00:00", { mid: "msg_30a", req: "req_30a" }, U(1, 50)).slice(0, 120));
    add("s1.jsonl", asst("30", "10:00:01", { mid: "msg_30b", req: "req_30b" }, U(1, 6))); }],
  ["31", "no requestId, msg_ id, two lines at the SAME time (out 3, out 9)", () => {
    add("s1.jsonl", asst("31", "10:00:00", { req: null }, U(1, 3)));
    add("s1.jsonl", asst("31", "10:00:00", { req: null }, U(1, 9))); }],
  ["01", "same message.id, two different requestIds (out 3, out 9)", () => {
    add("s1.jsonl", asst("01", "10:00:00", { mid: "msg_01x", req: "req_01a" }, U(1, 3)));
    add("s1.jsonl", asst("01", "10:00:05", { mid: "msg_01x", req: "req_01b" }, U(1, 9))); }],
];
for (const [, , make] of cases) make();
for (const [f, ls] of Object.entries(files)) {
  fs.mkdirSync(path.dirname(path.join(proj, f)), { recursive: true });
  fs.writeFileSync(path.join(proj, f), ls.join("\n") + "\n");
}
const run = (args) => JSON.parse(execFileSync(bin, ["claude", ...args, "--json", "--offline", "--timezone", "UTC", "--mode", "auto", "--single-thread"],
  { env: { PATH: process.env.PATH, HOME: tmp, TZ: "UTC", CLAUDE_CONFIG_DIR: path.join(tmp, "claude") } }));
const daily = run(["daily", "--breakdown"]);
const byDay = Object.fromEntries(daily.daily.map((r) => [r.date.slice(8), r]));
const out = ["| day | case | ccusage daily: in / out / cache create / cache read, cost, models |", "|---|---|---|"];
for (const [day, what] of cases) {
  const r = byDay[day];
  const next = day === "12" ? byDay["13"] : day === "14" ? byDay["15"] : null;
  const fmt = (r) => r ? `${r.inputTokens} / ${r.outputTokens} / ${r.cacheCreationTokens} / ${r.cacheReadTokens}, $${+r.totalCost.toFixed(6)}, ${r.modelBreakdowns.map((b) => b.modelName).join(" ") || "(no model)"}` : "not counted";
  let s = fmt(r);
  if (next !== null) s += ` — next day: ${fmt(next)}`;
  out.push(`| ${day} | ${what} | ${s} |`);
}
const sessions = run(["session"]);
out.push("", "Session report rows (sessionId, projectPath, output tokens):", "");
for (const s of sessions.sessions) out.push(`- ${s.sessionId} — ${s.projectPath} — ${s.outputTokens}`);
out.push("", `unpricedModels (daily totals): ${JSON.stringify(daily.totals.unpricedModels ?? [])}`);
fs.rmSync(tmp, { recursive: true, force: true });
console.log(out.join("\n"));
