package main

import (
	"context"
	"time"

	"github.com/sessiondb/sessiondb"
)

// importScanIdle is how long the import's secret scanner waits, once it
// has caught up, before looking for newly committed entries again.
const importScanIdle = 500 * time.Millisecond

// importScan finishes the secret scan of what an import writes, as the
// import indexes it: the import ends with the database complete (indexed
// and scanned), instead of leaving a backlog that `secrets` would scan
// again on every call and that only a long-lived writer (watch) would
// finish. It runs beside the import, a step at a time (sessiondb's
// SecretKeeper.ScanSecrets: about 4 MiB of bodies a step), on the CPU
// the parse and the index leave; the store's background scanner takes
// turns with it rather than scanning the same batch twice.
type importScan struct {
	k      sessiondb.SecretKeeper
	cancel context.CancelFunc
	done   chan struct{} // closed when the loop has ended
	last   chan struct{} // closed by finish: scan to the end, then stop
	err    error
}

// startImportScan starts the scanner for st, or returns nil when st keeps
// no secret scan.
func startImportScan(ctx context.Context, st sessiondb.Store) *importScan {
	k, ok := st.(sessiondb.SecretKeeper)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &importScan{k: k, cancel: cancel, done: make(chan struct{}), last: make(chan struct{})}
	go s.run(ctx)
	return s
}

func (s *importScan) run(ctx context.Context) {
	defer close(s.done)
	// finishing: finish was called before the current step began, so
	// that step sees every commit of the import; once such a step finds
	// nothing left, the scan is complete.
	finishing := false
	for {
		if !finishing {
			select {
			case <-s.last:
				finishing = true
			default:
			}
		}
		more, err := s.k.ScanSecrets(ctx)
		if err != nil {
			s.err = err
			return
		}
		switch {
		case more:
			continue
		case finishing:
			return
		}
		select {
		case <-s.last:
			finishing = true
		case <-time.After(importScanIdle):
		case <-ctx.Done():
			s.err = ctx.Err()
			return
		}
	}
}

// finish scans what is left and waits for the scanner to stop; its error
// is the scan's (the context's when interrupted).
func (s *importScan) finish() error {
	close(s.last)
	<-s.done
	return s.err
}

// stop ends the scanner without finishing (the import failed); what it
// scanned stays recorded, the rest is left to the next writer.
func (s *importScan) stop() {
	s.cancel()
	<-s.done
}
