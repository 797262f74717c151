#!/usr/bin/env python3
"""Prints requests FROM..TO (0-based line numbers, TO exclusive) of the
scripted model's requests.jsonl, reduced: tools become their names, a system
message its length and SHA-256 prefix (it holds the date and the paths);
the other messages are kept as sent.

usage: reduce_requests.py REQUESTS.jsonl FROM TO
"""
import hashlib
import json
import sys

path, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, encoding="utf-8") as f:
    lines = f.readlines()[lo:hi]
for line in lines:
    r = json.loads(line)
    b = r.get("body")
    if isinstance(b, dict):
        if "tools" in b:
            b["tools"] = [t.get("function", {}).get("name", t.get("name")) for t in b["tools"]]
        for m in b.get("messages", []):
            if m.get("role") == "system" and isinstance(m.get("content"), str):
                c = m["content"].encode()
                m["content"] = "[system prompt: %d bytes, sha256 %s]" % (len(c), hashlib.sha256(c).hexdigest()[:16])
    print(json.dumps(r, ensure_ascii=False, sort_keys=False))
