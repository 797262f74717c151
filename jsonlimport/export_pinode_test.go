package jsonlimport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb/internal/longtest"
	"github.com/sessiondb/sessiondb/internal/pinode"
)

// TestExportCorpusPiLoadsInPi opens our translations of Claude Code
// and Codex sessions (fixtures and corpus) with pi's own SessionManager
// (testdata/gen/pi/check-export.mjs): pi resumes one message per message
// we wrote, with the same roles, and every tool call still has its
// result. It needs pi installed (npm install in testdata/gen/pi, or
// SESSIONDB_PI_NODE naming a directory whose node_modules holds
// @mariozechner/pi-coding-agent 0.73.1) and is skipped otherwise.
func TestExportCorpusPiLoadsInPi(t *testing.T) {
	node, script := pinode.Script(t, "check-export.mjs")
	ctx := context.Background()
	roots := []string{filepath.Join(ccTestdata, "projects"), filepath.Join(codexTestdata, "codex-home")}
	if longtest.Enabled() && !raceEnabled {
		root := corpusRoot(t)
		roots = append(roots, filepath.Join(root, "claude-code"), filepath.Join(root, "codex"))
	}
	type want struct {
		roles              []string
		unpaired, orphaned int
	}
	expect := map[string]want{}
	var files []string
	for _, root := range roots {
		s := openStore(t)
		if _, err := Import(ctx, s, []string{root}, Options{}); err != nil {
			t.Fatal(err)
		}
		for _, sess := range allSessions(t, s) {
			out := t.TempDir()
			written, err := Export(ctx, s, []string{sess.ID}, FormatPi, out)
			if err != nil {
				continue // refused: TestExportCorpusCrossFormat checks refusals
			}
			msgs, _, err := readForeign(ctx, s, sess)
			if err != nil {
				t.Fatal(err)
			}
			var w want
			for _, m := range msgs {
				role := m.Role
				if role == xContext {
					role = "custom"
				}
				w.roles = append(w.roles, role)
			}
			w.unpaired, w.orphaned = unpaired(msgs)
			expect[written[0]] = w
			files = append(files, written[0])
		}
	}
	cmd := exec.Command(node, append([]string{script}, files...)...)
	cmd.Dir = filepath.Dir(script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(outb))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var got struct {
			File     string   `json:"file"`
			Messages int      `json:"messages"`
			Roles    []string `json:"roles"`
			Unpaired int      `json:"unpaired"`
			Orphans  int      `json:"orphans"`
		}
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		w, ok := expect[got.File]
		if !ok {
			t.Fatalf("pi reported on %s, which was not exported", got.File)
		}
		checked++
		if strings.Join(got.Roles, ",") != strings.Join(w.roles, ",") {
			t.Errorf("%s: pi resumes %d messages %v, we wrote %d %v", got.File, got.Messages, got.Roles, len(w.roles), w.roles)
		}
		if got.Unpaired != w.unpaired || got.Orphans != w.orphaned {
			t.Errorf("%s: pi sees %d calls without result and %d results without call, the source %d and %d", got.File, got.Unpaired, got.Orphans, w.unpaired, w.orphaned)
		}
	}
	if checked != len(files) {
		t.Fatalf("pi checked %d of %d files", checked, len(files))
	}
	t.Logf("pi's SessionManager resumed %d translated sessions as written", checked)
}
