package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/sessiondb/sessiondb"
)

// The background secret scan (see "Secrets" in doc.go). PostgreSQL
// indexes text inside each write's transaction (its GIN index), so
// there is no indexer to ride on as in sqlstore: a goroutine of each
// store that may write scans, Options.ScanDelay after the commits that
// woke it, a batch at a time (engine.ScanSecrets), off the write path.
// Several processes may scan one database: a batch records a session
// only if its cursor is still what the batch read.

const defaultScanDelay = 50 * time.Millisecond

func (s *Store) startScanner() {
	if s.opts.ScanDelay <= 0 {
		s.opts.ScanDelay = defaultScanDelay
	}
	s.scanKick = make(chan struct{}, 1)
	s.scanStop = make(chan struct{})
	s.scanDone = make(chan struct{})
	s.kickScanner() // catch up with what others wrote
	go s.runScanner()
}

// kickScanner tells the scanner that rows were committed. It never blocks.
func (s *Store) kickScanner() {
	if s.scanKick == nil {
		return
	}
	select {
	case s.scanKick <- struct{}{}:
	default:
	}
}

func (s *Store) stopScanner() {
	if s.scanStop == nil {
		return
	}
	close(s.scanStop)
	<-s.scanDone
}

func (s *Store) runScanner() {
	defer close(s.scanDone)
	// Stopped between batches (scanStop), never by cancelling a batch's
	// context: Close waits for the batch, then closes the pool.
	ctx := context.Background()
	for {
		select {
		case <-s.scanKick:
		case <-s.scanStop:
			return
		}
		select {
		case <-time.After(s.opts.ScanDelay):
		case <-s.scanStop:
			return
		}
		for {
			more, err := s.ScanSecrets(ctx)
			if err != nil {
				if errors.Is(err, sessiondb.ErrClosed) {
					return
				}
				// Nothing is lost: reads scan what the scan has not
				// seen. Back off, then try again.
				s.scanErr.Store(&err)
				select {
				case <-time.After(time.Second):
					s.kickScanner()
				case <-s.scanStop:
					return
				}
				break
			}
			s.scanErr.Store(nil)
			if !more {
				break
			}
			select {
			case <-s.scanStop:
				return
			default:
			}
		}
	}
}

// ScanError returns the last error of the background secret scan, nil if
// its last batch succeeded. sessionctl doctor reports it.
func (s *Store) ScanError() error {
	if p := s.scanErr.Load(); p != nil {
		return *p
	}
	return nil
}
