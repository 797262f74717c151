package zot

// What the external tests (package zot_test, which imports jsonlimport to
// import and export through it) use of this package's internals.
var (
	IsZotHomeFile = isZotHomeFile
	ZotHydrate    = zotHydrate
)

const ZotExt = zotExt

type (
	ZotImageBlock      = zotImageBlock
	ZotMeta            = zotMeta
	ZotTextBlock       = zotTextBlock
	ZotToolCallBlock   = zotToolCallBlock
	ZotToolResultBlock = zotToolResultBlock
	ZotUsage           = zotUsage
	ZotResumeState     = zotResumeState
)
