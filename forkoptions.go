package sessiondb

// ForkOptions says how Store.ForkWith makes a branch: where the parent's
// transcript is cut and what the child is called, all in the one
// transaction that creates the child (no read, Fork and UpdateMeta in
// separate commits).
type ForkOptions struct {
	// ID is the child's ID (NewID() when empty). It fails with ErrExists
	// when taken, and when another session lists it as an alias and it is
	// not a path key (as Create does).
	ID string
	// AtSeq cuts at a log position, as Fork does: the child's transcript
	// is the parent's as of log position AtSeq (0: now).
	AtSeq int64
	// AtMessage cuts after the AtMessage-th message of the parent's
	// current effective transcript (messages as Session.MessageCount
	// counts them: kinds KindMessage and KindCustom, the summary messages
	// of the current compaction first), as an agent cuts a branch after
	// the k-th message it shows: the child's transcript is the parent's
	// up to and including that message, and its MessageCount is
	// AtMessage. Entries after the message (a model change, a message
	// part) are not copied. It must be at least the number of summary
	// messages (a summary is not cut) and at most the parent's
	// MessageCount, and not set together with AtSeq (ErrInvalid
	// otherwise). The child's ForkSeq is the log position of the cut
	// (the message's Seq).
	AtMessage int
	// Meta is applied to the child in the same transaction, after it
	// took the parent's title, summary, scope, attributes, project and
	// version: the branch's own title, attributes (AttrsMerge adds to the
	// parent's), aliases and so on. Its ForkSeq must be nil (the cut
	// sets it; ErrInvalid otherwise); its UpdatedAt, when set, is the
	// child's UpdatedAt. nil keeps the parent's fields and no aliases.
	Meta *MetaPatch
}
