package torture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// runChild re-executes the test binary in role with env, and returns the
// steps it reported, its combined stderr and its exit error.
func runChild(t *testing.T, role string, env []string, attr *syscall.SysProcAttr) ([]step, string, error) {
	t.Helper()
	return runChildBinary(t, childExe(t), role, env, attr)
}

func runChildBinary(t *testing.T, exe, role string, env []string, attr *syscall.SysProcAttr) ([]step, string, error) {
	t.Helper()
	return runChildContext(context.Background(), t, exe, role, env, attr)
}

func runChildContext(ctx context.Context, t *testing.T, exe, role string, env []string, attr *syscall.SysProcAttr) ([]step, string, error) {
	t.Helper()
	cmd := exec.CommandContext(ctx, exe, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), EnvRole+"="+role), env...)
	cmd.SysProcAttr = attr
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var steps []step
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "STEP ")
		if !ok {
			continue
		}
		var s step
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("child %s: bad step %q: %v", role, line, err)
		}
		steps = append(steps, s)
	}
	return steps, stderr.String(), err
}

// find returns the steps named name.
func find(steps []step, name string) []step {
	var out []step
	for _, s := range steps {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func one(t *testing.T, steps []step, name, stderr string) step {
	t.Helper()
	got := find(steps, name)
	if len(got) != 1 {
		t.Fatalf("child reported %d %q steps, want 1; steps %+v\nstderr:\n%s", len(got), name, steps, stderr)
	}
	return got[0]
}
