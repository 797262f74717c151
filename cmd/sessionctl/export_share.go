package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/viewer"
)

// The formats for people: export --format markdown and --format html
// write one readable file per session (viewer.WriteMarkdown,
// viewer.WriteHTML), for sharing and archiving, not for loading back.
const (
	formatMarkdown = "markdown"
	formatHTML     = "html"
)

// shareFormat reports whether format is one of the formats for people.
func shareFormat(format string) bool { return format == formatMarkdown || format == formatHTML }

// shareFileName is the file a session is exported to: its ID with every
// byte but letters, digits, '.', '-' and '_' as '_', and the format's
// extension.
func shareFileName(id, format string) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, id)
	name = strings.TrimLeft(name, ".")
	if len(name) > 200 {
		name = name[:200]
	}
	if format == formatHTML {
		return name + ".html"
	}
	return name + ".md"
}

// exportShare writes the sessions ids of st as markdown or html files in
// dir. Every name is planned first: two sessions that would share a file
// (also by case) or, without force, an existing file refuse the whole
// export with nothing written. Each file is written to a temporary file
// in dir, then renamed, 0600 as the database is.
func exportShare(a *app, st sessiondb.Store, ids []string, o exportOptions) ([]string, error) {
	names := make([]string, len(ids))
	seen := map[string]string{}
	for i, id := range ids {
		names[i] = filepath.Join(o.out, shareFileName(id, o.format))
		key := strings.ToLower(names[i])
		if other, ok := seen[key]; ok {
			return nil, fmt.Errorf("sessions %s and %s would both be written to %s: %w", visible(other), visible(id), names[i], sessiondb.ErrInvalid)
		}
		seen[key] = id
		if _, err := os.Lstat(names[i]); err == nil && !o.force {
			return nil, fmt.Errorf("%s exists (--force replaces it): %w", names[i], sessiondb.ErrExists)
		}
	}
	if err := os.MkdirAll(o.out, 0o700); err != nil {
		return nil, err
	}
	var out []string
	for i, id := range ids {
		var b bytes.Buffer
		var err error
		if o.format == formatHTML {
			err = viewer.WriteHTML(a.ctx, st, id, &b)
		} else {
			err = viewer.WriteMarkdown(a.ctx, st, id, &b)
		}
		if err != nil {
			return out, fmt.Errorf("export %s: %w", visible(id), err)
		}
		if err := writeFileAtomic(names[i], b.Bytes(), o.force); err != nil {
			return out, fmt.Errorf("export %s: %w", visible(id), err)
		}
		out = append(out, names[i])
	}
	return out, nil
}

// writeFileAtomic writes data to path through a temporary file in the
// same directory and a rename; without replace, an existing path is
// refused (checked again just before the rename).
func writeFileAtomic(path string, data []byte, replace bool) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sessionctl-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if !replace {
		// A hard link fails when path exists: no race with another writer.
		if err := os.Link(tmp.Name(), path); err != nil {
			if os.IsExist(err) {
				return fmt.Errorf("%s exists: %w", path, sessiondb.ErrExists)
			}
			return err
		}
		return nil
	}
	return os.Rename(tmp.Name(), path)
}
