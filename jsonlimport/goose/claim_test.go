package goose_test

import (
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/goose"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
)

var sessiondbListAll = sessiondb.ListOptions{Limit: 1000}

// TestGooseDetect: of the whole corpus, goose claims its four stores and
// its three legacy files (the one without metadata too, which picoclaw
// would otherwise take), and nothing else claims any of them.
func TestGooseDetect(t *testing.T) {
	got, problems, err := jsonlimport.Detect(context.Background(), []string{corpus}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Format != goose.Name || got[0].Sessions != 10 {
		t.Errorf("detected %+v", got)
	}
	for _, p := range problems {
		t.Errorf("problem %v", p)
	}
}

// TestGooseLegacyBesideStore: legacy files beside a goose database are
// skipped with a note (goose copied them into the database), not
// imported twice.
func TestGooseLegacyBesideStore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	jsonltest.CopyFile(t, filepath.Join(corpus, "constructed-v5", "sessions", goose.DBFile), filepath.Join(dir, goose.DBFile))
	jsonltest.CopyFile(t, filepath.Join(corpus, "constructed-legacy", "sessions", "20260101_090000.jsonl"), filepath.Join(dir, "20260101_090000.jsonl"))
	s := jsonltest.OpenStore(t)
	rep, err := jsonlimport.Import(context.Background(), s, []string{dir}, jsonlimport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Sessions != 1 || len(rep.Problems) != 0 {
		t.Errorf("%d sessions, problems %v", rep.Sessions, rep.Problems)
	}
	noted := false
	for _, n := range rep.Notes {
		noted = noted || (strings.HasSuffix(n.Path, "20260101_090000.jsonl") && strings.Contains(n.Reason, "goose copied it"))
	}
	if !noted {
		t.Errorf("no note for the legacy file: %v", rep.Notes)
	}
}

// TestGooseFirstLines: what LegacyFirstLine takes and leaves.
func TestGooseFirstLines(t *testing.T) {
	for line, want := range map[string]bool{
		`{"working_dir":"/w","description":"d","schedule_id":null,"message_count":2,"total_tokens":null}`: true,
		`{"description":"","message_count":0}`:                                                    true,
		`{"role":"user","created":1767261600,"content":[{"type":"text","text":"hi"}]}`:            true,
		`{"id":null,"role":"assistant","created":1,"content":[],"metadata":{"userVisible":true}}`: true,
		`{"role":"user","content":"hi"}`:                                                          false, // picoclaw
		`{"role":"user","created":1,"content":[{"type":"input_text","text":"hi"}]}`:               false,
		`{"role":"user","created":1,"content":[{"type":"text","text":"hi"}],"timestamp":"x"}`:     false,
		`{"type":"session","description":"d","message_count":1}`:                                  false,
		`{"sessionId":"x","projectHash":"y","description":"d"}`:                                   false,
		`{"description":"d","message_count":"2"}`:                                                 false,
		`not json`: false,
	} {
		if got := goose.LegacyFirstLine([]byte(line)); got != want {
			t.Errorf("LegacyFirstLine(%s) = %v, want %v", line, got, want)
		}
	}
}

// TestGooseDefaultPlaces: goose's data folder's sessions/, as goose's
// Paths finds it: GOOSE_PATH_ROOT (absolute only) replaces the others;
// XDG_DATA_HOME (absolute only), then ~/.local/share.
func TestGooseDefaultPlaces(t *testing.T) {
	places := func(env map[string]string) []string {
		var out []string
		for _, l := range jsonlimport.WellKnownLocations("/home/u", func(k string) string { return env[k] }) {
			if l.Format == goose.Name {
				out = append(out, l.Path)
			}
		}
		return out
	}
	want := []string{"/home/u/.local/share/goose/sessions"}
	if runtime.GOOS == "darwin" {
		want = append(want, "/home/u/Library/Application Support/Block/goose/sessions")
	}
	check := func(env map[string]string, want []string) {
		t.Helper()
		if got := places(env); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("env %v: %v, want %v", env, got, want)
		}
	}
	check(map[string]string{}, want)
	check(map[string]string{"GOOSE_PATH_ROOT": "relative", "XDG_DATA_HOME": "also/relative"}, want)
	check(map[string]string{"XDG_DATA_HOME": "/xdg"}, append([]string{"/xdg/goose/sessions"}, want...))
	check(map[string]string{"GOOSE_PATH_ROOT": "/srv/g", "XDG_DATA_HOME": "/xdg"}, []string{"/srv/g/data/sessions"})
}
