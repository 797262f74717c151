#!/usr/bin/env python3
"""Resume a Cline CLI 3 session headless, through the Agent Client Protocol.

`cline --id SID` only opens the interactive TUI in CLI 3.0.65 (it drops the
prompt argument and refuses --json), so a scripted resume speaks ACP to
`cline --acp` on stdin/stdout: initialize, session/load (the CLI reads the
session back from its store), session/prompt, then closes stdin.

usage: acp_resume.py CLINE SESSION_ID CWD PROMPT  (prints the JSON-RPC traffic)
"""
import json
import subprocess
import sys
import threading
import queue

cline, sid, cwd, prompt = sys.argv[1:5]
p = subprocess.Popen([cline, "--acp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=cwd)
replies = queue.Queue()


def reader():
    for line in p.stdout:
        line = line.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            msg = json.loads(line)
        except ValueError:
            print("non-JSON:", line[:200], file=sys.stderr)
            continue
        print(json.dumps(msg, ensure_ascii=False)[:2000], flush=True)
        if "method" in msg and "id" in msg:
            # A request of the agent's (a permission): allow it.
            opts = msg.get("params", {}).get("options", [])
            oid = next((o["optionId"] for o in opts if o.get("kind", "").startswith("allow")), opts[0]["optionId"] if opts else "allow")
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {"outcome": {"outcome": "selected", "optionId": oid}}})
        elif "id" in msg:
            replies.put(msg)
    replies.put(None)


def send(msg):
    p.stdin.write((json.dumps(msg) + "\n").encode())
    p.stdin.flush()


def call(i, method, params):
    send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
    r = replies.get(timeout=180)
    if r is None or "error" in r:
        print("failed:", method, r, file=sys.stderr)
        p.stdin.close()
        p.wait(timeout=30)
        sys.exit(1)
    return r


threading.Thread(target=reader, daemon=True).start()
call(1, "initialize", {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}})
call(2, "session/load", {"sessionId": sid, "cwd": cwd, "mcpServers": []})
call(3, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": prompt}]})
p.stdin.close()
try:
    p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.terminate()
    p.wait(timeout=30)
sys.exit(0)
