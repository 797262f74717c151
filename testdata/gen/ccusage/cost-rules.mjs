// cost-rules.mjs shows, on hand-made responses, how the pinned ccusage
// prices Claude Code usage: 1-hour cache writes (usage.cache_creation's
// ephemeral_1h_input_tokens) and the long-context tier. Each case is one
// response on its own day of February 2030, priced with --mode calculate.
// Run by hand (after gen.sh's npm ci, or with CCUSAGE_BIN set):
//   node testdata/gen/ccusage/cost-rules.mjs
// The observations are quoted in README.md ("Cost").
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const here = path.dirname(new URL(import.meta.url).pathname);
const bin = process.env.CCUSAGE_BIN ?? path.join(here, "node_modules/.bin/ccusage");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ccusage-cost-"));
const proj = path.join(tmp, "claude", "projects", "-p");
fs.mkdirSync(proj, { recursive: true });
let n = 0;
const lines = [];
const asst = (day, model, usage) => lines.push(JSON.stringify({ parentUuid: null, isSidechain: false, userType: "external", cwd: "/p",
  sessionId: "s1", version: "2.1.100", type: "assistant", uuid: `u${++n}`, timestamp: `2030-02-${day}T10:00:00Z`, requestId: `req_${day}`,
  message: { id: `msg_${day}`, type: "message", role: "assistant", model, content: [{ type: "text", text: "x" }], usage } }));
// U(input, output, cache read, cache creation, [5m, 1h] split or none)
const U = (i, o, cr, cc, split) => Object.assign({ input_tokens: i, cache_creation_input_tokens: cc, cache_read_input_tokens: cr, output_tokens: o },
  split ? { cache_creation: { ephemeral_5m_input_tokens: split[0], ephemeral_1h_input_tokens: split[1] } } : {});
const S = "claude-sonnet-4-5-20250929";
const cases = [
  ["01", S, U(0, 0, 0, 100000, [0, 100000]), "Sonnet 4.5, 1h 100k: $0.6 if 2x input, $0.375 at the 5m rate"],
  ["02", S, U(0, 0, 0, 100000), "no split, cache creation 100k: $0.375"],
  ["03", S, U(0, 0, 0, 100000, [0, 50000]), "split 5m 0 + 1h 50k of a cache creation of 100k: $0.3 (split only), $0.4875 (rest at 5m)"],
  ["14", S, U(0, 0, 0, 100000, [100000, 100000]), "split 5m 100k + 1h 100k, cache creation 100k: $0.975 (split), $0.375 or $0.6 (total)"],
  ["04", "claude-3-haiku-20240307", U(0, 0, 0, 100000, [0, 100000]), "Haiku 3 (input $0.25), 1h 100k: $0.05 if 2x input"],
  ["13", "claude-opus-4-1", U(0, 0, 0, 100000, [0, 100000]), "Opus 4.1 (input $15), 1h 100k: $3 if 2x input"],
  ["16", "claude-opus-4-6", U(0, 0, 0, 100000, [0, 100000]), "Opus 4.6 (input $5), 1h 100k: $1 if 2x input"],
  ["05", "gpt-5", U(0, 0, 0, 100000, [0, 100000]), "gpt-5 (input $1.25, no cache write price), 1h 100k: $0.25 if 2x input"],
  ["06", S, U(300000, 0, 0, 0), "Sonnet 4.5 input 300k: $1.2 marginal per kind, $1.8 whole call at the tier"],
  ["07", S, U(1000, 1000, 300000, 0), "cache read 300k + in 1k + out 1k: $0.138 marginal per kind, $0.2085 whole call"],
  ["11", S, U(100000, 1000, 100000, 0), "in 100k + cache read 100k + out 1k (prompt 200k): $0.345 (no kind above 200k)"],
  ["12", S, U(0, 0, 0, 300000, [300000, 0]), "5m 300k: $1.5 marginal (200k at $3.75, 100k at $7.5)"],
  ["08", S, U(0, 0, 0, 300000, [0, 300000]), "1h 300k: $2.4 marginal at 2x input ($6, above 200k $12), $1.8 flat 2x"],
  ["09", S, U(0, 0, 0, 300000, [150000, 150000]), "5m 150k + 1h 150k (writes 300k): $1.4625 if each kind is tiered alone"],
  ["10", "claude-opus-4-6", U(300000, 0, 0, 0), "Opus 4.6 (no tier in the file) input 300k: $1.5"],
];
for (const c of cases) asst(c[0], c[1], c[2]);
fs.writeFileSync(path.join(proj, "s1.jsonl"), lines.join("\n") + "\n");
const daily = JSON.parse(execFileSync(bin, ["claude", "daily", "--json", "--offline", "--timezone", "UTC", "--breakdown", "--mode", "calculate", "--single-thread"],
  { env: { PATH: process.env.PATH, HOME: tmp, TZ: "UTC", CLAUDE_CONFIG_DIR: path.join(tmp, "claude") } }));
const byDay = Object.fromEntries(daily.daily.map((r) => [r.date.slice(8), r]));
const out = ["| day | case | ccusage cost |", "|---|---|---|"];
for (const [day, , , what] of cases) out.push(`| ${day} | ${what} | ${byDay[day] ? "$" + +byDay[day].totalCost.toFixed(6) : "not counted"} |`);
fs.rmSync(tmp, { recursive: true, force: true });
console.log(out.join("\n"));
