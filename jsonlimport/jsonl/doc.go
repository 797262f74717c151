// Package jsonl is what package jsonlimport and its format packages share:
// the reader and exporter interfaces (Format, Exporter, SideLister,
// Skipper), what a reader returns (Parsed, Unit, Resume, Problem, Branch),
// the line reader every format reads its files with (ScanLines, bounded by
// MaxLineSize), the parse-state Cache of an importer that runs on, and the
// export writer (Plan, ExportDir, Render) that checks every path before it
// writes one.
//
// It imports no format and not jsonlimport: a format package imports it,
// jsonlimport imports it and the format packages, and names them in its
// registry (jsonlimport.Formats). Translation of another format's sessions
// for an exporter is jsonlimport's (it knows every format's messages); it
// reaches Render through SetTranslator.
package jsonl
