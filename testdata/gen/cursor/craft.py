#!/usr/bin/env python3
"""Write testdata/cursor/tools/state.vscdb: the reduced urpg_app store of the
corpus with the headers of its composer 21bcf92c… naming every bubble of the
composer (its first header, then the rest in key order), so that its real
tool bubbles (codebase_search, read_file, grep: toolFormerData with call and
result), which the real headers no longer name, are in a transcript.
Crafted from real values: only the header list is changed, and the
images the user attached (context.selectedImages: paths on the user's disk,
which no other format can carry, so an export would be refused) are
dropped from the composer's bubbles.

usage: craft.py CORPUS_DIR OUT.vscdb
"""
import json
import shutil
import sqlite3
import sys

COMPOSER = "21bcf92c-5808-47db-8faa-d847cfad6512"


def main(corpus, out):
    shutil.copyfile(corpus + "/urpg_app/state.vscdb", out)
    db = sqlite3.connect(out)
    key = "composerData:" + COMPOSER
    cd = json.loads(db.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)).fetchone()[0])
    heads = cd["fullConversationHeadersOnly"]
    named = {h["bubbleId"] for h in heads}
    prefix = "bubbleId:" + COMPOSER + ":"
    rest = []
    for k, v in db.execute("SELECT key, value FROM cursorDiskKV WHERE key > ? AND key < ? ORDER BY key", (prefix, prefix[:-1] + ";")):
        bid = k[len(prefix):]
        if bid not in named:
            rest.append({"bubbleId": bid, "type": json.loads(v)["type"]})
    cd["fullConversationHeadersOnly"] = heads[:1] + rest + heads[1:]
    db.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (json.dumps(cd, separators=(",", ":")), key))
    db.execute("UPDATE cursorDiskKV SET value = json_set(value, '$.context.selectedImages', json('[]')) WHERE key > ? AND key < ? "
               "AND json_array_length(value, '$.context.selectedImages') > 0", (prefix, prefix[:-1] + ";"))
    db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
