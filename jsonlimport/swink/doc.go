// Package swink reads and writes swink session archives
// (sessions/<id>.jsonl, with interrupt and checkpoint files beside them):
// Format, named Name, one of the formats package jsonlimport imports and
// exports. It implements jsonl.Format and jsonl.Exporter; Format's comment
// tells what is carried over and how. It is used through jsonlimport,
// which registers it (jsonlimport.Formats) and translates the sessions of
// other formats for its exporter.
package swink
