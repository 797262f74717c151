#!/bin/bash
# Writes testdata/opencode/legacy/storage with opencode-ai 1.1.65 (the JSON
# storage/ tree opencode kept before its SQLite store) against fake.py. Run
# by hand: testdata/gen/opencode/gen_old.sh [WORK].
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/../../opencode" && pwd)
work=${1:-$(mktemp -d)}
mkdir -p "$work" && cd "$work"
[ -x node_modules/opencode-linux-x64/bin/opencode ] || npm install --no-audit --no-fund opencode-ai@1.1.65 >/dev/null
OC=$work/node_modules/opencode-linux-x64/bin/opencode
port=18766
python3 "$here/fake.py" $port "$work/requests.log" &
fake=$!
trap 'kill $fake 2>/dev/null' EXIT
rm -rf home proj; mkdir -p home/.config/opencode proj
sed "s/18765/$port/" "$here/opencode.json" > home/.config/opencode/opencode.json
H=$work/home
export HOME=$H XDG_DATA_HOME=$H/.local/share XDG_CONFIG_HOME=$H/.config XDG_CACHE_HOME=$H/.cache XDG_STATE_HOME=$H/.local/state
export OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_DEFAULT_PLUGINS=1
cd proj && git init -q . && echo hello > a.txt && git add a.txt && git -c user.email=a@b -c user.name=x commit -qm init
sid() { grep -m1 sessionID "$1" | python3 -c "import json,sys; print(json.loads(sys.stdin.readline())['sessionID'])"; }
$OC run --format json "please use tools now" </dev/null > ../a1.out 2>../a1.err
A=$(sid ../a1.out)
$OC run --session "$A" --format json "now delegate this please" </dev/null > ../a2.out 2>../a2.err
$OC run --format json "fail please" </dev/null > ../b.out 2>../b.err || true
rm -rf "$out/legacy"; mkdir -p "$out/legacy"
cp -r "$XDG_DATA_HOME/opencode/storage" "$out/legacy/"
echo "storage tree written to $out/legacy"
