#!/usr/bin/env bash
# Writes testdata/cline/sdk: the session store of the Cline CLI 3 (the Cline
# SDK layout, ~/.cline/data/sessions) as the CLI itself writes it, run
# offline against sessiondb's scripted model (internal/scriptmodel).
#
# usage (from the repository root):
#   npm install --prefix /work/wt/clinesdk-npm --no-audit --no-fund cline@3.0.65
#   bash testdata/gen/cline/sdk.sh /work/wt/clinesdk-npm
#
# Runs (HOME is /tmp/sessiondb-cline-sdk/home, removed first; a fixed path so
# that the paths the CLI records are the same on every run):
#   a1  cline --json "Say hello [[hello]]"                 new session A
#   b1  cline --json "Run the tools [[tools]]"             new session B: four
#       run_commands calls (two parallel, one failing, one long output)
#   (B's folder is copied to growth/ before it is resumed)
#   b2  resume B through ACP: "What did I ask first? [[recall]]"
#   a2  resume A through ACP: "What did I ask first? [[recall]]"
#   c1  with the provider's contextWindow set to 3000 tokens in
#       settings/providers.json: cline --json "Run the tools [[tools]]",
#       new session C, which the CLI compacts after the first two calls
#       (its agentic compaction: a summary request, then <C>.compaction.json)
#   c2  resume C through ACP: "What did I ask first? [[recall]]"
# `cline --id SID` only opens the TUI in 3.0.65 (it drops the prompt and
# refuses --json), so the resumes speak the Agent Client Protocol to
# `cline --acp` (acp_resume.py: initialize, session/load, session/prompt).
set -euo pipefail
prefix=${1:?npm prefix holding node_modules/.bin/cline}
cline="$prefix/node_modules/.bin/cline"
repo=$(pwd)
out="$repo/testdata/cline/sdk"
base=/tmp/sessiondb-cline-sdk
rm -rf "$base"
mkdir -p "$base/home" "$base/project" "$base/log"
echo "quokka notes" > "$base/project/notes.txt"
port=${PORT:-18795}
go build -o "$base/gen" ./testdata/gen/agents
"$base/gen" serve -port "$port" -log "$base/log" > "$base/serve.out" 2>&1 &
server=$!
hub=""
cleanup() {
	[ -n "$hub" ] && kill "$hub" 2>/dev/null || true
	kill "$server" 2>/dev/null || true
}
trap cleanup EXIT
sleep 1
export HOME="$base/home" XDG_CONFIG_HOME="$base/home/.config" XDG_DATA_HOME="$base/home/.local/share" \
	XDG_STATE_HOME="$base/home/.local/state" XDG_CACHE_HOME="$base/home/.cache" TZ=UTC LANG=C.UTF-8 NO_COLOR=1
cd "$base/project"
"$cline" --version </dev/null > "$base/version"
"$cline" auth -p openai -k sk-test -m scripted-model -b "http://127.0.0.1:$port/v1" </dev/null
mark() { wc -l < "$base/log/requests.jsonl" 2>/dev/null || echo 0; }
declare -A from to
run() { # name args...
	local name=$1; shift
	from[$name]=$(mark)
	"$@" > "$base/$name.stdout" 2> "$base/$name.stderr"
	to[$name]=$(mark)
	echo "$name: requests ${from[$name]}..${to[$name]}"
}
run a1 "$cline" --json "Say hello [[hello]]" </dev/null
run b1 "$cline" --json "Run the tools [[tools]]" </dev/null
sessions="$base/home/.cline/data/sessions"
A=$(ls -d "$sessions"/* | sort | sed -n 1p | xargs basename)
B=$(ls -d "$sessions"/* | sort | sed -n 2p | xargs basename)
rm -rf "$base/growth"; mkdir -p "$base/growth"; cp -a "$sessions/$B" "$base/growth/"
export CLINE_PROVIDER=openai-compatible CLINE_MODEL=scripted-model CLINE_API_KEY=sk-test
run b2 python3 "$repo/testdata/gen/cline/acp_resume.py" "$cline" "$B" "$base/project" "What did I ask first? [[recall]]"
run a2 python3 "$repo/testdata/gen/cline/acp_resume.py" "$cline" "$A" "$base/project" "What did I ask first? [[recall]]"
python3 - "$base/home/.cline/data/settings/providers.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["providers"]["openai-compatible"]["settings"]["contextWindow"] = 3000
json.dump(d, open(sys.argv[1], "w"), indent=2)
PY
unset CLINE_PROVIDER CLINE_MODEL CLINE_API_KEY
before=$(ls "$sessions" | sort)
run c1 "$cline" --json "Run the tools [[tools]]" </dev/null
C=$(comm -13 <(echo "$before") <(ls "$sessions" | sort))
export CLINE_PROVIDER=openai-compatible CLINE_MODEL=scripted-model CLINE_API_KEY=sk-test
run c2 python3 "$repo/testdata/gen/cline/acp_resume.py" "$cline" "$C" "$base/project" "What did I ask first? [[recall]]"
hub=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$base/home/.cline/data/locks/hub/production.json" 2>/dev/null || true)
sleep 1
cleanup; hub=""
# What is committed: the sessions and the session database (read-only
# copies), the growth snapshot, and the requests of each run, reduced.
rm -rf "$out"; mkdir -p "$out/home/.cline/data/db" "$out/growth" "$out/requests"
cp -a "$sessions" "$out/home/.cline/data/"
python3 - "$base/home/.cline/data/db/sessions.db" "$out/home/.cline/data/db/sessions.db" <<'PY'
import sqlite3, sys
src = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
dst = sqlite3.connect(sys.argv[2])
src.backup(dst)
dst.execute("PRAGMA journal_mode=DELETE")
dst.close()
PY
cp -a "$base/growth/$B" "$out/growth/"
for name in a1 b1 b2 a2 c1 c2; do
	python3 "$repo/testdata/gen/cline/reduce_requests.py" "$base/log/requests.jsonl" "${from[$name]}" "${to[$name]}" > "$out/requests/$name.jsonl"
done
printf '{"cline": "%s", "A": "%s", "B": "%s", "C": "%s"}\n' "$(cat "$base/version")" "$A" "$B" "$C" > "$out/runs.json"
echo "wrote $out (A=$A B=$B C=$C)"
