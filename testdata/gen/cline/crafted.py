#!/usr/bin/env python3
"""Write testdata/cline/crafted: hand-made task folders for the cases the
real files do not show (native tool use with thinking, a truncated
history, a task the index lost, damage, Roo Code's files, the XML tool use
of older Cline). Shapes follow Cline's and Roo Code's source (see
jsonlimport/cline/doc.go). usage: crafted.py OUTDIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from reduce import dumps  # JSON.stringify

out = sys.argv[1]
CLINE = os.path.join(out, "saoudrizwan.claude-dev")
ROO = os.path.join(out, "rooveterinaryinc.roo-cline")
MI = {"providerId": "anthropic", "modelId": "claude-sonnet-4-5", "mode": "act"}
ENV = "<environment_details>\n# VSCode Visible Files\n(No visible files)\n\n# Current Mode\nACT MODE\n</environment_details>"


def write(path, value, indent=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(dumps(value, indent))


def req(text, tin, tout, cw, cr, cost):
    return dumps({"request": text, "tokensIn": tin, "tokensOut": tout, "cacheWrites": cw, "cacheReads": cr, "cost": cost})


def ui(ts, typ, kind, text=None, idx=-1, **kw):
    m = {"ts": ts, "type": typ, typ: kind}
    if text is not None:
        m["text"] = text
    m.update(kw)
    m["modelInfo"] = MI
    m["conversationHistoryIndex"] = idx
    return m


# 1. Native tool use, thinking, two requests; in the index.
t1 = "1700000000000"
api1 = [
    {"role": "user", "content": [{"type": "text", "text": "<task>\nList the files and say hi\n</task>"}, {"type": "text", "text": ENV}]},
    {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "I should list the files first.", "signature": "sig-crafted-1"},
        {"type": "text", "text": "Listing the files."},
        {"type": "tool_use", "id": "toolu_01", "name": "execute_command", "input": {"command": "ls", "requires_approval": False}}]},
    {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_01", "content": [{"type": "text", "text": "a.txt\nb.txt"}]},
        {"type": "text", "text": ENV}]},
    {"role": "assistant", "content": [
        {"type": "text", "text": "Two files. Hi!"},
        {"type": "tool_use", "id": "toolu_02", "name": "attempt_completion", "input": {"result": "Two files: a.txt, b.txt. Hi!"}}]},
]
ui1 = [
    ui(1700000000100, "say", "task", "List the files and say hi", images=[], files=[]),
    ui(1700000001000, "say", "api_req_started", req("<task>\nList the files and say hi\n</task>", 10, 120, 3000, 0, 0.0135)),
    ui(1700000003000, "say", "reasoning", "I should list the files first.", 0, partial=False),
    ui(1700000003500, "say", "text", "Listing the files.", 0, partial=False),
    ui(1700000004000, "say", "command", "ls", 1),
    ui(1700000005000, "ask", "command_output", "a.txt\nb.txt", 1),
    ui(1700000006000, "say", "api_req_started", req("[execute_command for 'ls'] Result:\na.txt\nb.txt", 12, 40, 0, 3000, 0.0015), 1),
    ui(1700000008000, "say", "completion_result", "Two files: a.txt, b.txt. Hi!", 3, partial=False),
    ui(1700000008100, "ask", "completion_result", "", 3),
]
write(os.path.join(CLINE, "tasks", t1, "api_conversation_history.json"), api1)
write(os.path.join(CLINE, "tasks", t1, "ui_messages.json"), ui1)
write(os.path.join(CLINE, "tasks", t1, "task_metadata.json"), {
    "files_in_context": [],
    "model_usage": [{"ts": 1700000000500, "model_id": "claude-sonnet-4-5", "model_provider_id": "anthropic", "mode": "act"}],
    "environment_history": [{"ts": 1700000000400, "os_name": "linux", "os_version": "6", "os_arch": "x64", "host_name": "Visual Studio Code", "host_version": "1.100.0", "cline_version": "3.30.0"}]}, 2)

# 2. A truncated history: conversationHistoryDeletedRange [2, 3] leaves
# messages 2 and 3 out of what Cline sends; not in the index.
t2 = "1700000100000"
api2 = []
ui2 = [ui(1700000100100, "say", "task", "Count to three slowly", images=[], files=[])]
for i in range(3):
    api2.append({"role": "user", "content": [{"type": "text", "text": ("<task>\nCount to three slowly\n</task>" if i == 0 else "[ERROR] You did not use a tool in your previous response! Please retry with a tool use.")}, {"type": "text", "text": ENV}]})
    api2.append({"role": "assistant", "content": [{"type": "text", "text": "Number %d." % (i + 1)}]})
    ui2.append(ui(1700000101000 + 10000 * i, "say", "api_req_started", req("count %d" % i, 100 * (i + 1), 5, 0, 0, 0.001 * (i + 1)), 2 * i - 1,
                  **({"conversationHistoryDeletedRange": [2, 3]} if i == 2 else {})))
    ui2.append(ui(1700000102000 + 10000 * i, "say", "text", "Number %d." % (i + 1), 2 * i, partial=False))
write(os.path.join(CLINE, "tasks", t2, "api_conversation_history.json"), api2)
write(os.path.join(CLINE, "tasks", t2, "ui_messages.json"), ui2)

# 3. Damage: the API history is cut short in its third message.
t3 = "1700000200000"
api3 = dumps(api1)
cut = api3.index('{"role":"user","content":[{"type":"tool_result"') + 40
os.makedirs(os.path.join(CLINE, "tasks", t3), exist_ok=True)
with open(os.path.join(CLINE, "tasks", t3, "api_conversation_history.json"), "w", encoding="utf-8") as f:
    f.write(api3[:cut])
write(os.path.join(CLINE, "tasks", t3, "ui_messages.json"), [dict(m, ts=m["ts"] + 200000) for m in ui1[:4]])

# 4. Older Cline: tools as XML in the assistant's text, results as text.
t4 = "1700000300000"
api4 = [
    {"role": "user", "content": [{"type": "text", "text": "<task>\nShow the readme\n</task>"}, {"type": "text", "text": ENV}]},
    {"role": "assistant", "content": [{"type": "text", "text": "<thinking>\nI will read it.\n</thinking>\n\n<read_file>\n<path>README.md</path>\n</read_file>"}]},
    {"role": "user", "content": [{"type": "text", "text": "[read_file for 'README.md'] Result:"}, {"type": "text", "text": "# Demo\nHello."}, {"type": "text", "text": ENV}]},
    {"role": "assistant", "content": [{"type": "text", "text": "<attempt_completion>\n<result>\nThe readme says Hello.\n</result>\n</attempt_completion>"}]},
]
ui4 = [
    ui(1700000300100, "say", "task", "Show the readme", images=[]),
    ui(1700000301000, "say", "api_req_started", req("<task>\nShow the readme\n</task>", 900, 60, None, None, 0.0036)),
    ui(1700000302000, "say", "tool", dumps({"tool": "readFile", "path": "README.md", "content": "/p/README.md"}), 1),
    ui(1700000303000, "say", "api_req_started", req("[read_file for 'README.md'] Result:", 1000, 30, None, None, 0.0034), 1),
    ui(1700000304000, "say", "completion_result", "The readme says Hello.", 3),
]
for m in ui4:
    m.pop("modelInfo")
write(os.path.join(CLINE, "tasks", t4, "api_conversation_history.json"), api4)
write(os.path.join(CLINE, "tasks", t4, "ui_messages.json"), ui4)

# The index: task 1 and task 4 (task 2 and 3 are on disk only).
write(os.path.join(CLINE, "state", "taskHistory.json"), [
    {"id": t1, "ts": 1700000008100, "task": "List the files and say hi", "tokensIn": 22, "tokensOut": 160, "cacheWrites": 3000, "cacheReads": 3000, "totalCost": 0.015, "size": 4000, "cwdOnTaskInitialization": "/home/u/proj", "modelId": "claude-sonnet-4-5"},
    {"id": t4, "ts": 1700000304000, "task": "Show the readme", "tokensIn": 1900, "tokensOut": 90, "totalCost": 0.007, "cwdOnTaskInitialization": "/home/u/docs"},
], 2)

# 5. Roo Code: messages with ts, a reasoning item, history_item.json.
t5 = "0b6a3c55-1f0e-4d7e-9a51-2f3c4d5e6f70"
api5 = [
    {"role": "user", "content": [{"type": "text", "text": "<task>\nExplain the build\n</task>"}, {"type": "text", "text": ENV}], "ts": 1700000400200},
    {"type": "reasoning", "summary": [{"type": "summary_text", "text": "The user wants the build explained."}], "encrypted_content": "enc-crafted", "id": "rs_1", "ts": 1700000401000},
    {"role": "assistant", "content": [{"type": "text", "text": "The build runs make."}], "ts": 1700000401500},
]
ui5 = [
    {"ts": 1700000400100, "type": "say", "say": "text", "text": "Explain the build", "images": []},
    {"ts": 1700000400300, "type": "say", "say": "api_req_started", "text": dumps({"apiProtocol": "openai", "tokensIn": 500, "tokensOut": 40, "cacheWrites": 0, "cacheReads": 100, "cost": 0.002})},
    {"ts": 1700000401500, "type": "say", "say": "text", "text": "The build runs make.", "partial": False},
    {"ts": 1700000401600, "type": "ask", "ask": "completion_result", "text": ""},
]
write(os.path.join(ROO, "tasks", t5, "api_conversation_history.json"), api5)
write(os.path.join(ROO, "tasks", t5, "ui_messages.json"), ui5)
write(os.path.join(ROO, "tasks", t5, "history_item.json"), {"id": t5, "number": 1, "ts": 1700000401600, "task": "Explain the build", "tokensIn": 500, "tokensOut": 40, "cacheWrites": 0, "cacheReads": 100, "totalCost": 0.002, "size": 2000, "workspace": "/home/u/app", "mode": "code"}, 2)
