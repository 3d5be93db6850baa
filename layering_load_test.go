package idemchaos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// listedPackage is the part of `go list -json` the layering test reads.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	CgoFiles   []string
	Imports    []string
	Deps       []string
	Module     *struct {
		Path string
		Dir  string
		Main bool
	}
	Error *struct{ Err string }
}

// loaded is the real graph, loaded once for every test of the package.
var loaded struct {
	once     sync.Once
	g        graph
	listDeps map[string][]string // module package -> Deps as go list reports them
	problems []string            // packages go list or the parser could not read
	err      error
}

// realGraph returns the package graph of the module, loading it on first
// use with a single `go list`.
func realGraph(t *testing.T) graph {
	t.Helper()
	loaded.once.Do(func() {
		loaded.g, loaded.listDeps, loaded.problems, loaded.err = loadGraph()
	})
	if loaded.err != nil {
		t.Fatalf("loading the package graph: %v", loaded.err)
	}
	for _, p := range loaded.problems {
		t.Logf("load: %s", p)
	}
	return loaded.g
}

// loadGraph lists the module's packages and all their dependencies (from
// the test's working directory, the module root; -e so packages that do not
// compile are still listed) and scans the module's non-test files for
// reads of the environment.
func loadGraph() (graph, map[string][]string, []string, error) {
	cmd := exec.Command("go", "list", "-e", "-deps",
		"-json=ImportPath,Dir,GoFiles,CgoFiles,Imports,Deps,Module,Error", "./...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return graph{}, nil, nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs, err := decodePackages(out)
	if err != nil {
		return graph{}, nil, nil, err
	}
	return buildGraph(pkgs)
}

func decodePackages(data []byte) ([]listedPackage, error) {
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		var p listedPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
}

func buildGraph(pkgs []listedPackage) (graph, map[string][]string, []string, error) {
	g := graph{imports: map[string][]string{}, ambient: map[string][]ambientUse{}}
	root := ""
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Main {
			g.module, root = p.Module.Path, p.Module.Dir
		}
	}
	if g.module == "" {
		return graph{}, nil, nil, errors.New("go list reported no package of the main module")
	}
	listDeps := map[string][]string{}
	var problems []string
	for _, p := range pkgs {
		g.imports[p.ImportPath] = cgoImports(p.Imports)
		if !g.inModule(p.ImportPath) {
			continue
		}
		listDeps[p.ImportPath] = p.Deps
		if p.Error != nil {
			problems = append(problems, fmt.Sprintf("%s: %s", p.ImportPath, p.Error.Err))
		}
		uses, errs := packageEnvReads(root, p)
		g.ambient[p.ImportPath] = uses
		problems = append(problems, errs...)
	}
	return g, listDeps, problems, nil
}

// cgoImports writes the cgo pseudo-import "C" as the package it builds
// against, runtime/cgo, as go list does in Deps.
func cgoImports(imports []string) []string {
	if !slices.Contains(imports, "C") {
		return imports
	}
	imports = slices.DeleteFunc(slices.Clone(imports), func(p string) bool { return p == "C" })
	if !slices.Contains(imports, "runtime/cgo") {
		imports = append(imports, "runtime/cgo")
	}
	return imports
}

// packageEnvReads scans the non-test files of p (GoFiles and CgoFiles never
// hold _test.go files) for reads of the environment.
func packageEnvReads(root string, p listedPackage) ([]ambientUse, []string) {
	var uses []ambientUse
	var errs []string
	fset := token.NewFileSet()
	for _, name := range slices.Concat(p.GoFiles, p.CgoFiles) {
		found, err := envReadsInFile(fset, filepath.Join(p.Dir, name))
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		uses = append(uses, relativePositions(root, found)...)
	}
	return uses, errs
}

func relativePositions(root string, uses []ambientUse) []ambientUse {
	for i, u := range uses {
		if rel, err := filepath.Rel(root, u.pos); err == nil {
			uses[i].pos = filepath.ToSlash(rel)
		}
	}
	return uses
}

// envFuncs are the functions that read the process environment, by the
// import path of their package.
var envFuncs = map[string][]string{
	"os":      {"Getenv", "LookupEnv", "Environ", "ExpandEnv"},
	"syscall": {"Getenv", "LookupEnv", "Environ"},
}

// envReadsInFile parses one file and returns its reads of the environment:
// every reference (call or function value) pkg.F to a function of envFuncs
// through the name the file imports pkg under, and calls of F when the file
// dot-imports pkg. A method or field named Getenv on anything else is not a
// read. (Without type information, a local variable that shadows the
// package name would be mistaken for it; that is not idiomatic Go.) The
// position of a use is file:line.
func envReadsInFile(fset *token.FileSet, path string) ([]ambientUse, error) {
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %v", path, err)
	}
	named, dotted := envImports(f)
	var uses []ambientUse
	add := func(pkg, fn string, pos token.Pos) {
		p := fset.Position(pos)
		uses = append(uses, ambientUse{what: pkg + "." + fn, pos: p.Filename + ":" + strconv.Itoa(p.Line)})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && isEnvFunc(named[id.Name], n.Sel.Name) {
				add(named[id.Name], n.Sel.Name, n.Pos())
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok {
				for _, pkg := range dotted {
					if isEnvFunc(pkg, id.Name) {
						add(pkg, id.Name, n.Pos())
					}
				}
			}
		}
		return true
	})
	return uses, nil
}

// envImports returns the names f imports the packages of envFuncs under,
// and the ones it dot-imports.
func envImports(f *ast.File) (named map[string]string, dotted []string) {
	named = map[string]string{}
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil || envFuncs[path] == nil {
			continue
		}
		name := path // "os" and "syscall" are named after their path
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch name {
		case "_":
		case ".":
			dotted = append(dotted, path)
		default:
			named[name] = path
		}
	}
	return named, dotted
}

func isEnvFunc(pkg, fn string) bool {
	return slices.Contains(envFuncs[pkg], fn)
}
