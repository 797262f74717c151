package watch

import (
	"path/filepath"
	"testing"
	"time"
)

// TestFollowsGeminiAndQwen lets a child process write, line by line with
// torn writes, chats as Gemini CLI and Qwen Code write them (the files
// they wrote themselves, testdata/gemini and testdata/qwen): a Gemini CLI
// chat resumed into its own file and a sub-agent's chat in a folder
// created on the way, a Qwen Code chat with telemetry and a resume, and a
// background sub-agent whose description is written before its
// transcript. The database must end up holding what one import of the
// final files gives. The writer's pauses are short (5 ms a line, 40 ms
// between the halves of a line), and so are the watcher's (Settle 20 ms,
// NewSettle 50 ms: every side file here is written before its
// transcript): the files are imported many times while written, half lines
// included.
func TestFollowsGeminiAndQwen(t *testing.T) {
	root := t.TempDir()
	st := newStore(t)
	startWatch(t, st, Options{Paths: []string{root}, Settle: 20 * time.Millisecond, NewSettle: 50 * time.Millisecond})
	gsrc := filepath.Join("..", "testdata", "gemini", "gemini-home", ".gemini", "tmp", "proj", "chats")
	qsrc := filepath.Join("..", "testdata", "qwen", "qwen-home", ".qwen", "projects", "-tmp-sdb-gq-proj", "chats")
	asrc := filepath.Join("..", "testdata", "qwen", "crafted", ".qwen", "projects", "-home-dev-crafted", "subagents", "7e570000-0000-4000-8000-000000000004")
	gchats := filepath.Join(root, ".gemini", "tmp", "proj", "chats")
	chat := filepath.Join(gchats, "session-2026-12-06T11-47-ab51ffee.jsonl")
	sub := filepath.Join(gchats, "dbe76100-bb83-408c-aad9-3a584aa7a811", "2887861c-61f0-47e7-addb-bde818967921.jsonl")
	qchat := filepath.Join(root, ".qwen", "projects", "-tmp-sdb-gq-proj", "chats", "5b0a3c1e-0000-4000-8000-000000000001.jsonl")
	agentDir := filepath.Join(root, ".qwen", "projects", "-home-dev-crafted", "subagents", "7e570000-0000-4000-8000-000000000004")
	agent := filepath.Join(agentDir, "agent-a1b2c3.jsonl")
	steps := []step{{Op: "append", File: filepath.Join(agentDir, "agent-a1b2c3.meta.json"), Data: readFile(t, filepath.Join(asrc, "agent-a1b2c3.meta.json"))}}
	steps = append(steps, appendSteps(chat, readFile(t, filepath.Join(gsrc, filepath.Base(chat))), 5, 3, 40)...)
	steps = append(steps, appendSteps(sub, readFile(t, filepath.Join(gsrc, "dbe76100-bb83-408c-aad9-3a584aa7a811", filepath.Base(sub))), 5, 3, 40)...)
	steps = append(steps, appendSteps(qchat, readFile(t, filepath.Join(qsrc, filepath.Base(qchat))), 5, 3, 40)...)
	steps = append(steps, appendSteps(agent, readFile(t, filepath.Join(asrc, "agent-a1b2c3.jsonl")), 5, 2, 40)...)
	runWriter(t, steps)
	waitFor(t, "the watcher to import every line", func() bool { return caughtUp(st, chat, sub, qchat, agent) })
	compareViews(t, view(t, st), oneShot(t, root))
	if n := len(view(t, st)); n != 4 {
		t.Errorf("%d sessions, want 4", n)
	}
}
