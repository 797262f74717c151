#!/bin/bash
# Writes testdata/opencode/{store,export} with opencode itself (opencode-ai
# 1.18.33) against fake.py, a scripted OpenAI Chat Completions server on
# 127.0.0.1. Run by hand: testdata/gen/opencode/gen.sh [WORK]. Needs npm,
# python3, git and curl; installs opencode into WORK (default a temp dir).
# The store is copied while opencode is not running and before any other
# program opens it (opencode checkpoints the log into the main file when
# it opens the database), so its -wal still holds most commits.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/../../opencode" && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work" && cd "$work"
[ -x node_modules/opencode-linux-x64/bin/opencode ] || npm install --no-audit --no-fund opencode-ai@1.18.33 >/dev/null
OC=$work/node_modules/opencode-linux-x64/bin/opencode
port=18765
python3 "$here/fake.py" $port "$work/requests.log" &
fake=$!
trap 'kill $fake 2>/dev/null' EXIT
rm -rf home proj; mkdir -p home/.config/opencode proj
sed "s/18765/$port/" "$here/opencode.json" > home/.config/opencode/opencode.json
H=$work/home
export HOME=$H XDG_DATA_HOME=$H/.local/share XDG_CONFIG_HOME=$H/.config XDG_CACHE_HOME=$H/.cache XDG_STATE_HOME=$H/.local/state
export OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_DEFAULT_PLUGINS=1
cd proj && git init -q . && echo hello > a.txt
sid() { head -1 "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['sessionID'])"; }
# A: two parallel tools (one fails), reasoning; resumed: a task sub-agent.
$OC run --format json "please use tools now" </dev/null > ../a1.out 2>../a1.err
A=$(sid ../a1.out)
$OC run --session "$A" --format json "now delegate this please" </dev/null > ../a2.out 2>../a2.err
# B: the model call fails (HTTP 400).
$OC run --format json "fail please" </dev/null > ../b.out 2>../b.err || true
# C: tools, a compaction through opencode's own API, a question after it.
$OC run --format json "please use tools now" </dev/null > ../c1.out 2>../c1.err
C=$(sid ../c1.out)
$OC serve --port 4099 </dev/null > ../serve.out 2>&1 &
sp=$!
for _ in $(seq 40); do curl -s -m 4 "http://127.0.0.1:4099/session/$C/message" >/dev/null && break; sleep 2; done
curl -s -m 85 -X POST "http://127.0.0.1:4099/session/$C/summarize" -H 'content-type: application/json' -d '{"providerID":"fake","modelID":"m1"}'; echo
sleep 3; kill $sp; wait $sp 2>/dev/null || true
$OC run --session "$C" --format json "a question after the compaction" </dev/null > ../c2.out 2>../c2.err
# D: opencode killed while the model streams its answer.
$OC run --format json "go slow please" </dev/null > ../d.out 2>../d.err &
dp=$!
for _ in $(seq 120); do grep -q step_start ../d.out 2>/dev/null && break; sleep 1; done
sleep 4; kill -9 $dp; wait $dp 2>/dev/null || true
rm -rf "$out/store" "$out/export"; mkdir -p "$out/store" "$out/export"
cp "$XDG_DATA_HOME/opencode/opencode.db" "$XDG_DATA_HOME/opencode/opencode.db-wal" "$out/store/"
# Now opencode may open it: export every session.
for s in $(python3 - "$out/store/opencode.db" <<'PY'
import sqlite3, shutil, sys, tempfile, os
d = tempfile.mkdtemp()
for suf in ("", "-wal"):
    shutil.copy(sys.argv[1] + suf, os.path.join(d, "db" + suf))
print("\n".join(r[0] for r in sqlite3.connect(os.path.join(d, "db")).execute("select id from session")))
PY
); do
  $OC export "$s" </dev/null > "$out/export/$s.json" 2>/dev/null
done
echo "store and exports written to $out"
