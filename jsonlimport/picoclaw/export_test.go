package picoclaw

// What the external tests (package picoclaw_test, which imports
// jsonlimport to import and export through it) use of this package's
// internals. The fuzz targets are in package picoclaw itself: they check
// the line parser's internal result.
type (
	Message = picoMessage
	Meta    = picoMeta
)

const ScannerMax = picoclawScannerMax

var FileSize = fileSize
