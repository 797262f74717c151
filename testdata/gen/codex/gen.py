# gen.py writes testdata/codex/codex-home line by line, from the shapes of
# formats/wild.md §2 (Codex cannot be run here). Run by hand:
#   python3 testdata/gen/codex/gen.py
# The goldens in testdata/codex/expected are then rewritten with
#   go test ./jsonlimport/codex -run TestCodexGolden -args -wild.update
# and checked by hand.
import json, os
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "codex", "codex-home")
def d(o): return json.dumps(o, separators=(',',':'), ensure_ascii=False)
T1="019f26cb-0000-7000-8000-000000000001"
T2="019f26cb-0000-7000-8000-000000000002"
T3="019f26cb-0000-7000-8000-000000000003"
T4="019f26cb-0000-7000-8000-000000000004"
def env(ts, kind, payload, **kw):
    o={"timestamp":ts,"type":kind,"payload":payload}; o.update(kw); return o
def msg(role, text, kind="input_text", **kw):
    o={"type":"message","role":role,"content":[{"type":kind,"text":text}]}; o.update(kw); return o
def tok(total, last):
    def t(a): return {"input_tokens":a[0],"cached_input_tokens":a[1],"output_tokens":a[2],"reasoning_output_tokens":a[3],"total_tokens":a[0]+a[2]}
    return {"type":"token_count","info":{"total_token_usage":t(total),"last_token_usage":t(last)}}
