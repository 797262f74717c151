// Command longtests lists the tests of the module that the long run
// changes: those that reach package longtest (Skip, Sample, Size, Every,
// Enabled), directly or through the functions, methods and package-level
// variables they use, in their own package or in another package of the
// module (storetest's suite, for instance).
//
// .ci/run runs the README's quick `go test ./...` first and then only
// these tests with SESSIONDB_LONG=1: a test that never reaches longtest
// runs the same in both runs, and running it twice bought nothing but
// minutes.
//
// The analysis reads the syntax only (go/parser, no type checking), so it
// errs on the side of running more: a method call x.M counts as a use of
// every method named M in the module, and a test whose TestMain or init
// reaches longtest makes its whole package long.
//
// Usage:
//
//	go run ./internal/longtest/longtests [dir]
//
// prints two lines: the packages (./path, space-separated) and the -run
// pattern that selects their long tests (^(TestA|TestB)$). It exits
// non-zero when it finds none, which would mean the analysis broke.
package main

import (
	"fmt"
	"os"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	pkgs, pattern, err := longTests(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "longtests:", err)
		os.Exit(1)
	}
	fmt.Println(pkgs)
	fmt.Println(pattern)
}
