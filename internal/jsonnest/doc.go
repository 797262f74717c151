// Package jsonnest measures how deeply a JSON text nests arrays and
// objects, without decoding it: decoders refuse input past a depth (Go's
// encoding/json at 10,000, the MCP SDK's at 1,000), and a reader that
// explains its refusal, or refuses first, needs to know.
package jsonnest
