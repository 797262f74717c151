// Package jsonscan reads JSON bytes without decoding them: Valid answers
// what encoding/json's json.Valid answers, in one plain pass instead of
// its scanner's function call per byte. Every body a store is given, and
// every line an importer reads, is checked; this is where that time goes.
package jsonscan
