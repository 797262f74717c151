package pi

// What the external tests (package pi_test, which imports jsonlimport to
// import and export through it) use of this package's internals.
const (
	MaxBranches   = maxBranches
	MaxForkCopies = maxForkCopies
)
