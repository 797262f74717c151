package swink_test

import (
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/internal/jsonltest"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
	"github.com/sessiondb/sessiondb/jsonlimport/swink"
)

// The names the tests had when swink was part of package jsonlimport:
// they import and export through jsonlimport, and look at swink's
// internals through export_test.go.
type (
	Options = jsonlimport.Options
	Report  = jsonlimport.Report
	Format  = jsonl.Format
	Parsed  = jsonl.Parsed
	Problem = jsonl.Problem
	Resume  = jsonl.Resume
	Unit    = jsonl.Unit
	Swink   = swink.Swink
)

const (
	FormatSwink          = swink.FormatSwink
	swinkKindCustomEntry = swink.SwinkKindCustomEntry
)

var (
	Import            = jsonlimport.Import
	Export            = jsonlimport.Export
	ErrNotIncremental = jsonl.ErrNotIncremental
	ErrSwinkVersion   = swink.ErrSwinkVersion
	openStore         = jsonltest.OpenStore
	bodies            = jsonltest.Bodies
	formatSwinkTime   = swink.FormatSwinkTime
	parseSwinkTime    = swink.ParseSwinkTime
	swJsonEqual       = swink.SwJsonEqual
	swSerdeString     = swink.SwSerdeString
	swinkEntryLine    = swink.SwinkEntryLine
	swCompactJSON     = swink.SwCompactJSON
	swDecodeObject    = swink.SwDecodeObject
	swLastKV          = swink.SwLastKV
)
