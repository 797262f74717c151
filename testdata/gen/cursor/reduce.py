#!/usr/bin/env python3
"""Reduce a Cursor state.vscdb for the corpus (testdata/corpus/cursor).

usage: reduce.py SRC.vscdb DST.vscdb

Kept: the SQLite schema (ItemTable and cursorDiskKV as Cursor creates
them), every composerData:* and bubbleId:* row of cursorDiskKV (NULL
values too), and ItemTable's composer.composerData and the chat pane's
workbench.panel.aichat.view.aichat.chatdata. Dropped: every other row
(editor state, checkpoints, request contexts, inline diffs, the
aiService prompt lists), which the reader never reads.

In the kept JSON values every string is replaced by deterministic filler
of the same length (words chosen by a hash of the original), except:
strings under keys that carry structure (ids, types, statuses, tool and
model names, modes, versions) and short tokens without spaces (uuids,
enums, numbers as text). A string that is itself JSON (rawArgs, params,
result, richText, additionalData) is reduced inside and written back as
JSON. Keys that are paths or URIs (codeBlockData's files) are replaced by
a hash of them; account names (repoOwner) by filler. Numbers, booleans, nulls, keys and the order of keys are kept:
ids, token counts, timings and times are the originals.
"""
import hashlib
import json
import re
import shutil
import sqlite3
import sys

KEEP_KEYS = {
    "bubbleId", "composerId", "serverBubbleId", "toolCallId", "modelCallId",
    "usageUuid", "requestId", "checkpointId", "latestChatGenerationUUID",
    "type", "status", "name_tool", "unifiedMode", "forceMode", "modelName",
    "tool", "toolIndex", "capabilityType", "_v", "uuid", "selectedComposerId",
}
TOKEN = re.compile(r"[A-Za-z0-9_.:|+\-]{0,64}")
# Account names that look like tokens.
PRIVATE_KEYS = {"repoOwner"}
WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod "
         "tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam "
         "quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo").split()


def filler(s):
    """Deterministic words of len(s) characters (newlines kept)."""
    out = []
    for li, line in enumerate(s.split("\n")):
        h = hashlib.sha256((str(li) + line).encode()).digest()
        words, n, i = [], 0, 0
        while n < len(line):
            w = WORDS[h[i % len(h)] % len(WORDS)]
            i += 1
            words.append(w)
            n += len(w) + 1
        out.append(" ".join(words)[: len(line)])
    return "\n".join(out)


def reduce_key(k):
    """A key that is a path or URI (codeBlockData's files) names the
    user's files: replaced by a hash of it."""
    if "/" in k or "\\" in k:
        return "file:///redacted/" + hashlib.sha256(k.encode()).hexdigest()[:12]
    return k


def reduce_value(v, key=None, parent=None):
    if isinstance(v, dict):
        return {reduce_key(k): reduce_value(x, k, v) for k, x in v.items()}
    if isinstance(v, list):
        return [reduce_value(x, key, parent) for x in v]
    if not isinstance(v, str):
        return v
    if key in KEEP_KEYS:
        return v
    if key in PRIVATE_KEYS:
        return filler(v)
    # A tool's name (toolFormerData.name) is structure; a composer's name
    # is its title, prose.
    if key == "name" and isinstance(parent, dict) and "toolCallId" in parent:
        return v
    if TOKEN.fullmatch(v):
        return v
    st = v.strip()
    if st[:1] in "{[" and st[-1:] in "}]":
        try:
            inner = json.loads(v)
        except ValueError:
            pass
        else:
            return json.dumps(reduce_value(inner), ensure_ascii=False, separators=(",", ":"))
    return filler(v)


def reduce_json(raw):
    if raw is None:
        return None
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8")
    return json.dumps(reduce_value(json.loads(raw)), ensure_ascii=False, separators=(",", ":"))


def main(src, dst):
    shutil.copyfile(src, dst)
    db = sqlite3.connect(dst)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "cursorDiskKV" in tables:
        db.execute("DELETE FROM cursorDiskKV WHERE key NOT LIKE 'composerData:%' AND key NOT LIKE 'bubbleId:%'")
        for key, val in db.execute("SELECT key, value FROM cursorDiskKV").fetchall():
            db.execute("UPDATE cursorDiskKV SET value = ? WHERE key = ?", (reduce_json(val), key))
    if "ItemTable" in tables:
        db.execute("DELETE FROM ItemTable WHERE key NOT IN ('composer.composerData', 'workbench.panel.aichat.view.aichat.chatdata')")
        for key, val in db.execute("SELECT key, value FROM ItemTable").fetchall():
            db.execute("UPDATE ItemTable SET value = ? WHERE key = ?", (reduce_json(val), key))
    db.commit()
    db.execute("VACUUM")
    db.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
