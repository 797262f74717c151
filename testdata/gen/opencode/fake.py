import json, sys, time, http.server, threading, os
LOG = open(sys.argv[2], 'a')
def chunk(d): return ("data: " + json.dumps(d) + "\n\n").encode()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def do_GET(self):
        self.send_response(404); self.send_header("Content-Length","0"); self.end_headers()
    def do_POST(self):
        n = int(self.headers.get('Content-Length', 0)); body = json.loads(self.rfile.read(n) or b'{}')
        LOG.write(json.dumps({"path": self.path, "body": body}) + "\n"); LOG.flush()
        msgs = body.get("messages", [])
        last = msgs[-1] if msgs else {}
        sysmsg = " ".join(m.get("content","") if isinstance(m.get("content"),str) else json.dumps(m.get("content")) for m in msgs if m.get("role")=="system")
        def text_of(m):
            c = m.get("content")
            if isinstance(c, str): return c
            if isinstance(c, list): return " ".join(x.get("text","") for x in c if isinstance(x, dict))
            return ""
        lt = text_of(last)
        reasoning = None; text = None; calls = []
        if "fail please" in lt and last.get("role") == "user":
            b = json.dumps({"error": {"message": "bad request from fake", "type": "invalid_request_error"}}).encode()
            self.send_response(400); self.send_header("Content-Type","application/json"); self.send_header("Content-Length", str(len(b))); self.end_headers(); self.wfile.write(b); return
        slow = "go slow" in lt and last.get("role") == "user" and len(body.get("tools") or []) > 0
        if "title" in sysmsg.lower() and len(body.get("tools") or []) == 0:
            text = "Fake title for the session"
        elif "summarization agent" in sysmsg or "What did we do so far" in lt:
            text = "Summary: we ran tools and delegated a sub job."
        elif last.get("role") == "tool":
            text = "All tools finished. Résumé: done ✓"
        elif "delegate" in lt:
            calls = [("call_task1", "task", json.dumps({"description":"sub job","prompt":"Say hello from the sub-agent","subagent_type":"general"}))]
            text = "Delegating."
        elif "use tools" in lt:
            reasoning = "I should run two tools in parallel."
            text = "Running two tools."
            calls = [("call_a1", "bash", json.dumps({"command":"echo hello","description":"echo"})),
                     ("call_b2", "read", json.dumps({"filePath": os.getcwd()+"/nonexistent.txt"}))]
        else:
            text = "Plain answer to: " + lt[:40]
        self.send_response(200)
        self.send_header("Content-Type","text/event-stream"); self.send_header("Cache-Control","no-cache")
        self.send_header("Transfer-Encoding","chunked"); self.end_headers()
        def w(b):
            self.wfile.write(b"%x\r\n" % len(b) + b + b"\r\n"); self.wfile.flush()
        base = {"id":"chatcmpl-1","object":"chat.completion.chunk","created":int(time.time()),"model":body.get("model")}
        def ch(delta, fin=None, usage=None):
            d = dict(base); d["choices"] = [{"index":0,"delta":delta,"finish_reason":fin}]
            if usage: d["usage"] = usage
            w(chunk(d))
        ch({"role":"assistant","content":""})
        if reasoning: ch({"reasoning_content": reasoning})
        if text: ch({"content": text})
        if slow:
            for i in range(60):
                time.sleep(1); ch({"content": " ."})
        for i,(cid,name,args) in enumerate(calls):
            ch({"tool_calls":[{"index":i,"id":cid,"type":"function","function":{"name":name,"arguments":args}}]})
        usage = {"prompt_tokens": 1000+len(json.dumps(msgs))//10, "completion_tokens": 50, "total_tokens": 0,
                 "prompt_tokens_details": {"cached_tokens": 200}, "completion_tokens_details": {"reasoning_tokens": 7 if reasoning else 0}}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        ch({}, "tool_calls" if calls else "stop")
        d = dict(base); d["choices"] = []; d["usage"] = usage; w(chunk(d))
        w(b"data: [DONE]\n\n"); w(b"")
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
