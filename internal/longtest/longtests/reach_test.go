package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLongTestsReach builds a small module whose tests reach package
// longtest in every way the analysis follows, and some that do not.
func TestLongTestsReach(t *testing.T) {
	root := t.TempDir()
	write := func(path, src string) {
		t.Helper()
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("internal/longtest/longtest.go", "package longtest\n\nfunc Enabled() bool { return false }\nfunc Size(a, b int) int { return a }\n")
	// A suite package (not a test file) whose Run reaches longtest through
	// a table of functions and a method.
	write("suite/suite.go", `package suite

import lt "example.com/m/internal/longtest"

type s struct{}

func (s) big() int { return lt.Size(1, 2) }

var cases = []func(){caseA}

func caseA() { var x s; _ = x.big() }

func Run() { for _, c := range cases { c() } }

func Quick() {}
`)
	write("a/a_test.go", `package a

import (
	"testing"

	"example.com/m/internal/longtest"
	"example.com/m/suite"
)

var rounds = longtest.Size(3, 300)

func helper() int { return rounds }

func TestDirect(t *testing.T) { if longtest.Enabled() { t.Log() } }
func TestThroughVar(t *testing.T) { _ = rounds }
func TestThroughHelper(t *testing.T) { t.Run("x", func(t *testing.T) { helper() }) }
func TestSuite(t *testing.T) { suite.Run() }
func TestQuickSuite(t *testing.T) { suite.Quick() }
func TestPlain(t *testing.T) { t.Run("y", func(t *testing.T) {}) }
`)
	write("b/b_test.go", `package b_test

import "testing"

func TestNothingLong(t *testing.T) {}
`)
	write("a/testdata/x_test.go", "package x\n\nimport \"example.com/m/internal/longtest\"\n\nfunc TestIgnored() { longtest.Enabled() }\n")
	pkgs, pattern, err := longTests(root)
	if err != nil {
		t.Fatal(err)
	}
	if pkgs != "./a" {
		t.Errorf("packages %q, want ./a", pkgs)
	}
	if want := "^(TestDirect|TestSuite|TestThroughHelper|TestThroughVar)$"; pattern != want {
		t.Errorf("pattern %q,\nwant    %q", pattern, want)
	}

	// A TestMain that reaches longtest makes the whole package long: the
	// tool refuses rather than leave its other tests out.
	write("b/main_test.go", "package b_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/internal/longtest\"\n)\n\nfunc TestMain(m *testing.M) { longtest.Enabled(); m.Run() }\n")
	if _, _, err := longTests(root); err == nil || !strings.Contains(err.Error(), "[b]") {
		t.Errorf("TestMain reaching longtest: err %v", err)
	}
}

// TestLongTestsOfThisModule checks the analysis against this module: the
// tests known to change in the long run are among those it lists.
func TestLongTestsOfThisModule(t *testing.T) {
	pkgs, pattern, err := longTests(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"./sqlstore", "./pgstore", "./jsonlimport", "./torture"} {
		if !strings.Contains(" "+pkgs+" ", " "+p+" ") {
			t.Errorf("packages %q lack %s", pkgs, p)
		}
	}
	// TestConformance reaches longtest only through storetest.Run's table
	// of groups; TestGrowthCorpus calls longtest.Skip itself; FuzzPiLine
	// through jsonltest's seed helper (a fuzz target's seeds run under -run).
	for _, n := range []string{"TestConformance", "TestGrowthCorpus", "TestCrashWorkload", "FuzzPiLine"} {
		if !strings.Contains(pattern, "|"+n+"|") && !strings.Contains(pattern, "("+n+"|") {
			t.Errorf("pattern lacks %s", n)
		}
	}
}
