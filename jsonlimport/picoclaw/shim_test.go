package picoclaw_test

import (
	"path/filepath"
	"testing"

	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/picoclaw"
)

// The names the tests had when picoclaw was part of package jsonlimport:
// they import and export through jsonlimport, and look at picoclaw's
// internals through export_test.go.
type (
	Options     = jsonlimport.Options
	Report      = jsonlimport.Report
	Format      = jsonl.Format
	Parsed      = jsonl.Parsed
	Problem     = jsonl.Problem
	Resume      = jsonl.Resume
	Unit        = jsonl.Unit
	Picoclaw    = picoclaw.Picoclaw
	picoMessage = picoclaw.PicoMessage
	picoMeta    = picoclaw.PicoMeta
)

const (
	FormatPicoclaw     = picoclaw.FormatPicoclaw
	picoclawScannerMax = picoclaw.PicoclawScannerMax
)

var (
	Import            = jsonlimport.Import
	Export            = jsonlimport.Export
	ErrNotIncremental = jsonl.ErrNotIncremental
	openStore         = jsonltest.OpenStore
	bodies            = jsonltest.Bodies
	picoCopyDir       = jsonltest.CopyDir
	picoLines         = jsonltest.Lines
	picoHasProblem    = jsonltest.HasProblem
	picoAppend        = jsonltest.Append
	picoSequences     = jsonltest.Sequences
	picoSetMeta       = jsonltest.SetMeta
	sourceAliases     = jsonl.SourceAliases
	fileSize          = picoclaw.FileSize
)

// mustAbs returns the absolute form of p.
func mustAbs(t *testing.T, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
