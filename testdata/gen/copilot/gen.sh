#!/bin/sh
# gen.sh writes testdata/copilot: the session store (~/.copilot/session-state)
# written by the real GitHub Copilot CLI run offline (COPILOT_OFFLINE=true, a
# BYOK OpenAI-compatible provider, no GitHub login) against sessiondb's
# scripted model (go run ./testdata/gen/agents serve), and the requests it
# sent (the proof of what it rebuilt from events.jsonl on --resume). Run by
# hand from the repository root, with Node and the npm registry:
#
#   sh testdata/gen/copilot/gen.sh [CACHE]
#
# CACHE (default /tmp/sessiondb-copilot-cache) keeps the npm install of
# @github/copilot (a loader and a native single-executable, ~130 MB). The
# agent runs in /tmp/sdb-copilot (a fixed path: the files name it). The plan
# is testdata/gen/agents' (a1 tools, a2 resume hello, b1 long, b2 resume
# recall), without the hand edit.
set -eu
VERSION=1.0.102
ROOT=$(pwd)
CACHE=${1:-/tmp/sessiondb-copilot-cache}
W=/tmp/sdb-copilot
OUT=$ROOT/testdata/copilot
PORT=18793
rm -rf "$W"
mkdir -p "$W/home" "$W/project" "$W/log" "$CACHE"
[ -x "$CACHE/node_modules/.bin/copilot" ] || (cd "$CACHE" && npm install --no-audit --no-fund "@github/copilot@$VERSION" >/dev/null)

go build -o "$W/agents" ./testdata/gen/agents
"$W/agents" serve -port $PORT -log "$W/log" >"$W/serve.out" 2>&1 &
SPID=$!
trap 'kill $SPID 2>/dev/null || true' EXIT
sleep 1

run() { # name args...
	name=$1
	shift
	(cd "$W/project" && env -i PATH="$PATH" HOME="$W/home" TZ=UTC LANG=C.UTF-8 TERM=dumb NO_COLOR=1 \
		COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:$PORT/v1 \
		COPILOT_PROVIDER_TYPE=openai COPILOT_PROVIDER_API_KEY=offline COPILOT_MODEL=gpt-4.1 \
		COPILOT_PKG_CACHE_HOME="$CACHE/pkg" \
		timeout 300 "$CACHE/node_modules/.bin/copilot" --allow-all-tools --no-auto-update "$@" </dev/null >"$W/log/$name.out" 2>&1)
	n=$(wc -l <"$W/log/requests.jsonl")
	echo "$name $n" >>"$W/log/runs.txt"
}
A=11111111-1111-4111-8111-111111111111
B=22222222-2222-4222-8222-222222222222
run a1 --session-id "$A" -p 'Run the tools [[tools]]'
run a2 --resume="$A" -p 'Say hello 你好 👋 [[hello]]'
run b1 --session-id "$B" -p 'Write a long answer [[long]]'
run b2 --resume="$B" -p 'What did I ask first? [[recall]]'

rm -rf "$OUT"
mkdir -p "$OUT/session-state"
for s in "$A" "$B"; do
	mkdir -p "$OUT/session-state/$s"
	cp "$W/home/.copilot/session-state/$s/events.jsonl" "$W/home/.copilot/session-state/$s/workspace.yaml" "$OUT/session-state/$s/"
done
# The request log keeps each request's messages and the names of the tools
# offered: the system prompt and tool schemas are dropped to keep it small.
python3 - "$W/log/requests.jsonl" "$OUT/requests.jsonl" <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as o:
    for line in f:
        r = json.loads(line)
        b = r.get("body") or {}
        if isinstance(b, dict):
            b["tools"] = [(t.get("function") or {}).get("name") for t in b.get("tools", [])]
            b["messages"] = [m for m in b.get("messages", []) if m.get("role") != "system"]
        o.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
PY
cp "$W/log/runs.txt" "$OUT/runs.txt"
echo "copilot $VERSION" >"$OUT/VERSION"
