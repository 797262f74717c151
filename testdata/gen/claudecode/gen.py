# gen.py writes testdata/claudecode/projects line by line, from the shapes of
# formats/wild.md §1 (Claude Code cannot be run here). Run by hand:
#   python3 testdata/gen/claudecode/gen.py
# The goldens in testdata/claudecode/expected are then rewritten with
#   go test ./jsonlimport/claudecode -run TestClaudeCodeGolden -args -wild.update
# and checked by hand.
import json, os
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "claudecode", "projects", "-home-dev-proj")
os.makedirs(root, exist_ok=True)
def d(o): return json.dumps(o, separators=(',',':'), ensure_ascii=False)
S1="5c2d8e41-0000-4000-8000-000000000001"
def base(uuid, parent, sid, ts, typ, **kw):
    o={"parentUuid":parent,"isSidechain":False,"userType":"external","cwd":"/home/dev/proj","sessionId":sid,"version":"2.1.202","gitBranch":"main","entrypoint":"cli","type":typ}
    o.update(kw); o["uuid"]=uuid; o["timestamp"]=ts
    return o
def user(uuid,parent,sid,ts,content,**kw): return base(uuid,parent,sid,ts,"user",message={"role":"user","content":content},**kw)
def asst(uuid,parent,sid,ts,mid,req,blocks,usage,model="claude-sonnet-4-5",stop="end_turn",**kw):
    return base(uuid,parent,sid,ts,"assistant",requestId=req,message={"id":mid,"type":"message","role":"assistant","model":model,"content":blocks,"stop_reason":stop,"usage":usage},**kw)
U=lambda i,o,cr,cc: {"input_tokens":i,"cache_creation_input_tokens":cc,"cache_read_input_tokens":cr,"output_tokens":o}
def e(n): return "e3000000-0000-4000-8000-%012d"%n

