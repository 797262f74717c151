// Package jsonl is what package jsonlimport and its format packages share:
// the reader and exporter interfaces (Format, Exporter, SideLister,
// Skipper, Reserver, MessageReader), what a reader returns (Parsed, Unit,
// Resume, Problem, Branch), the line reader every format reads its files
// with (ScanLines, bounded by MaxLineSize), the parse-state Cache of an
// importer that runs on, the export writer (Plan, ExportDir, Render) that
// checks every path before it writes one, the reading of a stored body as
// a Message (MessageObject and the helpers each format's MessageReader is
// written with), the rules that make a title of a user prompt (TitleOf,
// StripContext), the reading of "wild" files that Claude Code, Codex and
// pi share (WildScan: torn lines, NUL runs, invalid UTF-8; and the helpers
// their parsers use: OpenAt, FirstObjects, ParseTime, MergeAttrs, …), and
// the writing of a session back to its own format (ImportedLog, WriteLine,
// FileID).
//
// It imports no format and not jsonlimport: a format package imports it,
// jsonlimport imports it and the format packages, and names them in its
// registry (jsonlimport.Formats). What needs the registry reaches it
// through a hook that jsonlimport sets at init: the translation of another
// format's sessions for an exporter (SetTranslator, used by Render), the
// file a format that writes its own sessions back as imported (Claude
// Code, Codex, pi) writes for a session of another format
// (SetForeignWriter, used by WriteForeign), the estimate of the cost of
// usage rows a tool did not price (SetEstimator, used by EstimateCosts),
// and the files a format reserves from formats earlier in the claim order
// (SetReserved, asked by Reserved). The translation and the prices stay
// in jsonlimport because they are the importer's: translation knows every
// format's messages, and the price table is an import's option.
package jsonl
