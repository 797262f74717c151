package zot

// What the external tests (package zot_test, which imports jsonlimport to
// import and export through it) use of this package's internals.
var (
	IsHomeFile = isZotHomeFile
	Hydrate    = zotHydrate
)

const Ext = zotExt

type (
	ImageBlock      = zotImageBlock
	Meta            = zotMeta
	TextBlock       = zotTextBlock
	ToolCallBlock   = zotToolCallBlock
	ToolResultBlock = zotToolResultBlock
	Usage           = zotUsage
	ResumeState     = zotResumeState
)
