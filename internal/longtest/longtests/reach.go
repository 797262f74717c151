package main

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// longtestSuffix ends the import path whose use makes a test long.
const longtestSuffix = "/internal/longtest"

// decl is one top-level declaration: a function, a method or a
// package-level variable or constant, with what its body refers to.
type decl struct {
	key    string   // dir + "." + name, or dir + "." + Recv + "." + name
	test   bool     // a Test function of a _test.go file
	whole  bool     // TestMain or init of a _test.go file: the whole package
	dir    string   // the package's directory, relative to the root
	name   string   // the function's name
	direct bool     // refers to package longtest itself
	refs   []string // keys of same-package or imported declarations
	calls  []string // selector names x.M that may be methods
}

// longTests analyses the module under root and returns the packages that
// hold long tests and the -run pattern that selects those tests.
func longTests(root string) (pkgs, pattern string, err error) {
	module, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", "", err
	}
	var decls []*decl
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || name == "vendor" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		ds, err := parseFile(path, filepath.ToSlash(rel), module)
		if err != nil {
			return err
		}
		decls = append(decls, ds...)
		return nil
	})
	if err != nil {
		return "", "", err
	}
	tests, whole := reaching(decls)
	if len(tests) == 0 && len(whole) == 0 {
		return "", "", errors.New("no test reaches package longtest")
	}
	return render(tests, whole)
}

// testName is what a test's name must be to go in the -run pattern as it is.
var testName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// render turns the long tests (dir -> names) and the packages long as a
// whole into the go test arguments.
func render(tests map[string][]string, whole map[string]bool) (pkgs, pattern string, err error) {
	dirs := map[string]bool{}
	names := map[string]bool{}
	for dir, ns := range tests {
		dirs[dir] = true
		for _, n := range ns {
			names[n] = true
		}
	}
	for dir := range whole {
		dirs[dir] = true
	}
	var ps []string
	for dir := range dirs {
		ps = append(ps, "./"+strings.TrimPrefix(dir, "./"))
	}
	slices.Sort(ps)
	if len(whole) > 0 {
		// A package long as a whole runs every test; go test has one
		// -run for all packages, so those go in a second invocation.
		return "", "", fmt.Errorf("TestMain or init reaches package longtest in %v: run those packages whole", slices.Sorted(maps.Keys(whole)))
	}
	ns := slices.Sorted(maps.Keys(names))
	for _, n := range ns {
		if !testName.MatchString(n) {
			return "", "", fmt.Errorf("test name %q", n)
		}
	}
	return strings.Join(ps, " "), "^(" + strings.Join(ns, "|") + ")$", nil
}

// reaching marks every declaration that reaches package longtest and
// returns the marked tests by directory and the directories whose
// TestMain or test init is marked.
func reaching(decls []*decl) (tests map[string][]string, whole map[string]bool) {
	byKey := map[string][]*decl{}
	methods := map[string][]*decl{} // method name -> methods of that name
	for _, d := range decls {
		byKey[d.key] = append(byKey[d.key], d)
		if strings.Count(strings.TrimPrefix(d.key, d.dir+"."), ".") == 1 {
			methods[d.name] = append(methods[d.name], d)
		}
	}
	marked := map[*decl]bool{}
	for _, d := range decls {
		if d.direct {
			marked[d] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for _, d := range decls {
			if marked[d] {
				continue
			}
			hit := false
			for _, r := range d.refs {
				for _, t := range byKey[r] {
					hit = hit || marked[t]
				}
			}
			for _, c := range d.calls {
				for _, t := range methods[c] {
					hit = hit || marked[t]
				}
			}
			if hit {
				marked[d] = true
				changed = true
			}
		}
	}
	tests = map[string][]string{}
	whole = map[string]bool{}
	for _, d := range decls {
		switch {
		case !marked[d]:
		case d.whole:
			whole[d.dir] = true
		case d.test:
			tests[d.dir] = append(tests[d.dir], d.name)
		}
	}
	return tests, whole
}

// parseFile returns the top-level declarations of one file.
func parseFile(path, dir, module string) ([]*decl, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	isTest := strings.HasSuffix(path, "_test.go")
	imports := map[string]string{} // local name -> dir, "" for longtest
	for _, im := range f.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			return nil, err
		}
		if p != module && !strings.HasPrefix(p, module+"/") {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		target := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		if target == "" {
			target = "."
		}
		if strings.HasSuffix(p, longtestSuffix) {
			target = ""
		}
		imports[name] = target
	}
	var out []*decl
	add := func(key, name string, node ast.Node, test, whole bool) {
		d := &decl{key: key, name: name, dir: dir, test: test, whole: whole}
		ast.Inspect(node, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok {
					if target, ok := imports[x.Name]; ok {
						if target == "" {
							d.direct = true
						} else {
							d.refs = append(d.refs, target+"."+n.Sel.Name)
						}
						return false
					}
				}
				d.calls = append(d.calls, n.Sel.Name)
			case *ast.Ident:
				d.refs = append(d.refs, dir+"."+n.Name)
			}
			return true
		})
		out = append(out, d)
	}
	for _, dd := range f.Decls {
		switch dd := dd.(type) {
		case *ast.FuncDecl:
			name := dd.Name.Name
			if dd.Recv != nil && len(dd.Recv.List) > 0 {
				add(dir+"."+recvName(dd.Recv.List[0].Type)+"."+name, name, dd.Body, false, false)
				continue
			}
			// A fuzz target's seed corpus runs under -run as a test does.
			test := isTest && (strings.HasPrefix(name, "Test") && name != "TestMain" || strings.HasPrefix(name, "Fuzz"))
			whole := isTest && (name == "TestMain" || name == "init")
			if dd.Body != nil {
				add(dir+"."+name, name, dd.Body, test, whole)
			}
		case *ast.GenDecl:
			for _, s := range dd.Specs {
				vs, ok := s.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for _, n := range vs.Names {
					add(dir+"."+n.Name, n.Name, vs, false, false)
				}
			}
		}
	}
	return out, nil
}

// recvName is the type name of a method's receiver.
func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return "?"
		}
	}
}

// modulePath reads the module line of go.mod.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}