def write(path, lines, raw=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    data = "".join(d(o)+"\n" for o in lines) if raw is None else raw
    open(path, "wb").write(data.encode("utf-8","surrogateescape") if isinstance(data,str) else data)

# 1. A full rollout: two turns, tools, mirrors, repeated counts, compaction.
L=[]
L.append(env("2026-01-10T09:00:00.000Z","session_meta",{"id":T1,"session_id":T1,"timestamp":"2026-01-10T09:00:00.000Z","cwd":"/home/dev/proj","originator":"codex_cli_rs","cli_version":"0.142.4","source":"cli","model_provider":"openai","base_instructions":{"text":"You are Codex."},"git":{"commit_hash":"abc123","branch":"main"}}))
L.append(env("2026-01-10T09:00:01.000Z","turn_context",{"cwd":"/home/dev/proj","approval_policy":"on-request","sandbox_policy":{"type":"workspace-write","network_access":False,"exclude_tmpdir_env_var":False,"exclude_slash_tmp":False},"model":"gpt-5-codex","effort":"medium","summary":"auto"}))
L.append(env("2026-01-10T09:00:01.500Z","response_item",msg("user","<environment_context>\n  <cwd>/home/dev/proj</cwd>\n</environment_context>")))
L.append(env("2026-01-10T09:00:02.000Z","response_item",msg("user","Add a retry to the uploader.")))
L.append(env("2026-01-10T09:00:02.001Z","event_msg",{"type":"user_message","message":"Add a retry to the uploader.","images":[],"local_images":[],"text_elements":[]}))
L.append(env("2026-01-10T09:00:02.500Z","event_msg",{"type":"token_count","info":None}))
L.append(env("2026-01-10T09:00:03.000Z","response_item",{"type":"reasoning","summary":[{"type":"summary_text","text":"Run the tests first."}],"content":None,"encrypted_content":"gAAAA..."}))
L.append(env("2026-01-10T09:00:04.000Z","response_item",{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test ./...\"}","call_id":"call_1"}))
L.append(env("2026-01-10T09:00:06.000Z","response_item",{"type":"function_call_output","call_id":"call_1","output":"Process exited with code 0\nOutput:\nok"}))
L.append(env("2026-01-10T09:00:06.500Z","event_msg",tok((12000,8000,300,100),(12000,8000,300,100))))
L.append(env("2026-01-10T09:00:07.000Z","response_item",{"type":"custom_tool_call","name":"apply_patch","call_id":"call_2","input":"*** Begin Patch\n*** End Patch"}))
L.append(env("2026-01-10T09:00:08.000Z","response_item",{"type":"custom_tool_call_output","call_id":"call_2","output":"Success."}))
L.append(env("2026-01-10T09:00:08.500Z","response_item",{"type":"ghost_snapshot","ghost_commit":{"id":"ghost1","parent":"abc123"}}))
L.append(env("2026-01-10T09:00:09.000Z","response_item",msg("assistant","Added retry with backoff; tests pass.","output_text",phase="final_answer")))
L.append(env("2026-01-10T09:00:09.001Z","event_msg",{"type":"agent_message","message":"Added retry with backoff; tests pass."}))
L.append(env("2026-01-10T09:00:09.002Z","event_msg",tok((19545,12000,700,128),(7545,4000,400,28))))
L.append(env("2026-01-10T09:00:09.003Z","event_msg",tok((19545,12000,700,128),(7545,4000,400,28))))
L.append(env("2026-01-10T09:00:09.004Z","event_msg",{"type":"task_complete","turn_id":"turn-1","last_agent_message":"Added retry with backoff; tests pass."}))
L.append(env("2026-01-11T08:00:00.000Z","turn_context",{"cwd":"/home/dev/proj","approval_policy":"on-request","sandbox_policy":{"type":"read-only"},"model":"gpt-5","effort":"high","summary":"auto"},ordinal=19))
L.append(env("2026-01-11T08:00:01.000Z","response_item",msg("user","Now add jitter."),ordinal=20))
L.append(env("2026-01-11T08:00:01.001Z","event_msg",{"type":"user_message","message":"Now add jitter.","images":[]},ordinal=21))
L.append(env("2026-01-11T08:00:05.000Z","response_item",msg("assistant","Jitter added.","output_text"),ordinal=22))
L.append(env("2026-01-11T08:00:05.001Z","event_msg",tok((26000,15000,900,200),(6455,3000,200,72)),ordinal=23))
L.append(env("2026-01-11T11:00:00.000Z","compacted",{"message":"","replacement_history":[msg("user","Add a retry to the uploader."),msg("user","Now add jitter."),msg("assistant","Summary: retry with backoff and jitter were added; tests pass.","output_text")],"window_number":2,"previous_window_id":"22222222-2222-7222-8222-222222222222"},ordinal=24))
L.append(env("2026-01-11T11:00:00.001Z","event_msg",{"type":"context_compacted"},ordinal=25))
L.append(env("2026-01-11T11:01:00.000Z","response_item",msg("user","Write the changelog."),ordinal=26))
L.append(env("2026-01-11T11:01:04.000Z","response_item",msg("assistant","Changelog written.","output_text"),ordinal=27))
L.append(env("2026-01-11T11:01:04.001Z","event_msg",tok((27500,15000,980,200),(1500,0,80,0)),ordinal=28))
L.append(env("2026-01-11T11:01:05.000Z","world_state",{"files_changed":3},ordinal=29))
write(f"{root}/sessions/2026/01/10/rollout-2026-01-10T09-00-00-{T1}.jsonl", L)

# 2. A legacy rollout: meta at top level, bare response items, filler lines.
G=[]
G.append({"id":T2,"timestamp":"2025-05-02T10:00:00.000Z","instructions":None,"git":{"commit_hash":"def456","branch":"dev"}})
G.append({"record_type":"state"})
G.append(msg("user","List the files."))
G.append({"type":"function_call","name":"shell","arguments":"{\"command\":[\"ls\"]}","call_id":"call_l1"})
G.append({"type":"function_call_output","call_id":"call_l1","output":"{\"output\":\"a.go\\nb.go\",\"metadata\":{\"exit_code\":0}}"})
G.append({"record_type":"response","index":0})
G.append(msg("assistant","Two files: a.go and b.go.","output_text"))
write(f"{root}/sessions/2025/05/02/rollout-2025-05-02T10-00-00-{T2}.jsonl", G)

# 3. Damaged: torn/concurrent writes, NULs, null token info, garbage, unknown kinds, torn tail.
D=[]
D.append(d(env("2026-01-12T09:00:00.000Z","session_meta",{"id":T3,"timestamp":"2026-01-12T09:00:00.000Z","cwd":"/home/dev/other","originator":"codex_cli_rs","cli_version":"0.142.4","source":"cli","model_provider":"openai"})))
D.append(d(env("2026-01-12T09:00:01.000Z","turn_context",{"cwd":"/home/dev/other","model":"gpt-5-codex","effort":"low"})))
D.append(d(env("2026-01-12T09:00:02.000Z","response_item",msg("user","Fix the flaky test."))))
# a partial line (concurrent write) with the next line glued after it
D.append(d(env("2026-01-12T09:00:03.000Z","response_item",{"type":"reasoning","summary":[{"type":"summary_text","text":"lost"}]}))[:55] + d(env("2026-01-12T09:00:04.000Z","response_item",{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"go test -count=10\"}","call_id":"call_d1"})))
D.append("\x00"*20 + d(env("2026-01-12T09:00:06.000Z","response_item",{"type":"function_call_output","call_id":"call_d1","output":"FAIL"})))
D.append(d(env("2026-01-12T09:00:06.500Z","event_msg",{"type":"token_count","info":None})))
D.append("}{ garbage from a crashed writer")
D.append(d(env("2026-01-12T09:00:07.000Z","inter_agent_communication",{"from":"agent-a","to":"agent-b","text":"hi"})))
D.append(d(env("2026-01-12T09:00:08.000Z","response_item",msg("assistant","Fixed: the test raced on a shared map.","output_text"))))
D.append(d(env("2026-01-12T09:00:08.001Z","event_msg",tok((4000,1000,150,50),(4000,1000,150,50)))))
raw="\n".join(D)+"\n"+d(env("2026-01-12T09:00:09.000Z","response_item",msg("user","And the other one?")))[:50]
write(f"{root}/sessions/2026/01/12/rollout-2026-01-12T09-00-00-{T3}.jsonl", None, raw)

# 4. A forked sub-agent thread.
F=[]
F.append(env("2026-01-10T09:30:00.000Z","session_meta",{"id":T4,"session_id":T1,"forked_from_id":T1,"parent_thread_id":T1,"timestamp":"2026-01-10T09:30:00.000Z","cwd":"/home/dev/proj","originator":"codex_cli_rs","cli_version":"0.142.4","source":{"subagent":"review"},"model_provider":"openai"}))
F.append(env("2026-01-10T09:30:01.000Z","turn_context",{"cwd":"/home/dev/proj","model":"gpt-5-codex","effort":"medium"}))
F.append(env("2026-01-10T09:30:02.000Z","response_item",msg("user","Review the retry change.")))
F.append(env("2026-01-10T09:30:05.000Z","response_item",msg("assistant","Looks good.","output_text")))
F.append(env("2026-01-10T09:30:05.001Z","event_msg",tok((3000,0,40,10),(3000,0,40,10))))
write(f"{root}/sessions/2026/01/10/rollout-2026-01-10T09-30-00-{T4}.jsonl", F)

write(f"{root}/session_index.jsonl", [{"id":T1,"thread_name":"Uploader retry","updated_at":"2026-01-10T09:00:10Z"},{"id":T3,"thread_name":"Flaky test","updated_at":"2026-01-12T09:00:09Z"},{"id":T1,"thread_name":"Uploader retry and jitter","updated_at":"2026-01-11T11:01:05Z"}])
