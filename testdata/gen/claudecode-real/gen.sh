#!/bin/sh
# gen.sh writes testdata/claudecode-real: transcripts written by the real
# Claude Code CLI (the release pinned in package.json) talking to our fake
# Messages API (fake-api.mjs), the requests the CLI sent, and ccusage's
# answers on the transcripts. Run by hand from anywhere (see README.md):
#   testdata/gen/claudecode-real/gen.sh
# It needs node/npm and no network beyond npm: the CLI only talks to the
# fake API on 127.0.0.1, with HOME and CLAUDE_CONFIG_DIR in a scratch folder
# so that nothing of the machine's own ~/.claude is read or written.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out="$root/testdata/claudecode-real"
cd "$here"
[ -d node_modules/@anthropic-ai ] || npm ci --no-audit --no-fund >/dev/null
# npm 11 does not run the package's postinstall (which links bin/claude.exe
# to the platform build) unless allowed; the platform package holds the
# same binary, so run that.
bin="$here/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
"$bin" --version

# A fixed scratch path, so the project key (the cwd with / as -) is the same
# on every run.
work=/tmp/sessiondb-claudecode-real
rm -rf "$work"
mkdir -p "$work/home" "$work/proj" "$work/out"
printf 'first note\nsecond note\n' > "$work/proj/notes.txt"
port=18787
node "$here/fake-api.mjs" "$port" "$work/requests.jsonl" "$work/proj" > "$work/fake-api.log" 2>&1 &
pid=$!
home=$(mktemp -d)
trap 'rm -rf "$home"; kill $pid 2>/dev/null || true' EXIT
sleep 1

# run NAME ARGS... runs the CLI once in the project, keeps its JSON result
# in out/NAME.json and the requests it made in out/NAME.requests.jsonl.
run() {
	name=$1
	shift
	(cd "$work/proj" && env -i PATH="$PATH" HOME="$work/home" CLAUDE_CONFIG_DIR="$work/home/.claude" \
		TZ=UTC LANG=C.UTF-8 \
		ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=sk-fake \
		DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
		DISABLE_ERROR_REPORTING=1 CLAUDE_CODE_OVERLOADED_RETRY_BASE_DELAY_MS=200 \
		"$bin" "$@" --output-format json --allowedTools "Bash Read Write Task Agent" \
		> "$work/out/$name.json" 2> "$work/out/$name.stderr") || echo "$name: exit $?"
	if [ -f "$work/requests.jsonl" ]; then mv "$work/requests.jsonl" "$work/out/$name.requests.jsonl"; fi
	sleep 1
}
sid() { node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).session_id)' "$work/out/$1.json"; }

# Session A: parallel tool calls, then resumed (--resume), continued
# (--continue) with another model answering, resumed through an overloaded
# (529) first attempt, resumed into an API error (400) and continued after
# it. Session B: a sub-agent (Agent tool) that runs a command, then a
# Write (file history), a sub-agent in the background, a large Bash output (a tool-results file?), a
# /compact and a turn after it. (Two sessions only: each new session
# writes ~100 KB of attachments.)
run a1 -p "Run two commands #parallel"
a=$(sid a1)
run a2 --resume "$a" -p "Now read the notes #read"
run a3 --continue -p "Answer as another model #model=claude-sonnet-4-5-20250929"
run a4 --resume "$a" -p "Try again under load #overload"
run a5 --resume "$a" -p "This request fails #error"
run a6 --continue -p "Plain answer now"
run b1 -p "Delegate to a sub-agent #agent"
b=$(sid b1)
run b2 --resume "$b" -p "Write a file #write"
run b2bg --continue -p "Delegate in the background #bgagent"
run b3 --continue -p "Print a lot #big"
run b4 --continue -p "/compact"
run b5 --continue -p "After compaction #read"

kill $pid 2>/dev/null || true
rm -rf "$out"
mkdir -p "$out/requests" "$out/ccusage"
# The projects tree as one deterministic tarball: the CLI writes ~100 KB
# of attachments and request records per session (system prompt snapshot,
# skill and agent listings), ~1 MB in all, a quarter of that compressed.
(cd "$work/home/.claude" && find projects -type f | LC_ALL=C sort | tar -cf - --no-recursion --mtime=@0 \
	--owner=0 --group=0 --numeric-owner --mode=u=rw,go=r -T - | gzip -n -9 > "$out/projects.tar.gz")
for f in "$work"/out/*.json; do
	n=$(basename "$f" .json)
	cp "$f" "$out/requests/$n.result.json"
	if [ -f "$work/out/$n.requests.jsonl" ]; then
		node "$here/requests.mjs" "$work/out/$n.requests.jsonl" > "$out/requests/$n.json"
	fi
done

# ccusage's answers, as testdata/gen/ccusage/gen.sh runs it. (npm 11
# refuses npm ci on that folder's older lock file; install the same pinned
# release without touching the lock.)
ccusage="$root/testdata/gen/ccusage/node_modules/.bin/ccusage"
[ -x "$ccusage" ] || (cd "$root/testdata/gen/ccusage" && npm install --no-audit --no-fund --package-lock=false >/dev/null)
for report in daily session; do
	env -i PATH="$PATH" HOME="$home" TZ=UTC NO_COLOR=1 CLAUDE_CONFIG_DIR="$work/home/.claude" \
		"$ccusage" claude "$report" --json --offline --timezone UTC --mode auto --breakdown --single-thread \
		> "$out/ccusage/$report.json"
done
env -i PATH="$PATH" HOME="$home" "$ccusage" --version > "$out/ccusage/VERSION"
"$bin" --version > "$out/VERSION"
echo "wrote $out"
