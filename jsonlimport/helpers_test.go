package jsonlimport

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/sqlstore"
)

// openStore opens a file-backed SQLite store under tb.TempDir and closes
// it when the test ends.
func openStore(tb testing.TB) *sqlstore.Store { return jsonltest.OpenStore(tb) }

// The picoclaw helpers the importer's tests use (picoclaw's own tests are
// in package picoclaw_test).
var (
	picoCopyDir    = jsonltest.CopyDir
	picoLines      = jsonltest.Lines
	picoHasProblem = jsonltest.HasProblem
	picoAppend     = jsonltest.Append
	picoSequences  = jsonltest.Sequences
	picoSetMeta    = jsonltest.SetMeta
)

// The picoclaw samples the importer's tests read.
const (
	picoDir        = "../testdata/picoclaw"
	picoDamagedDir = "../testdata/picoclaw-damaged"
	picoLegacyDir  = "../testdata/picoclaw-legacy-json"
)

// The Claude Code, pi and Codex samples the importer's tests read (the
// formats' own tests are in packages claudecode_test, pi_test and
// codex_test).
var (
	ccTestdata    = filepath.Join("..", "testdata", "claudecode")
	piTestdata    = filepath.Join("..", "testdata", "pi")
	codexTestdata = filepath.Join("..", "testdata", "codex")
)

// picoImport imports paths into s with opts and fails the test on an error.
func picoImport(tb testing.TB, s sessiondb.Store, opts Options, paths ...string) Report {
	tb.Helper()
	rep, err := Import(context.Background(), s, paths, opts)
	if err != nil {
		tb.Fatalf("Import(%v): %v", paths, err)
	}
	return rep
}

// sanitizePicoclawKey is picoclaw's sanitizeKey, the file name of a key
// (the reader's own is internal to package picoclaw).
func sanitizePicoclawKey(key string) string {
	return strings.NewReplacer(":", "_", "/", "_", `\`, "_").Replace(key)
}
