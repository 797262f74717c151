package main

import (
	"slices"
	"strings"

	"github.com/sessiondb/sessiondb/jsonlimport"
)

// The formats the flags name come from jsonlimport's registry, so that a
// format added there is offered by import, watch, export, delete and
// prune, and named in their help, without a second list here.

// orList writes items as "a, b or c".
func orList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// importFormats are the values of import's and watch's --format.
func importFormats() []string { return append([]string{"auto"}, jsonlimport.FormatNames()...) }

// exportFormats are the values of export's --format: the registry's
// formats, then the formats written for people to read.
func exportFormats() []string {
	return append(jsonlimport.ExportFormatNames(), formatMarkdown, formatHTML)
}

// selectFormats are the values of delete's and prune's --format: every
// format import records, and none (sessions an application wrote).
func selectFormats() []string { return append(jsonlimport.FormatNames(), "none") }

// knownFormat reports whether name is one of names.
func knownFormat(names []string, name string) bool { return slices.Contains(names, name) }
