#!/bin/sh
# Rebuild testdata/corpus/cursor from plan.tsv: each store is taken from a
# clone of its repository at the commit named (MIRRORS holds the clones as
# owner+name/repo git directories) and reduced by reduce.py into
# <name>/state.vscdb.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=$here/../../corpus/cursor
MIRRORS=${MIRRORS:-/work/.mirror}
grep -v '^#' "$here/plan.tsv" | while IFS='	' read -r name repo commit path what; do
	tmp=$(mktemp)
	git -C "$MIRRORS/$(echo "$repo" | tr / +)/repo" show "$commit:$path" >"$tmp"
	mkdir -p "$out/$name"
	rm -f "$out/$name/state.vscdb"
	python3 "$here/reduce.py" "$tmp" "$out/$name/state.vscdb"
	rm -f "$tmp"
done
# The crafted store of the cross-format export test (craft.py says what).
mkdir -p "$here/../../cursor/tools"
rm -f "$here/../../cursor/tools/state.vscdb"
python3 "$here/craft.py" "$out" "$here/../../cursor/tools/state.vscdb"
