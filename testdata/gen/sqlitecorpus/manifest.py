#!/usr/bin/env python3
"""Write manifest.json: where each corpus store came from and what it holds
(read from a temporary copy of each reduced store, never in place)."""
import json, os, shutil, sqlite3, tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(os.path.dirname(here)))
out = []
for line in open(os.path.join(here, "plan.tsv")):
    if line.startswith("#") or not line.strip():
        continue
    fmt, repo, commit, path = line.rstrip("\n").split("\t")
    rel = os.path.join("testdata", "corpus", fmt, repo.replace("/", "+"), path)
    src = os.path.join(root, rel)
    tmp = tempfile.mkdtemp()
    try:
        def count(with_wal):
            d = os.path.join(tmp, "w" if with_wal else "m")
            os.mkdir(d)
            shutil.copy(src, os.path.join(d, "x.db"))
            if with_wal and os.path.exists(src + "-wal"):
                shutil.copy(src + "-wal", os.path.join(d, "x.db-wal"))
            c = sqlite3.connect(os.path.join(d, "x.db"))
            tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            r = {"sessions": 0, "messages": 0}
            if "sessions" in tables:
                r["sessions"] = c.execute("SELECT count(*) FROM sessions").fetchone()[0]
                r["messages"] = c.execute("SELECT count(*) FROM messages").fetchone()[0]
                r["summaries"] = c.execute("SELECT count(*) FROM sessions WHERE ifnull(summary_message_id, '') <> ''").fetchone()[0]
                r["tool_calls"] = c.execute("SELECT count(*) FROM messages, json_each(messages.parts) WHERE json_extract(value, '$.type') = 'tool_call'").fetchone()[0]
                r["tool_results"] = c.execute("SELECT count(*) FROM messages, json_each(messages.parts) WHERE json_extract(value, '$.type') = 'tool_result'").fetchone()[0]
                r["cost"] = c.execute("SELECT ifnull(sum(cost), 0) FROM sessions").fetchone()[0]
            if "goose_db_version" in tables:
                r["schema_version"] = c.execute("SELECT max(version_id) FROM goose_db_version").fetchone()[0]
            c.close()
            return r
        full, main = count(True), count(False)
    finally:
        shutil.rmtree(tmp)
    e = {"format": fmt, "repository": repo, "commit": commit, "path": path, "file": rel,
         "wal": os.path.exists(src + "-wal"), "messages_only_in_wal": full["messages"] - main["messages"]}
    e.update(full)
    out.append(e)
with open(os.path.join(here, "manifest.json"), "w") as f:
    json.dump({"note": "Reduced copies of real crush and Go opencode stores committed to public GitHub repositories (reduce.py says what is kept). The originals are not in this repository.", "stores": out}, f, indent=1)
    f.write("\n")
