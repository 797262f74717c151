package torture

import (
	"flag"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"
)

var (
	flagDuration = flag.Duration("torture.duration", 0, "how long TestCrashWorkload runs (default 20s, or $TORTURE_DURATION)")
	flagSeed     = flag.Uint64("torture.seed", 0, "seed of TestCrashWorkload (default random, or $TORTURE_SEED); printed at start and on failure")
	flagWorkers  = flag.Int("torture.workers", 0, "worker processes of TestCrashWorkload (default 3, or $TORTURE_WORKERS)")
	flagGo       = flag.Int("torture.goroutines", 0, "goroutines per worker process (default 4)")
	flagRecheck  = flag.String("torture.recheck", "", "instead of running the workload, check the evidence directory a failed TestCrashWorkload saved")
)

func TestMain(m *testing.M) {
	if role := os.Getenv(EnvRole); role != "" {
		os.Exit(ChildMain(role))
	}
	code := m.Run()
	removeChildExe()
	os.Exit(code)
}

func duration() time.Duration {
	if *flagDuration > 0 {
		return *flagDuration
	}
	if d, err := time.ParseDuration(os.Getenv("TORTURE_DURATION")); err == nil && d > 0 {
		return d
	}
	return 20 * time.Second
}

var (
	seedOnce sync.Once
	seedVal  uint64
)

// seed returns the run's seed: -torture.seed, else $TORTURE_SEED, else
// random — one value for the whole test binary, so that every test of a
// run prints the same seed and replays with it.
func seed() uint64 {
	seedOnce.Do(func() {
		seedVal = *flagSeed
		if seedVal == 0 {
			if s, err := strconv.ParseUint(os.Getenv("TORTURE_SEED"), 10, 64); err == nil {
				seedVal = s
			}
		}
		if seedVal == 0 {
			seedVal = uint64(time.Now().UnixNano())
		}
	})
	return seedVal
}

func workers() int {
	if *flagWorkers > 0 {
		return *flagWorkers
	}
	if n, err := strconv.Atoi(os.Getenv("TORTURE_WORKERS")); err == nil && n > 0 {
		return n
	}
	return 3
}

func goroutines() int {
	if *flagGo > 0 {
		return *flagGo
	}
	return 4
}
