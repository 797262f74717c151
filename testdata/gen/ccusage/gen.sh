#!/bin/sh
# gen.sh writes testdata/corpus/ccusage/*.json: the answers of ccusage (the
# release pinned in package.json, the native build that npm serves) on the
# reduced corpus. Run by hand from anywhere:
#   testdata/gen/ccusage/gen.sh
# It needs node/npm (npm install here installs ccusage and its native binary)
# and no network beyond npm: --offline makes ccusage use the prices built into
# it. npm install, not npm ci: npm writes a lock without the native builds of
# other platforms (npm/cli#4828), and npm ci then refuses it as out of sync;
# install keeps to the lock's versions and leaves it unchanged (--no-save).
# Reports group days in UTC. HOME points to an empty folder so that nothing
# from the machine's own ~/.claude, ~/.codex or ccusage config is read.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out="$root/testdata/corpus/ccusage"
cd "$here"
[ -x node_modules/.bin/ccusage ] || npm install --no-save --no-audit --no-fund >/dev/null
mkdir -p "$out"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
cc() {
	env -i PATH="$PATH" HOME="$home" TZ=UTC NO_COLOR=1 \
		CLAUDE_CONFIG_DIR="$root/testdata/corpus/claude-code" \
		CODEX_HOME="$root/testdata/corpus/codex" \
		"$here/node_modules/.bin/ccusage" "$@"
}
cc --version > "$out/VERSION"
for report in daily monthly session; do
	cc claude "$report" --json --offline --timezone UTC --mode auto --breakdown --single-thread \
		> "$out/claude-$report.json"
	cc codex "$report" --json --offline --timezone UTC \
		> "$out/codex-$report.json"
done
echo "wrote $out"
