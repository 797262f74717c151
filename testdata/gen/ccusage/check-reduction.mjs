// check-reduction.mjs runs ccusage on the originals of the corpus and on the
// reduced copies and compares what it reports, to show that reduction changed
// no usage figure. Run by hand after testdata/gen/corpus/extract.sh:
//   node testdata/gen/ccusage/check-reduction.mjs [ORIG]
// ORIG defaults to /work/corpus-originals/files. The originals are laid out
// again in a temporary folder under the same names as their reduced copies
// (only the project folder names differ, and those are not compared: rows are
// matched by date, month, model and session id). The result is written to
// testdata/corpus/ccusage/reduction-check.md, which MANIFEST.md quotes.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const here = path.dirname(new URL(import.meta.url).pathname);
const root = path.resolve(here, "../../..");
const orig = process.argv[2] ?? "/work/corpus-originals/files";
const manifest = JSON.parse(fs.readFileSync(path.join(root, "testdata/corpus/manifest.json"), "utf8"));
const bin = path.join(here, "node_modules/.bin/ccusage");
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "ccusage-check-"));

// Originals, laid out like the reduced corpus. Project folders keep their
// original names; everything below them is named as in the corpus.
const origTree = path.join(tmp, "orig");
for (const f of manifest.files) {
  let dest = f.file;
  if (f.format === "claude-code") {
    const i = f.original_path.indexOf("projects/");
    const dir = f.original_path.slice(i + "projects/".length).split("/")[0];
    dest = f.file.replace(/^claude-code\/projects\/[^/]+/, "claude-code/projects/" + dir);
  }
  const src = path.join(orig, f.repository.replace("/", "+"), f.original_path);
  fs.mkdirSync(path.dirname(path.join(origTree, dest)), { recursive: true });
  fs.copyFileSync(src, path.join(origTree, dest));
}

function run(base, args) {
  const home = fs.mkdtempSync(path.join(tmp, "home-"));
  const out = execFileSync(bin, [...args, "--json", "--offline", "--timezone", "UTC"], {
    env: { PATH: process.env.PATH, HOME: home, TZ: "UTC", NO_COLOR: "1",
      CLAUDE_CONFIG_DIR: path.join(base, "claude-code"), CODEX_HOME: path.join(base, "codex") },
    maxBuffer: 1 << 28,
  });
  return JSON.parse(out);
}

// rows flattens a report into "key → figures" for comparison.
function rows(agent, report, data) {
  const m = new Map();
  const list = data.daily ?? data.monthly ?? data.sessions ?? [];
  for (const r of list) {
    const key = r.date ?? r.month ?? r.sessionId;
    const fig = { ...r };
    for (const k of ["projectPath", "lastActivity", "date", "month", "sessionId", "modelsUsed", "modelBreakdowns", "models", "sessionFile", "directory"]) delete fig[k];
    m.set(`${key}`, JSON.stringify(fig, Object.keys(fig).sort()));
    for (const b of r.modelBreakdowns ?? []) m.set(`${key}/${b.modelName}`, JSON.stringify(b, Object.keys(b).sort()));
    for (const [name, b] of Object.entries(r.models ?? {})) m.set(`${key}/${name}`, JSON.stringify(b, Object.keys(b).sort()));
  }
  return m;
}

const lines = [];
let allEqual = true;
for (const agent of ["claude", "codex"]) {
  for (const report of ["daily", "monthly", "session"]) {
    const extra = agent === "claude" ? ["--mode", "auto", "--breakdown", "--single-thread"] : [];
    const a = rows(agent, report, run(origTree, [agent, report, ...extra]));
    const b = rows(agent, report, run(path.join(root, "testdata/corpus"), [agent, report, ...extra]));
    let equal = 0;
    const diffs = [];
    for (const [k, v] of a) {
      if (b.get(k) === v) equal++;
      else diffs.push(k);
    }
    for (const k of b.keys()) if (!a.has(k)) diffs.push(k);
    if (diffs.length) allEqual = false;
    lines.push(`| ${agent} ${report} | ${a.size} | ${b.size} | ${equal} | ${diffs.slice(0, 5).join(", ") || "—"} |`);
  }
}
const version = execFileSync(bin, ["--version"]).toString().trim();
const files = manifest.files.filter((f) => f.file.endsWith(".jsonl")).length;
const md = [
  `Checked with ${version}: ccusage was run (\`--json --offline --timezone UTC\`, Claude with \`--mode auto --breakdown\`) on the ${files} original JSONL files laid out like the corpus, and on their reduced copies. Rows are matched by date, month or session id and by model; every figure (tokens of each kind, costs) must be equal.`,
  "",
  "| report | rows on originals | rows on reduced | equal | differing |",
  "|---|---|---|---|---|",
  ...lines,
  "",
  allEqual ? "Result: **every row equal** — reduction changed no usage figure ccusage reports." : "Result: **some rows differ** (listed above).",
  "",
].join("\n");
fs.writeFileSync(path.join(root, "testdata/corpus/ccusage/reduction-check.md"), md);
fs.rmSync(tmp, { recursive: true, force: true });
process.stdout.write(md);
process.exit(allEqual ? 0 : 1);
