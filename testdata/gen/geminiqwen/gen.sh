#!/bin/sh
# gen.sh writes testdata/gemini and testdata/qwen: session stores written by
# the real Gemini CLI and Qwen Code, each run offline against a scripted
# model server of this folder, and the requests each agent sent (the proof
# of what it rebuilt from its file on --resume). Run by hand, from the
# repository root, with Node 20 and the npm registry:
#
#   sh testdata/gen/geminiqwen/gen.sh [CACHE]
#
# CACHE (default /tmp/sessiondb-geminiqwen-cache) keeps the npm installs.
# The agents run in /tmp/sdb-gq (a fixed path: the files name it), each
# with a throw-away HOME. Versions: Gemini CLI 0.61.0 (JSONL chats) and
# 0.38.2 (the last that wrote whole-JSON chats), Qwen Code 0.15.10 (JSONL)
# and 0.1.3 (Gemini-style whole-JSON chats). The settings are those of
# ../shared/formats/agents-offline.md. The request logs keep each request's
# contents (Gemini) or messages (Qwen) only: the system prompts and tool
# declarations are dropped to keep them small.
set -eu
ROOT=$(pwd)
HERE=$ROOT/testdata/gen/geminiqwen
CACHE=${1:-/tmp/sessiondb-geminiqwen-cache}
W=/tmp/sdb-gq
rm -rf "$W"
mkdir -p "$W/proj" "$CACHE"
echo hello > "$W/proj/a.txt"

install() { # dir package@version
	[ -d "$CACHE/$1/node_modules" ] || (mkdir -p "$CACHE/$1" && cd "$CACHE/$1" && npm install --no-audit --no-fund "$2" >/dev/null)
}
install gemini-0.61.0 @google/gemini-cli@0.61.0
install gemini-0.38.2 @google/gemini-cli@0.38.2
install qwen-0.15.10 @qwen-code/qwen-code@0.15.10
install qwen-0.1.3 @qwen-code/qwen-code@0.1.3

node "$HERE/gemini-server.mjs" 18571 "$W/gemini-requests.jsonl" &
GPID=$!
node "$HERE/openai-server.mjs" 18572 "$W/qwen-requests.jsonl" &
QPID=$!
trap 'kill $GPID $QPID 2>/dev/null || true' EXIT
sleep 1

GH=$W/gemini-home
mkdir -p "$GH/.gemini"
cat >"$GH/.gemini/settings.json" <<'EOF'
{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},"general":{"disableAutoUpdate":true,"disableUpdateNag":true}}
EOF
# Each run's --output-format json answer (its session_id and the token
# stats Gemini CLI counted) is one line of runs.jsonl.
gemini() { # version args...
	v=$1
	shift
	(cd "$W/proj" && HOME=$GH GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:18571 GEMINI_API_KEY=offline GEMINI_CLI_NO_RELAUNCH=true \
		timeout 300 "$CACHE/gemini-$v/node_modules/.bin/gemini" -m gemini-2.5-pro --approval-mode yolo --output-format json "$@" </dev/null 2>/dev/null) |
		node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s);console.log(JSON.stringify({version:process.argv[1],session_id:r.session_id,stats:r.stats}))})' "$v" |
		tee -a "$W/gemini-runs.jsonl"
}
sid() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).session_id))'; }

S=$(gemini 0.38.2 -p "Please use TOOLS now" | sid)
gemini 0.38.2 --resume "$S" -p "Do ERRTOOL now" >/dev/null
S=$(gemini 0.61.0 -p "Please use TOOLS now" | sid)
gemini 0.61.0 --resume "$S" -p "A second, plain question" >/dev/null
gemini 0.61.0 -p "Use AGENT please" >/dev/null
S=$(gemini 0.61.0 -p "Do ERRTOOL now" | sid)
# A resume in another minute than the chat began: Gemini CLI starts a new
# file (a header and its context only) before it resumes the old one.
sleep $((61 - $(date +%S | sed 's/^0//')))
gemini 0.61.0 --resume "$S" -p "A second, plain question" >/dev/null

QH=$W/qwen-home
mkdir -p "$QH/.qwen"
cat >"$QH/.qwen/settings.json" <<'EOF'
{"security":{"auth":{"selectedType":"openai"}},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false},"general":{"disableAutoUpdate":true,"disableUpdateNag":true}}
EOF
# Each run's --output-format json answer (a list of events, the last the
# result with the usage Qwen Code counted) is one line of runs.jsonl.
qwen() { # version args...
	v=$1
	shift
	(cd "$W/proj" && HOME=$QH OPENAI_BASE_URL=http://127.0.0.1:18572/v1 OPENAI_API_KEY=offline OPENAI_MODEL=qwen3-coder-plus \
		timeout 300 "$CACHE/qwen-$v/node_modules/.bin/qwen" --approval-mode yolo --output-format json "$@" </dev/null 2>/dev/null) |
		node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{let r;try{r=JSON.parse(s)}catch{r=s}const ev=Array.isArray(r)?r.filter(e=>e.type==="result"):[r];console.log(JSON.stringify({version:process.argv[1],result:ev[ev.length-1]}))})' "$v" \
		>>"$W/qwen-runs.jsonl"
}
qwen 0.1.3 "Please use TOOLS now"
qwen 0.15.10 --session-id 5b0a3c1e-0000-4000-8000-000000000001 "Please use TOOLS now"
qwen 0.15.10 --resume 5b0a3c1e-0000-4000-8000-000000000001 "A second, plain question"
qwen 0.15.10 --session-id 5b0a3c1e-0000-4000-8000-000000000002 "Do ERRTOOL now"

slim() { # log out: keep contents/messages
	node -e '
const fs=require("fs");const out=[];
for (const l of fs.readFileSync(process.argv[1],"utf8").split("\n")) {
  if (!l) continue; const r=JSON.parse(l);
  const msgs=r.body.messages&&r.body.messages.map(m=>m.role==="system"?{role:"system",content:"(system prompt dropped)"}:m);
  out.push(JSON.stringify({url:r.url,contents:r.body.contents,messages:msgs}));
}
fs.writeFileSync(process.argv[2],out.join("\n")+"\n");' "$1" "$2"
}
for a in gemini qwen; do
	rm -rf "$ROOT/testdata/$a"
	mkdir -p "$ROOT/testdata/$a"
done
mkdir -p "$ROOT/testdata/gemini/gemini-home" "$ROOT/testdata/qwen/qwen-home"
(cd "$GH" && find .gemini \( -path '*/tmp/*' \( -name '*.json' -o -name '*.jsonl' -o -name .project_root \) -o -name projects.json \) -type f |
	tar -cf - -T - | tar -xf - -C "$ROOT/testdata/gemini/gemini-home")
(cd "$QH" && find .qwen \( -path '*/chats/*' -o -path '*/subagents/*' \) -type f | tar -cf - -T - | tar -xf - -C "$ROOT/testdata/qwen/qwen-home")
slim "$W/gemini-requests.jsonl" "$ROOT/testdata/gemini/requests.jsonl"
slim "$W/qwen-requests.jsonl" "$ROOT/testdata/qwen/requests.jsonl"
cp "$W/gemini-runs.jsonl" "$ROOT/testdata/gemini/runs.jsonl"
cp "$W/qwen-runs.jsonl" "$ROOT/testdata/qwen/runs.jsonl"
echo "wrote testdata/gemini and testdata/qwen"
