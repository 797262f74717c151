package jsonlimport

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport/jsonl"
)

// ExportOptions configures ExportWith.
type ExportOptions struct {
	// Force lets the export replace files that already exist in the output
	// directory (and remove a stale swink interrupt file). Without it an
	// export that would replace or remove anything writes nothing and fails
	// with ErrExists, naming the files.
	Force bool
	// Skip, when set, is told about each session that cannot be exported
	// (the format cannot render it, or one of its paths is not a plain
	// file name inside the directory) and the export goes on without it.
	// Unset, the first such session fails the whole export, with nothing
	// written. Two sessions that map to one file, existing files and
	// errors of the file system always fail the whole export.
	Skip func(id string, err error)
}

// Export is ExportWith without Force: it never replaces an existing file.
func Export(ctx context.Context, store sessiondb.Store, ids []string, format string, dir string) ([]string, error) {
	return ExportWith(ctx, store, ids, format, dir, ExportOptions{})
}

// ExportWith writes the sessions ids (IDs or aliases) from store into dir in
// the named format and returns the files written (on error too: the files
// written before the failure). dir is created (0700) when missing.
//
// Every session is rendered and every path planned before anything is
// written, so that a session that cannot be exported, a path that would
// leave dir or exceed a file-name limit, two sessions that map to one file
// (also when the names differ only in case, which collides on
// case-insensitive file systems) and, without Force, an existing file are
// refused with nothing written (with opts.Skip, such a session is reported
// and left out instead). Files are created 0600 and directories
// 0700, as the database is; symbolic links inside dir are never followed.
// Each session is rendered twice (to plan, then to write), so that memory
// stays bounded by the largest session, not the whole export.
func ExportWith(ctx context.Context, store sessiondb.Store, ids []string, format string, dir string, opts ExportOptions) ([]string, error) {
	f := lookupFormat(format)
	if f == nil {
		return nil, fmt.Errorf("export: unknown format %q (want %s): %w", format, fmt.Sprint(formatNames()), sessiondb.ErrInvalid)
	}
	ex, ok := f.(jsonl.Exporter)
	if !ok {
		return nil, fmt.Errorf("export: format %q cannot export: %w", format, sessiondb.ErrInvalid)
	}
	resolved := make([]string, 0, len(ids))
	seenID := map[string]bool{}
	for _, idOrAlias := range ids {
		// A session ID names that session; only a name that is no
		// session's ID is resolved as an alias. (Resolve lets an alias
		// win over a session ID that contains ':', as picoclaw does, so
		// the exact IDs of a listing must not go through it.)
		id := idOrAlias
		if _, err := store.Get(ctx, id); errors.Is(err, sessiondb.ErrNotFound) {
			if id, err = store.Resolve(ctx, idOrAlias); err != nil {
				return nil, fmt.Errorf("export %s: %w", idOrAlias, err)
			}
		} else if err != nil {
			return nil, fmt.Errorf("export %s: %w", idOrAlias, err)
		}
		if !seenID[id] {
			seenID[id] = true
			resolved = append(resolved, id)
		}
	}

	// Plan: render every session, check every path.
	plan := jsonl.NewPlan(dir, opts.Force)
	planned := make([][]string, len(resolved))
	skipped := make([]bool, len(resolved))
	for i, id := range resolved {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		files, err := jsonl.Render(ctx, ex, store, id)
		if err != nil {
			err = fmt.Errorf("export %s: %w", id, err)
		} else {
			err = plan.Check(id, files)
		}
		if err != nil {
			if opts.Skip == nil || ctx.Err() != nil {
				return nil, err
			}
			opts.Skip(id, err)
			skipped[i] = true
			continue
		}
		for _, file := range files {
			if err := plan.Add(id, file); err != nil {
				return nil, err
			}
			planned[i] = append(planned[i], file.Rel)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("export: create %s: %w", dir, err)
	}
	if err := plan.CheckDisk(); err != nil {
		return nil, err
	}

	// Write, rendering each session again.
	var out []string
	for i, id := range resolved {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("export: %w", err)
		}
		if skipped[i] {
			continue
		}
		files, err := jsonl.Render(ctx, ex, store, id)
		if err != nil {
			return out, fmt.Errorf("export %s: %w", id, err)
		}
		if !sameRels(files, planned[i]) {
			return out, fmt.Errorf("export %s: the session changed during the export; run it again: %w", id, sessiondb.ErrConflict)
		}
		for _, file := range files {
			p, err := plan.Write(file)
			if err != nil {
				return out, fmt.Errorf("export %s: %w", id, err)
			}
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// sameRels reports whether files are at the paths rels, in order.
func sameRels(files []jsonl.File, rels []string) bool {
	if len(files) != len(rels) {
		return false
	}
	for i, f := range files {
		if f.Rel != rels[i] {
			return false
		}
	}
	return true
}
