package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// median returns the median of xs (0 when empty).
func median(xs []float64) float64 { return percentile(xs, 50) }

// percentile returns the p-th percentile of xs by the nearest-rank method
// (0 when empty).
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	rank := int(p/100*float64(len(s))+0.999999) - 1
	return s[min(max(rank, 0), len(s)-1)]
}

// timeIt runs fn and returns its duration in seconds.
func timeIt(fn func() error) (float64, error) {
	t := time.Now()
	err := fn()
	return time.Since(t).Seconds(), err
}

// procStatus returns a field of /proc/self/status in bytes (kB values).
func procStatus(field string) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		fs := strings.Fields(rest)
		if len(fs) == 0 {
			return 0
		}
		kb, _ := strconv.ParseInt(fs[0], 10, 64)
		return kb << 10
	}
	return 0
}

// peakRSS is the process's peak resident set size (VmHWM).
func peakRSS() int64 { return procStatus("VmHWM") }

// Peak-RSS bookkeeping. VmHWM can be reset (writing 5 to
// /proc/self/clear_refs, Linux >= 4.0), which gives the peak of one phase;
// the peaks seen before each reset are kept so that the process's overall
// peak is still known.
var (
	seenPeak    int64 // highest VmHWM observed before a reset
	measuring   bool  // the measurement phase has begun
	measurePeak int64 // highest VmHWM observed during measurement, before a reset
)

// resetPeakRSS returns memory to the OS and resets VmHWM to the current
// RSS. It reports whether the reset worked.
func resetPeakRSS() bool {
	p := peakRSS()
	seenPeak = max(seenPeak, p)
	if measuring {
		measurePeak = max(measurePeak, p)
	}
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// startMeasure marks the end of a workload's setup: peaks from now on are
// the measurement's.
func startMeasure() {
	resetPeakRSS()
	measuring = true
}

// processPeak is the process's peak RSS over its whole life.
func processPeak() int64 { return max(seenPeak, peakRSS()) }

// measurementPeak is the peak RSS since startMeasure (0 if never called).
func measurementPeak() int64 {
	if !measuring {
		return 0
	}
	return max(measurePeak, peakRSS())
}

// phasePeak runs fn and returns the peak RSS reached while it ran (or the
// process peak so far when VmHWM cannot be reset).
func phasePeak(fn func() error) (int64, error) {
	resetPeakRSS()
	err := fn()
	return peakRSS(), err
}

// cpuTime is the CPU time (user + system) the process has used, in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// Formatting helpers.

func fmtDur(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.1fµs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%d B", n)
	}
}

func fmtRate(v float64, unit string) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2fM %s", v/1e6, unit)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk %s", v/1e3, unit)
	default:
		return fmt.Sprintf("%.1f %s", v, unit)
	}
}
