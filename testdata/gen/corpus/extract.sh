#!/bin/sh
# extract.sh copies the original files listed in plan.tsv out of local git
# snapshots of their public repositories, into ORIG (default
# /work/corpus-originals/files), keeping each repository's paths:
#   ORIG/<owner>+<name>/<path in the repository>
# A snapshot of owner/name is expected at MIRROR/<owner>+<name>/repo
# (default MIRROR=/work/.mirror, where the search tool's fetch puts them).
# The originals are personal transcripts: they stay outside the repository.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
MIRROR=${MIRROR:-/work/.mirror}
ORIG=${ORIG:-/work/corpus-originals/files}
grep -v '^#' "$here/plan.tsv" | while IFS='	' read -r kind repo commit path; do
	dir="$MIRROR/$(echo "$repo" | tr / +)/repo"
	out="$ORIG/$(echo "$repo" | tr / +)/$path"
	[ -f "$out" ] && continue
	mkdir -p "$(dirname "$out")"
	git -C "$dir" show "$commit:$path" > "$out.tmp"
	mv "$out.tmp" "$out"
done
echo "originals in $ORIG"
