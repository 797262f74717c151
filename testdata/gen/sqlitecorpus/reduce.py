#!/usr/bin/env python3
"""Reduce a real crush / Go opencode store into a corpus file.

usage: reduce.py ORIGINAL.db OUT.db

ORIGINAL.db is a store as committed (its -wal beside it, if any). OUT.db
(and OUT.db-wal when the original's log holds commits its main file does
not) keeps the schema, every id, time, model, provider, token count and
cost, every part's type and every tool name, call id, finish reason and
error flag (prose longer than CAP characters is cut to CAP); the files table (file history, which the importer does not
read) keeps its ids, versions and times, its paths become "file-<id>"
and its contents are emptied. Prose is replaced by placeholder text of the same length
(each non-space character becomes 'x'): message text, thinking, tool
output, finish messages, session titles, and the
string values inside tool inputs and result metadata (kept valid JSON).

The WAL case: the main file alone is reduced and VACUUMed into OUT.db;
then the rows the original's log adds, changes or deletes are applied to
it in WAL mode with checkpoints off, and OUT.db and OUT.db-wal are copied
while that connection is still open, so OUT.db-wal holds commits OUT.db
does not, as the original did. The original is never opened in place: it
is copied to a temporary directory first.
"""
import json, os, re, shutil, sqlite3, sys, tempfile

KEEP_KEYS = {"id", "tool_call_id", "name", "type", "reason", "mime_type", "detail", "signature"}


# Placeholders are cut at CAP characters: the stores are mostly tool
# output, and keeping its length would keep the corpus megabytes large.
CAP = 160


def prose(s):
    return re.sub(r"\S", "x", s[:CAP]) if isinstance(s, str) else s


def deep(v):
    if isinstance(v, str):
        return prose(v)
    if isinstance(v, list):
        return [deep(x) for x in v]
    if isinstance(v, dict):
        return {k: deep(x) for k, x in v.items()}
    return v


def json_text(s):
    try:
        v = json.loads(s)
    except Exception:
        return prose(s)
    return json.dumps(deep(v))


def parts(s):
    try:
        ps = json.loads(s)
    except Exception:
        return prose(s)
    for p in ps:
        d = p.get("data")
        if not isinstance(d, dict):
            continue
        for k, v in list(d.items()):
            if k in KEEP_KEYS or not isinstance(v, str):
                continue
            if k in ("input", "metadata"):
                d[k] = json_text(v)
            else:
                d[k] = prose(v)
    return json.dumps(ps, separators=(",", ":"))


def reduce_row(table, cols, row):
    r = dict(zip(cols, row))
    if table == "sessions":
        r["title"] = prose(r["title"])
    elif table == "messages":
        r["parts"] = parts(r["parts"])
    elif table == "files":
        # File history the importer does not read: ids, versions and
        # times kept, the path made a unique placeholder, the content
        # emptied.
        r["content"] = ""
        r["path"] = "file-" + str(r["id"])
    return [r[c] for c in cols]


TABLES = ("sessions", "messages", "files")


def rows(db, table):
    cur = db.execute(f"SELECT * FROM {table}")
    cols = [d[0] for d in cur.description]
    return cols, {r[0]: r for r in cur.fetchall()}


def main(src, out):
    tmp = tempfile.mkdtemp()
    try:
        full, main_only = os.path.join(tmp, "full.db"), os.path.join(tmp, "main.db")
        shutil.copy(src, full)
        shutil.copy(src, main_only)
        if os.path.exists(src + "-wal"):
            shutil.copy(src + "-wal", full + "-wal")
        a = sqlite3.connect(main_only)
        b = sqlite3.connect(full)
        names = {r[0] for r in b.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        mnames = {r[0] for r in a.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        for t in TABLES:
            if t in mnames:
                cols, rs = rows(a, t)
                for k, r in rs.items():
                    a.execute(f"UPDATE {t} SET " + ",".join(f"{c}=?" for c in cols) + " WHERE id=?", reduce_row(t, cols, r) + [k])
        a.commit()
        for p in (out, out + "-wal", out + "-shm"):
            if os.path.exists(p):
                os.remove(p)
        a.execute("VACUUM INTO ?", (out,))
        # What the log adds.
        diffs = []
        for t in TABLES:
            if t not in names:
                continue
            cols, after = rows(b, t)
            before = rows(a, t)[1] if t in mnames else {}
            for k, r in after.items():
                rr = reduce_row(t, cols, r)
                if k not in before or list(before[k]) != rr:
                    diffs.append((t, cols, rr, None))
            for k in before:
                if k not in after:
                    diffs.append((t, cols, None, k))
        a.close()
        b.close()
        if diffs and names == mnames:
            o = sqlite3.connect(out, isolation_level=None)
            o.execute("PRAGMA journal_mode=WAL")
            o.execute("PRAGMA wal_autocheckpoint=0")
            o.execute("PRAGMA foreign_keys=OFF")
            # The triggers would rewrite counts and times: off while the
            # original's rows are written as they are.
            trig = o.execute("SELECT name, sql FROM sqlite_master WHERE type='trigger'").fetchall()
            o.execute("BEGIN")
            for n, _ in trig:
                o.execute(f"DROP TRIGGER {n}")
            o.execute("COMMIT")
            o.execute("BEGIN")
            for t, cols, r, gone in diffs:
                if gone is not None:
                    o.execute(f"DELETE FROM {t} WHERE id=?", (gone,))
                else:
                    o.execute(f"INSERT OR REPLACE INTO {t} (" + ",".join(cols) + ") VALUES (" + ",".join("?" * len(cols)) + ")", r)
            for _, sql in trig:
                o.execute(sql)
            o.execute("COMMIT")
            keep = tempfile.mkdtemp()
            shutil.copy(out, os.path.join(keep, "db"))
            shutil.copy(out + "-wal", os.path.join(keep, "wal"))
            o.close()
            shutil.move(os.path.join(keep, "db"), out)
            shutil.move(os.path.join(keep, "wal"), out + "-wal")
            shutil.rmtree(keep)
            if os.path.exists(out + "-shm"):
                os.remove(out + "-shm")
        elif diffs:
            # Tables only in the log: the whole state goes into the main file.
            o = sqlite3.connect(out)
            o.close()
            os.remove(out)
            c = sqlite3.connect(full)
            for t in TABLES:
                if t in names:
                    cols, rs = rows(c, t)
                    for k, r in rs.items():
                        c.execute(f"UPDATE {t} SET " + ",".join(f"{x}=?" for x in cols) + " WHERE id=?", reduce_row(t, cols, r) + [k])
            c.commit()
            c.execute("VACUUM INTO ?", (out,))
            c.close()
        print(f"{src} -> {out}: {len(diffs)} rows only in the log")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
