package watch

import (
	"time"

	"github.com/sessiondb/sessiondb/jsonlimport"
)

// Options configures Run. The zero value of every field but Paths is a
// sensible default.
type Options struct {
	// Paths are the files and directory trees to follow. A path that does
	// not exist yet is waited for: it is looked at every MissingInterval
	// and followed from when it appears.
	Paths []string
	// Format is "" (auto) or one format name, as jsonlimport.Options.Format.
	Format string
	// Machine is recorded on the sessions the watcher creates, as
	// jsonlimport.Options.Machine ("": none).
	Machine string
	// Map rewrites the projects the watcher's sessions record, as
	// jsonlimport.Options.Map.
	Map []jsonlimport.PathMap
	// Poll follows every directory by polling instead of file-system
	// events (for file systems that give none and are not recognised).
	Poll bool
	// PollInterval is the shortest time between two polls of the polled
	// directories (default 2 s). A poll that takes long stretches it: the
	// interval is at least PollBudget times the last poll's duration, so
	// polling never takes more than 1/PollBudget of a core.
	PollInterval time.Duration
	// Settle is how long the files must be quiet before a burst of changes
	// is imported (default 50 ms); MaxDelay bounds how long a file that is
	// written continuously waits (default 250 ms).
	Settle   time.Duration
	MaxDelay time.Duration
	// NewSettle is how long the directory of a session file that was
	// never imported, and its side files, must be quiet before its first
	// import (default 500 ms): an agent may create a session's side files
	// just after it (picoclaw fsyncs the first line, then writes the
	// .meta.json that names the session), and the first import fixes the
	// session's ID.
	NewSettle time.Duration
	// TornAfter is how long a file whose last line has no newline yet must
	// be quiet before that line is reported as torn (default 10 s). Until
	// then it is a line still being written: not reported, not imported.
	TornAfter time.Duration
	// MissingInterval is how often paths that do not exist yet are looked
	// for (default 10 s).
	MissingInterval time.Duration
	// Jobs is the number of parser goroutines of the catch-up imports
	// (0: the number of CPUs). Changes found while following are imported
	// one file at a time.
	Jobs int
	// StateDir, when not "", is a directory where the watcher keeps its
	// readers' parse states when it stops, so that after a restart the
	// first append to a large transcript continues from where the last
	// run stopped instead of reading the file again
	// (jsonlimport.NewFollowIn). sessionctl watch uses <database>-watch
	// beside a SQLite database.
	StateDir string
	// Events receives what the watcher does, from one goroutine (Run's);
	// nil discards them. It must not block for long: changes queue up
	// meanwhile (nothing is lost; they are imported together afterwards).
	Events func(Event)

	// addWatch replaces the inotify watch of a directory in tests.
	addWatch func(dir string) error
}

// Defaults.
const (
	defaultPollInterval    = 2 * time.Second
	defaultSettle          = 50 * time.Millisecond
	defaultMaxDelay        = 250 * time.Millisecond
	defaultNewSettle       = 500 * time.Millisecond
	defaultTornAfter       = 10 * time.Second
	defaultMissingInterval = 10 * time.Second
	// PollBudget is the factor between the poll interval and the time one
	// poll takes: at most 1/PollBudget of a core goes to polling.
	PollBudget = 100
	// retryMax bounds the wait before a file whose import failed (the
	// store was unreachable, the disk full) is tried again.
	retryMax = time.Minute
)

func (o *Options) setDefaults() {
	if o.PollInterval <= 0 {
		o.PollInterval = defaultPollInterval
	}
	if o.Settle <= 0 {
		o.Settle = defaultSettle
	}
	if o.MaxDelay <= 0 {
		o.MaxDelay = defaultMaxDelay
	}
	if o.NewSettle <= 0 {
		o.NewSettle = defaultNewSettle
	}
	if o.MaxDelay < o.Settle {
		o.MaxDelay = o.Settle
	}
	if o.TornAfter <= 0 {
		o.TornAfter = defaultTornAfter
	}
	if o.MissingInterval <= 0 {
		o.MissingInterval = defaultMissingInterval
	}
}

// Event kinds.
const (
	// EventWatching: the watches are in place (Roots, Dirs, Polled, Mode).
	EventWatching = "watching"
	// EventCatchUp: a catch-up import finished (at start, after the
	// event queue overflowed, for a path that appeared): the totals of
	// Report, with Problems and Notes. An EventImport for each file it
	// changed comes before it.
	EventCatchUp = "catch-up"
	// EventImport: one file's changes were imported in one transaction
	// (Path, Format, Session, New, Entries, Problems, Notes).
	EventImport = "import"
	// EventDeleted: a followed session file was deleted or moved away;
	// its session is kept (Path, Format, Session, Notes).
	EventDeleted = "deleted"
	// EventTorn: the last line of a file stayed without a newline for
	// TornAfter: it is reported as torn (Problems).
	EventTorn = "torn"
	// EventProblem: a file that appeared in a followed tree cannot be
	// imported (no format recognises it, it cannot be read), or is skipped
	// as not a session file (Notes).
	EventProblem = "problem"
	// EventFallback: some directories are polled rather than watched
	// (Message says why); said once per reason.
	EventFallback = "fallback"
	// EventError: an import failed as a whole (the store was unreachable,
	// …); the file is tried again later (Path, Message).
	EventError = "error"
	// EventStopped: Run is returning.
	EventStopped = "stopped"
)

// Event is one thing the watcher did. Which fields are set depends on
// Kind (see the Event… constants).
type Event struct {
	Time time.Time
	Kind string
	// Path is the source file (import, deleted, torn, problem, error).
	Path string
	// Format and Session name the file's format and the session it is
	// imported into.
	Format  string
	Session string
	// New is true when the file's session was created by this import.
	New bool
	// CatchUp is true for the imports of a catch-up (reported one by one
	// before the EventCatchUp with their totals).
	CatchUp bool
	// Entries counts the log entries appended (branch forks included).
	Entries int
	// Report holds the totals of a catch-up import.
	Report   *jsonlimport.Report
	Problems []jsonlimport.Problem
	Notes    []jsonlimport.Problem
	// Roots, Dirs, Polled and Mode describe the watches (watching): the
	// roots followed, the directories under them, how many of those are
	// polled, and "events", "poll" or "events+poll".
	Roots  []string
	Dirs   int
	Polled int
	Mode   string
	// Message explains a fallback or an error.
	Message string
}
