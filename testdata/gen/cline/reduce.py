#!/usr/bin/env python3
"""Reduce a real Cline ui_messages.json for testdata/cline/corpus.

usage: reduce.py IN OUT [--indent N]

Structure is kept: every message, its keys in order, ts, type, say/ask,
partial, modelInfo, conversationHistoryIndex, lastCheckpointHash, the
numbers of JSON texts (tokensIn, tokensOut, cacheWrites, cacheReads, cost,
...) and the short identifiers in them (tool, path, modelId, ...). Prose is
replaced deterministically: a string longer than six words keeps its first
six words and is followed by a marker with its length and the first 8 hex
digits of its SHA-256. Images become a fixed tiny data URL. The output is
written as JSON.stringify writes it (compact; --indent N: as
JSON.stringify(v, null, N)).
"""
import hashlib
import json
import math
import sys

KEEP_KEYS = {"tool", "path", "modelId", "providerId", "mode", "cancelReason", "type", "say", "ask",
             "lastCheckpointHash", "operationIsLocatedInWorkspace", "serverName", "toolName", "uri"}
TINY_PNG = "data:image/png;base64,iVBORw0KGgo="


def reduce_prose(s):
    words = s.split()
    if len(words) <= 6:
        return s
    h = hashlib.sha256(s.encode("utf-8")).hexdigest()[:8]
    return " ".join(words[:6]) + " [reduced: %d chars, sha256 %s]" % (len(s), h)


def js_number(x):
    """A float as JavaScript's Number.prototype.toString writes it."""
    if isinstance(x, bool) or isinstance(x, int):
        return json.dumps(x)
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == int(x) and abs(x) < 1e21:
        return str(int(x))
    r = repr(x)
    if "e" not in r:
        return r
    mant, exp = r.split("e")
    e = int(exp)
    if -7 < e < 21:
        return format(x, "f").rstrip("0").rstrip(".") if e < 0 else str(int(x))
    return mant + "e" + ("+" if e > 0 else "-") + str(abs(e))


def dumps(v, indent=None, level=0):
    """JSON.stringify(v, null, indent)."""
    nl = lambda l: ("\n" + " " * (indent * l)) if indent else ""
    if isinstance(v, dict):
        if not v:
            return "{}"
        sep = ": " if indent else ":"
        items = [nl(level + 1) + json.dumps(k, ensure_ascii=False) + sep + dumps(x, indent, level + 1) for k, x in v.items()]
        return "{" + ",".join(items) + nl(level) + "}"
    if isinstance(v, list):
        if not v:
            return "[]"
        return "[" + ",".join(nl(level + 1) + dumps(x, indent, level + 1) for x in v) + nl(level) + "]"
    if isinstance(v, float) or (isinstance(v, int) and not isinstance(v, bool)):
        return js_number(v)
    return json.dumps(v, ensure_ascii=False)


def reduce_value(v, key=None):
    if isinstance(v, dict):
        return {k: reduce_value(x, k) for k, x in v.items()}
    if isinstance(v, list):
        return [reduce_value(x, key) for x in v]
    if isinstance(v, str):
        if key in KEEP_KEYS:
            return v
        if v.startswith("data:image/"):
            return TINY_PNG
        return reduce_prose(v)
    return v


def reduce_message(m):
    out = {}
    for k, v in m.items():
        if k == "text" and isinstance(v, str):
            try:
                inner = json.loads(v)
            except ValueError:
                inner = None
            if isinstance(inner, dict):
                out[k] = dumps(reduce_value(inner))
            else:
                out[k] = reduce_prose(v)
        elif k in ("images",) and isinstance(v, list):
            out[k] = [TINY_PNG for _ in v]
        elif k in ("reasoning", "files"):
            out[k] = reduce_value(v, k)
        else:
            out[k] = v
    return out


def main():
    src, dst = sys.argv[1], sys.argv[2]
    indent = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--indent" else None
    with open(src, encoding="utf-8") as f:
        msgs = json.load(f)
    out = [reduce_message(m) for m in msgs]
    with open(dst, "w", encoding="utf-8") as f:
        f.write(dumps(out, indent))


if __name__ == "__main__":
    main()
