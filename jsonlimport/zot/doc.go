// Package zot reads and writes zot session files
// (ZOT_HOME/sessions/<cwd hash>/<time>-<id>.jsonl): Format, named Name, one of
// the formats package jsonlimport imports and exports. It implements
// jsonl.Format and jsonl.Exporter; the comment at the top of zot.go tells
// what is carried over and how. It is used through jsonlimport, which
// registers it (jsonlimport.Formats) and translates the sessions of other
// formats for its exporter.
package zot
