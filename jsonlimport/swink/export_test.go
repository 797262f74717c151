package swink

// What the external tests (package swink_test, which imports jsonlimport
// to import and export through it) use of this package's internals.
var (
	FormatTime   = formatSwinkTime
	ParseTime    = parseSwinkTime
	JSONEqual    = swJsonEqual
	SerdeString  = swSerdeString
	EntryLine    = swinkEntryLine
	CompactJSON  = swCompactJSON
	DecodeObject = swDecodeObject
	LastKV       = swLastKV
)

const KindCustomEntry = swinkKindCustomEntry
