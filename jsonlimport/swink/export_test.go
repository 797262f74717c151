package swink

// What the external tests (package swink_test, which imports jsonlimport
// to import and export through it) use of this package's internals.
var (
	FormatSwinkTime = formatSwinkTime
	ParseSwinkTime  = parseSwinkTime
	SwJsonEqual     = swJsonEqual
	SwSerdeString   = swSerdeString
	SwinkEntryLine  = swinkEntryLine
	SwCompactJSON   = swCompactJSON
	SwDecodeObject  = swDecodeObject
	SwLastKV        = swLastKV
)

const SwinkKindCustomEntry = swinkKindCustomEntry
