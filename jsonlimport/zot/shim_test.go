package zot_test

import (
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/zot"
)

// The names the tests had when zot was part of package jsonlimport: they
// import and export through jsonlimport, and look at zot's internals
// through export_test.go.
type (
	Options            = jsonlimport.Options
	Report             = jsonlimport.Report
	Format             = jsonl.Format
	Parsed             = jsonl.Parsed
	Problem            = jsonl.Problem
	Resume             = jsonl.Resume
	Unit               = jsonl.Unit
	Zot                = zot.Zot
	zotImageBlock      = zot.ZotImageBlock
	zotMeta            = zot.ZotMeta
	zotTextBlock       = zot.ZotTextBlock
	zotToolCallBlock   = zot.ZotToolCallBlock
	zotToolResultBlock = zot.ZotToolResultBlock
	zotUsage           = zot.ZotUsage
	zotResumeState     = zot.ZotResumeState
)

const (
	FormatZot   = zot.FormatZot
	zotExt      = zot.ZotExt
	zotStubText = zot.StubText
)

var (
	Import            = jsonlimport.Import
	Export            = jsonlimport.Export
	ErrNotIncremental = jsonl.ErrNotIncremental
	openStore         = jsonltest.OpenStore
	bodies            = jsonltest.Bodies
	isZotHomeFile     = zot.IsZotHomeFile
	zotHydrate        = zot.ZotHydrate
)
