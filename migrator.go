package sessiondb

import (
	"context"
	"errors"
	"fmt"
	"sort"
)

// ErrVersionUnsupported: a session's payload version has no migration path
// to the version this program understands (newer than every registered
// migrator, or a link in the chain is missing). The session is refused,
// never guessed at.
var ErrVersionUnsupported = errors.New("unsupported payload version")

// Migrator upgrades a session's message bodies from payload version From
// to From+1 (the swink SessionMigrator contract). It receives the whole
// effective transcript (summary messages included, marked Summary) and
// returns it upgraded; it must not change the session's metadata: the
// runner sets the version.
type Migrator struct {
	From    int
	Migrate func(s Session, transcript []Entry) ([]Entry, error)
}

// Migrations is a chain of registered Migrators. The zero value has none
// and accepts only sessions at version 0 (or whatever Target says).
type Migrations struct {
	byFrom map[int]Migrator
	target int
}

// NewMigrations registers migrators. Their From versions must be distinct;
// the target version is the highest From+1 (0 with none).
func NewMigrations(ms ...Migrator) (*Migrations, error) {
	r := &Migrations{byFrom: map[int]Migrator{}}
	for _, m := range ms {
		if m.Migrate == nil || m.From < 0 {
			return nil, invalidf("migrator from version %d has no function or a negative version", m.From)
		}
		if _, dup := r.byFrom[m.From]; dup {
			return nil, invalidf("two migrators from version %d", m.From)
		}
		r.byFrom[m.From] = m
		r.target = max(r.target, m.From+1)
	}
	return r, nil
}

// Target is the payload version the chain upgrades to.
func (r *Migrations) Target() int { return r.target }

// Plan returns the versions a session at version v goes through to reach
// Target (empty when it is there), or an error wrapping
// ErrVersionUnsupported.
func (r *Migrations) Plan(v int) ([]int, error) {
	if v > r.target {
		return nil, fmt.Errorf("%w: version %d is newer than the newest this program knows (%d)", ErrVersionUnsupported, v, r.target)
	}
	var steps []int
	for ; v < r.target; v++ {
		if _, ok := r.byFrom[v]; !ok {
			known := make([]int, 0, len(r.byFrom))
			for k := range r.byFrom {
				known = append(known, k)
			}
			sort.Ints(known)
			return nil, fmt.Errorf("%w: no migrator from version %d to %d (registered from: %v)", ErrVersionUnsupported, v, v+1, known)
		}
		steps = append(steps, v)
	}
	return steps, nil
}

// Apply upgrades a transcript in memory and returns it with the version
// reached. It reports how many steps ran; the input slice is not modified.
func (r *Migrations) Apply(s Session, transcript []Entry) ([]Entry, int, error) {
	steps, err := r.Plan(s.Version)
	if err != nil {
		return nil, s.Version, fmt.Errorf("migrate session %q: %w", s.ID, err)
	}
	out := transcript
	for _, v := range steps {
		out, err = r.byFrom[v].Migrate(s, append([]Entry(nil), out...))
		if err != nil {
			return nil, s.Version, fmt.Errorf("migrate session %q from version %d: %w", s.ID, v, err)
		}
		for i, e := range out {
			if err := ValidateEntry(e); err != nil {
				return nil, s.Version, fmt.Errorf("migrate session %q from version %d: entry %d: %w", s.ID, v, i, err)
			}
		}
		s.Version = v + 1
	}
	return out, s.Version, nil
}

// MigrationResult reports what LoadMigrated or MigrateStored did.
type MigrationResult struct {
	SessionID   string
	FromVersion int
	ToVersion   int
	// Stored is true when the upgraded bodies were written back.
	Stored bool
}

// LoadMigrated loads a session's snapshot and upgrades its transcript in
// memory to r.Target(); the store is not changed. The result says which
// versions it went through.
func LoadMigrated(ctx context.Context, st Store, r *Migrations, id string) (Full, MigrationResult, error) {
	f, err := st.LoadFull(ctx, id, LoadOptions{})
	if err != nil {
		return Full{}, MigrationResult{}, err
	}
	res := MigrationResult{SessionID: id, FromVersion: f.Session.Version}
	f.Transcript, res.ToVersion, err = r.Apply(f.Session, f.Transcript)
	if err != nil {
		return Full{}, res, err
	}
	f.Session.Version = res.ToVersion
	return f, res, nil
}

// MigrateStored upgrades a session's stored transcript to r.Target() in
// one commit guarded by the sequence it read: the upgraded messages are
// appended, a compaction (carrying upgraded summary messages) starts the
// transcript at them, and Version is set — the old bodies stay in the log
// until pruned. A session already at the target is left alone.
func MigrateStored(ctx context.Context, st Store, r *Migrations, id string) (MigrationResult, error) {
	f, err := st.LoadFull(ctx, id, LoadOptions{})
	if err != nil {
		return MigrationResult{}, err
	}
	res := MigrationResult{SessionID: id, FromVersion: f.Session.Version, ToVersion: f.Session.Version}
	if f.Session.Version == r.Target() {
		return res, nil
	}
	upgraded, v, err := r.Apply(f.Session, f.Transcript)
	if err != nil {
		return res, err
	}
	c := Commit{ExpectSequence: Expect(f.Session.Sequence), Meta: &MetaPatch{Version: &v}}
	cp := Compaction{KeepFromSeq: f.Session.LastSeq + 1,
		Details: []byte(fmt.Sprintf(`{"reason":"payload_migration","from":%d,"to":%d}`, res.FromVersion, v))}
	for _, e := range upgraded {
		e.Seq = 0
		if e.Summary {
			cp.Summary = append(cp.Summary, e)
		} else {
			c.Append = append(c.Append, e)
		}
	}
	c.Compactions = []Compaction{cp}
	if _, err := st.Commit(ctx, id, c); err != nil {
		return res, fmt.Errorf("store migrated session %q: %w", id, err)
	}
	res.ToVersion, res.Stored = v, true
	return res, nil
}
