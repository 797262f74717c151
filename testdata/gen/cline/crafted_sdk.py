#!/usr/bin/env python3
"""Writes testdata/cline/sdk-crafted: Cline SDK sessions (sessions/<id>/)
for what the CLI's own runs do not show, after the SDK's source
(@cline/core 0.0.86: SessionManifestSchema, SessionCompactionStateSchema,
projectSessionCompactionState; @cline/shared MessageWithMetadata):

  1700000400000_cmpct  a compaction state without a source_prefix_hash (its
                       source_last_message_key decides; 4 source messages replaced by a
                       summary), a display-only message, metrics with a cost,
                       an image and a <user_input> envelope
  1700000500000_cut    a messages file cut short
  1700000600000_stale  a compaction state made from other messages (its
                       source_last_message_key names no message here): Cline
                       does not apply it

Crafted, not written by Cline. usage: crafted_sdk.py OUTDIR
"""
import json
import os
import sys

out = sys.argv[1]


def write(sid, messages, manifest=None, compaction=None, cut=None):
    d = os.path.join(out, "sessions", sid)
    os.makedirs(d, exist_ok=True)
    doc = {"version": 1, "updated_at": "2023-11-14T22:20:00.000Z", "agent": "lead", "sessionId": sid,
           "messages": messages, "system_prompt": "You are Cline (crafted)."}
    text = json.dumps(doc, indent=2, ensure_ascii=False)
    if cut:
        text = text[:cut]
    with open(os.path.join(d, sid + ".messages.json"), "w", encoding="utf-8") as f:
        f.write(text)
    if manifest:
        m = {"version": 1, "session_id": sid, "source": "cli", "pid": 1, "started_at": "2023-11-14T22:13:20.000Z",
             "ended_at": "2023-11-14T22:20:00.000Z", "exit_code": 0, "status": "completed", "interactive": False,
             "provider": "anthropic", "model": "claude-sonnet-4-5", "cwd": "/work/project", "workspace_root": "/work/project",
             "enable_tools": True, "enable_spawn": False, "enable_teams": False, "prompt": manifest,
             "metadata": {"title": manifest}, "messages_path": "/home/u/.cline/data/sessions/%s/%s.messages.json" % (sid, sid)}
        if compaction:
            m["compaction_path"] = "/home/u/.cline/data/sessions/%s/%s.compaction.json" % (sid, sid)
        with open(os.path.join(d, sid + ".json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(m, indent=2, ensure_ascii=False))
    if compaction:
        with open(os.path.join(d, sid + ".compaction.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(compaction, indent=2, ensure_ascii=False))


def user(i, ts, text):
    return {"id": "u%d" % i, "role": "user", "content": [{"type": "text", "text": text}], "ts": ts}


def assistant(i, ts, blocks, cost=None):
    metrics = {"inputTokens": 1000 + i, "outputTokens": 50 + i, "cacheReadTokens": 400, "cacheWriteTokens": 100}
    if cost is not None:
        metrics["cost"] = cost
    return {"id": "a%d" % i, "role": "assistant", "content": blocks, "ts": ts,
            "modelInfo": {"id": "claude-sonnet-4-5", "provider": "anthropic"}, "metrics": metrics}


t0 = 1700000400000
msgs = [
    user(1, t0 + 100, '<user_input mode="act">Read the notes and fix the bug</user_input>'),
    assistant(2, t0 + 900, [{"type": "thinking", "thinking": "Reading first.", "signature": "sig-a2"},
                            {"type": "tool_use", "id": "toolu_1", "name": "read_files", "input": {"files": [{"path": "/work/project/notes.txt"}]}}], cost=0.0123),
    {"id": "r3", "role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "name": "read_files",
                                             "content": [{"query": "/work/project/notes.txt", "result": "the bug is on line 3", "success": True}]}], "ts": t0 + 1000},
    assistant(4, t0 + 2000, [{"type": "text", "text": "The bug is on line 3."}], cost=0.0045),
    {"id": "d5", "role": "assistant", "content": [{"type": "text", "text": "Checkpoint saved"}], "ts": t0 + 2100, "metadata": {"displayOnly": True}},
    {"id": "u6", "role": "user", "content": [{"type": "text", "text": '<user_input mode="plan">Now look at this ✓</user_input>'},
                                            {"type": "image", "data": "iVBORw0KGgo=", "mediaType": "image/png"}], "ts": t0 + 3000},
    assistant(7, t0 + 3500, [{"type": "text", "text": "It is a screenshot of the fix. 完成"}]),
]
write("1700000400000_cmpct", msgs, manifest="Read the notes and fix the bug", compaction={
    "version": 1, "updated_at": "2023-11-14T22:13:22.500Z", "conversation_id": "conv_1",
    "source_message_count": 4, "source_last_message_key": "id:a4",
    "messages": [{"id": "s1", "role": "user", "content": [{"type": "text", "text": "Summary: the notes say the bug is on line 3; the assistant found it."}], "ts": t0 + 2050}],
})
t1 = 1700000500000
write("1700000500000_cut", [user(1, t1 + 100, "Say hello"), assistant(2, t1 + 500, [{"type": "text", "text": "Hello."}], cost=0.001),
                            user(3, t1 + 900, "And again")], manifest="Say hello", cut=-120)
t2 = 1700000600000
write("1700000600000_stale", [user(1, t2 + 100, "First"), assistant(2, t2 + 500, [{"type": "text", "text": "One."}], cost=0.002),
                              user(3, t2 + 900, "Second"), assistant(4, t2 + 1200, [{"type": "text", "text": "Two."}], cost=0.002)],
      manifest="First", compaction={"version": 1, "updated_at": "2023-11-14T22:50:01.000Z", "source_message_count": 2,
                                    "source_last_message_key": "id:gone", "messages": [{"role": "user", "content": "Summary of other messages"}]})
