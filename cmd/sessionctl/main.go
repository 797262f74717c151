package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
)

// memoryLimit is the Go heap's soft limit when GOMEMLIMIT is not set (issue
// 42: peak RSS at most 512 MiB whatever the archive). What an import holds
// live is bounded (a chunk of a large file, a window of parsed units), but
// the collector lets garbage grow to the live heap again before it runs
// (GOGC=100): near this limit it runs sooner instead. It is soft: a
// command that needs more gets it, with more collection.
const memoryLimit = 384 << 20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	// The first SIGINT/SIGTERM cancels the context: the running command
	// stops at its next transaction boundary (each write is one transaction,
	// so nothing is half-written) and exits with an "interrupted" line.
	// Restoring the default handlers then lets a second signal kill the
	// process at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	// SESSIONDB_CPUPROFILE names a file to write a CPU profile of the
	// command into (bench -archive-profile sets it for the re-imports): a
	// profile of sessionctl as a user runs it, one process per command.
	if path := os.Getenv("SESSIONDB_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			_ = pprof.StartCPUProfile(f) // os.Exit below closes f after the stop
		}
	}
	a := newApp(ctx, os.Stdin, os.Stdout, os.Stderr)
	a.exitAfter = true
	code := a.run(os.Args[1:])
	stop()
	pprof.StopCPUProfile() // a no-op when no profile runs
	os.Exit(code)
}
