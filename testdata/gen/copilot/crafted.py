#!/usr/bin/env python3
"""crafted.py writes testdata/copilot/crafted from the real session B of
testdata/copilot (written by gen.sh): the shapes the real run did not
produce, each built from its real lines. Run from the repository root:

    python3 testdata/gen/copilot/crafted.py

- 33333333-…/events.jsonl: older versions' usage (no session.usage_record
  lines; each session.shutdown carries modelMetrics at the top of its data,
  cumulative over the runs, as Copilot CLI 0.0.3xx–1.0.x wrote them), a
  compaction (session.compaction_start, then compaction_complete with a
  summaryContent) before the resume, a damaged line (invalid JSON) and a
  torn last line (a line cut in half, no newline).
"""
import json, os

SRC = "testdata/copilot/session-state/22222222-2222-4222-8222-222222222222/events.jsonl"
OUT = "testdata/copilot/crafted/33333333-3333-4333-8333-333333333333"
SID = "33333333-3333-4333-8333-333333333333"

lines = [json.loads(l) for l in open(SRC, encoding="utf-8")]
out = []
for e in lines:
    if e["type"] == "session.usage_record":
        continue
    if e["type"] == "session.start":
        e["data"]["sessionId"] = SID
    if e["type"] == "session.shutdown":
        snap = e["data"].get("accountingSnapshot") or {}
        e["data"] = {"shutdownType": "routine", "totalPremiumRequests": snap.get("totalUserRequests", 1),
                     "totalApiDurationMs": snap.get("totalApiDurationMs", 0), "sessionStartTime": 1765046808000,
                     "codeChanges": snap.get("codeChanges"), "modelMetrics": {
                         m: {"requests": v["requests"], "usage": v["usage"]} for m, v in snap.get("modelMetrics", {}).items()},
                     "currentModel": "gpt-4.1"}
    if e["type"] == "session.resume":
        t = e["timestamp"]
        out.append({"type": "session.compaction_start", "data": {}, "id": "c0mpact0-0000-4000-8000-000000000001", "timestamp": t, "parentId": out[-1]["id"]})
        out.append({"type": "session.compaction_complete", "data": {"success": True, "preCompactionTokens": 1400, "postCompactionTokens": 120,
                    "summaryContent": "<overview>The user asked for a long answer [[long]]; it was given.</overview>",
                    "checkpointNumber": 1}, "id": "c0mpact0-0000-4000-8000-000000000002", "timestamp": t, "parentId": "c0mpact0-0000-4000-8000-000000000001"})
    out.append(e)
os.makedirs(OUT, exist_ok=True)
with open(OUT + "/events.jsonl", "w", encoding="utf-8") as f:
    for i, e in enumerate(out):
        f.write(json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n")
        if i == 3:
            f.write('{"type":"assistant.turn_start","data":{"turnId":"0"},"id":"broken\n')
    last = json.dumps({"type": "assistant.turn_start", "data": {"turnId": "1"}, "id": "torn-0000", "timestamp": "2026-12-06T18:47:00.000Z", "parentId": None})
    f.write(last[: len(last) // 2])
