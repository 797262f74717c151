#!/bin/sh
# Copy the one real goose store found public (testdata/corpus/goose/MANIFEST.md)
# unchanged: it holds one session and no message, no prose to reduce.
# MIRRORS holds a bare clone as MIRRORS/jwp23+dotfiles/repo. Run from the
# module root: sh testdata/gen/goose/copy.sh MIRRORS
set -eu
git="$1/jwp23+dotfiles/repo"
out=testdata/corpus/goose/jwp23+dotfiles/.local/share/goose/sessions
mkdir -p "$out"
git --git-dir="$git" show 47c65d807485aa0e1568623d64e220d784153741:.local/share/goose/sessions/sessions.db >"$out/sessions.db"
