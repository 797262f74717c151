package cursor_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/sessiondb/sessiondb"
	"github.com/sessiondb/sessiondb/jsonlimport"
	"github.com/sessiondb/sessiondb/jsonlimport/cursor"
)

// TestCursorExportRefuses: exporting into Cursor's format is refused with
// an ErrInvalid (the format's own Export: ErrNoExport) and writes
// nothing.
func TestCursorExportRefuses(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	if _, err := jsonlimport.Import(ctx, s, []string{urpg}, jsonlimport.Options{}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	files, err := jsonlimport.Export(ctx, s, []string{smallComposer}, cursor.Name, out)
	if !errors.Is(err, sessiondb.ErrInvalid) || len(files) != 0 {
		t.Errorf("export: %v %v", files, err)
	}
	if files, err := (cursor.Format{}).Export(ctx, s, smallComposer, out); !errors.Is(err, cursor.ErrNoExport) || !errors.Is(err, sessiondb.ErrInvalid) || len(files) != 0 {
		t.Errorf("the format's Export: %v %v", files, err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Errorf("wrote %v", ents)
	}
}
