// Package jsonl is what package jsonlimport and its format packages share:
// the reader and exporter interfaces (Format, Exporter, SideLister,
// Skipper, Reserver, MessageReader), what a reader returns (Parsed, Unit,
// Resume, Problem, Branch), the line reader every format reads its files
// with (ScanLines, bounded by MaxLineSize), the parse-state Cache of an
// importer that runs on, the export writer (Plan, ExportDir, Render) that
// checks every path before it writes one, the reading of a stored body as
// a Message (MessageObject and the helpers each format's MessageReader is
// written with), and the rules that make a title of a user prompt
// (TitleOf, StripContext).
//
// It imports no format and not jsonlimport: a format package imports it,
// jsonlimport imports it and the format packages, and names them in its
// registry (jsonlimport.Formats). What needs the registry reaches it
// through a hook that jsonlimport sets at init: the translation of another
// format's sessions for an exporter (SetTranslator, used by Render) and
// the files a format reserves from formats earlier in the claim order
// (SetReserved, asked by Reserved).
package jsonl