# 1. main: linear, streamed response split over lines, bookkeeping, compaction.
L=[]
L.append({"type":"file-history-snapshot","messageId":e(1),"snapshot":{"messageId":e(1),"trackedFileBackups":{},"timestamp":"2026-01-10T09:00:00.100Z"},"isSnapshotUpdate":False})
L.append(user(e(1),None,S1,"2026-01-10T09:00:00.000Z","Add a retry to the uploader.",permissionMode="default"))
L.append(asst(e(2),e(1),S1,"2026-01-10T09:00:02.000Z","msg_01","req_01",[{"type":"thinking","thinking":"Run the tests first.","signature":"sig"}],U(12,40,1000,200)))
L.append(asst(e(3),e(2),S1,"2026-01-10T09:00:03.000Z","msg_01","req_01",[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"go test ./..."}}],U(12,40,1000,200),stop="tool_use"))
L.append({"type":"progress","data":{"type":"hook_progress","hookEvent":"PostToolUse"},"uuid":"p1000000-0000-4000-8000-000000000001","timestamp":"2026-01-10T09:00:05.500Z"})
L.append(base(e(4),e(3),S1,"2026-01-10T09:00:05.000Z","user",message={"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"ok  example.com/up 0.2s","is_error":False}]},toolUseResult={"stdout":"ok  example.com/up 0.2s","stderr":"","interrupted":False,"isImage":False}))
L.append(asst(e(5),e(4),S1,"2026-01-10T09:00:09.000Z","msg_02","req_02",[{"type":"text","text":"Added retry with backoff; tests pass."}],U(30,25,1200,0)))
L.append({"type":"system","subtype":"turn_duration","durationMs":88947,"sessionId":S1,"timestamp":"2026-01-10T09:01:30.000Z"})
L.append({"type":"summary","summary":"Add retry to uploader","leafUuid":e(5)})
L.append({"type":"last-prompt","leafUuid":e(5),"sessionId":S1})
L.append({"type":"system","subtype":"compact_boundary","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":155025},"parentUuid":None,"logicalParentUuid":e(5),"isSidechain":False,"sessionId":S1,"uuid":"c1000000-0000-4000-8000-000000000001","timestamp":"2026-01-11T11:00:00.000Z"})
L.append({"type":"user","isCompactSummary":True,"isVisibleInTranscriptOnly":True,"parentUuid":"c1000000-0000-4000-8000-000000000001","sessionId":S1,"message":{"role":"user","content":[{"type":"text","text":"This session is being continued from a previous conversation that ran out of context. The user asked for a retry in the uploader; it was added and tests pass."}]},"uuid":"c1000000-0000-4000-8000-000000000002","timestamp":"2026-01-11T11:00:01.000Z"})
L.append({"type":"mode","mode":"plan","sessionId":S1})
L.append(user(e(6),"c1000000-0000-4000-8000-000000000002",S1,"2026-01-11T11:01:00.000Z","Now add jitter."))
L.append(asst(e(7),e(6),S1,"2026-01-11T11:01:04.000Z","msg_03","req_03",[{"type":"text","text":"Jitter added."}],U(8,15,2000,300),model="claude-opus-4-1"))
L.append({"type":"future-line-kind","payloadish":{"x":1},"sessionId":S1,"timestamp":"2026-01-11T11:01:05.000Z"})
open(f"{root}/{S1}.jsonl","w").write("".join(d(o)+"\n" for o in L))

# sub-agent of session 1, and an oversized tool output.
os.makedirs(f"{root}/{S1}/subagents", exist_ok=True)
os.makedirs(f"{root}/{S1}/tool-results", exist_ok=True)
def sa(n): return "s1000000-0000-4000-8000-%012d"%n
A=[]
A.append({"parentUuid":None,"isSidechain":True,"agentId":"a1b2c3d4","sessionId":S1,"type":"user","message":{"role":"user","content":"Search the repo for retry helpers."},"uuid":sa(1),"timestamp":"2026-01-10T09:02:00.000Z"})
A.append({"parentUuid":sa(1),"isSidechain":True,"agentId":"a1b2c3d4","sessionId":S1,"type":"assistant","requestId":"req_sa1","message":{"id":"msg_sa1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"Found backoff.go."}],"stop_reason":"end_turn","usage":U(500,30,0,0)},"uuid":sa(2),"timestamp":"2026-01-10T09:02:05.000Z"})
open(f"{root}/{S1}/subagents/agent-a1b2c3d4.jsonl","w").write("".join(d(o)+"\n" for o in A))
open(f"{root}/{S1}/tool-results/toolu_01.txt","w").write("ok  example.com/up 0.2s\n(full output)\n")

# 2. branched: an edited prompt leaves an abandoned branch; old-style side chain lines interleave.
S2="5c2d8e41-0000-4000-8000-000000000002"
def b(n): return "b2000000-0000-4000-8000-%012d"%n
B=[]
B.append(user(b(1),None,S2,"2026-01-12T10:00:00.000Z","Rename the package."))
B.append(asst(b(2),b(1),S2,"2026-01-12T10:00:02.000Z","msg_b2","req_b2",[{"type":"text","text":"To what?"}],U(10,5,0,100)))
B.append(user(b(3),b(2),S2,"2026-01-12T10:00:10.000Z","To upload."))
B.append(base(b(10),None,S2,"2026-01-12T10:00:11.000Z","user",message={"role":"user","content":"side task"},isSidechain=True))
B.append(asst(b(4),b(3),S2,"2026-01-12T10:00:12.000Z","msg_b4","req_b4",[{"type":"text","text":"Renamed to upload."}],U(20,8,100,0)))
B.append(base(b(11),b(10),S2,"2026-01-12T10:00:13.000Z","assistant",requestId="req_b11",message={"id":"msg_b11","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"side done"}],"usage":U(3,2,0,0)},isSidechain=True))
B.append(user(b(5),b(2),S2,"2026-01-12T10:01:00.000Z","To uploader, actually."))
B.append(asst(b(6),b(5),S2,"2026-01-12T10:01:03.000Z","msg_b6","req_b6",[{"type":"text","text":"Renamed to uploader."}],U(25,9,100,0)))
B.append({"type":"summary","summary":"Rename package","leafUuid":b(6)})
open(f"{root}/{S2}.jsonl","w").write("".join(d(o)+"\n" for o in B))

# 3. damaged: every corruption case of wild.md §1.
S3="5c2d8e41-0000-4000-8000-000000000003"
def x(n): return "d3000000-0000-4000-8000-%012d"%n
D=[]
D.append(d(user(x(1),None,S3,"2026-01-13T08:00:00.000Z","First prompt, later cut off by a dangling parent.")))
D.append(d(asst(x(2),x(1),S3,"2026-01-13T08:00:02.000Z","msg_d2","req_d2",[{"type":"text","text":"First answer."}],U(5,5,0,0))))
# parentUuid pointing at a uuid never written
D.append(d(user(x(3),"ffffffff-0000-4000-8000-00000000dead",S3,"2026-01-13T08:01:00.000Z","Second prompt (its parent was never written).")))
# file-history-snapshot whose messageId equals a message uuid
D.append(d({"type":"file-history-snapshot","messageId":x(3),"snapshot":{"messageId":x(3),"trackedFileBackups":{"up.go":{"backupFileName":"abc@v1","version":1}},"timestamp":"2026-01-13T08:01:00.100Z"},"isSnapshotUpdate":False}))
# torn line with the next append glued onto it
good4=d(asst(x(4),x(3),S3,"2026-01-13T08:01:03.000Z","msg_d4","req_d4",[{"type":"text","text":"Second answer, glued after a torn write."}],U(7,6,0,0)))
D.append(d(asst(x(90),x(3),S3,"2026-01-13T08:01:02.000Z","msg_d90","req_d90",[{"type":"text","text":"lost"}],U(1,1,0,0)))[:70]+good4)
# a NUL run before a good line, and a line of NULs only
D.append("\x00"*16+d(user(x(5),x(4),S3,"2026-01-13T08:02:00.000Z","Third prompt, behind NUL bytes.")))
D.append("\x00"*32)
# invalid UTF-8 inside a string
D.append(d(asst(x(6),x(5),S3,"2026-01-13T08:02:04.000Z","msg_d6","req_d6",[{"type":"tool_use","id":"toolu_d6","name":"Bash","input":{"command":"cat README"}}],U(9,7,0,0),stop="tool_use")).replace("cat README","cat READ\udcffME"))
# unpaired tool_use at the tail, then a <synthetic> stop
D.append(d({"type":"assistant","sessionId":S3,"message":{"id":"msg_d7","role":"assistant","model":"<synthetic>","stop_reason":"stop_sequence","content":[{"type":"text","text":"<synthetic>"}],"usage":{"input_tokens":0,"output_tokens":0}},"uuid":x(7),"parentUuid":x(6),"timestamp":"2026-01-13T08:05:00.000Z"}))
data=("\n".join(D)+"\n").encode("utf-8","surrogateescape")
# a torn tail from a crashed append
data+=d(user(x(8),x(7),S3,"2026-01-13T08:06:00.000Z","never completed")).encode()[:60]
open(f"{root}/{S3}.jsonl","wb").write(data)

# 4. continuation file of an older build: its first line points into session 1.
S4="5c2d8e41-0000-4000-8000-000000000004"
C=[]
C.append(user("f4000000-0000-4000-8000-000000000001",e(5),S4,"2026-01-14T08:00:00.000Z","Continue in a new file."))
C.append(asst("f4000000-0000-4000-8000-000000000002","f4000000-0000-4000-8000-000000000001",S4,"2026-01-14T08:00:02.000Z","msg_f2","req_f2",[{"type":"text","text":"Continuing."}],U(4,3,0,0)))
open(f"{root}/{S4}.jsonl","w").write("".join(d(o)+"\n" for o in C))

# 5. a sub-agent whose parent transcript was deleted (cleanupPeriodDays).
S5="5c2d8e41-0000-4000-8000-000000000005"
os.makedirs(f"{root}/{S5}/subagents", exist_ok=True)
O=[{"parentUuid":None,"isSidechain":True,"agentId":"ffee0011","sessionId":S5,"type":"user","message":{"role":"user","content":"Orphan task."},"uuid":"o5000000-0000-4000-8000-000000000001","timestamp":"2026-01-15T08:00:00.000Z"}]
open(f"{root}/{S5}/subagents/agent-ffee0011.jsonl","w").write("".join(d(o)+"\n" for o in O))
