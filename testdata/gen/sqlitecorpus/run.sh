#!/bin/sh
# Regenerate testdata/corpus/{crush,opencode-go} from the originals listed
# in plan.tsv. MIRRORS is a folder holding a bare clone of each repository
# as MIRRORS/<owner>+<name>/repo (git clone --bare). Run from the module
# root: sh testdata/gen/sqlitecorpus/run.sh MIRRORS
set -eu
mirrors=$1
here=testdata/gen/sqlitecorpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' $here/plan.tsv | while IFS='	' read -r format repo commit path; do
	slug=$(echo "$repo" | tr / +)
	git="$mirrors/$slug/repo"
	mkdir -p "$tmp/$slug"
	db="$tmp/$slug/$(basename "$path")"
	git --git-dir="$git" show "$commit:$path" >"$db"
	git --git-dir="$git" show "$commit:$path-wal" >"$db-wal" 2>/dev/null || rm -f "$db-wal"
	out="testdata/corpus/$format/$slug/$(dirname "$path")"
	rm -rf "testdata/corpus/$format/$slug"
	mkdir -p "$out"
	python3 $here/reduce.py "$db" "$out/$(basename "$path")"
done
python3 $here/manifest.py
