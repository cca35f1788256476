package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// commandFunctionLines is the most lines (from "func" to the closing
// brace) a command constructor may have (issue 8): flags belong in an
// options type's register method, checks in validate, the run in a
// function of its own.
const commandFunctionLines = 60

// TestCommandFunctionsAreShort parses the package and fails when checkCmd,
// loadCmd or demoCmd grows past commandFunctionLines.
func TestCommandFunctionsAreShort(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"checkCmd": true, "loadCmd": true, "demoCmd": true}
	found := map[string]int{}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Recv != nil || !want[fd.Name.Name] || fd.Body == nil {
					continue
				}
				found[fd.Name.Name] = fset.Position(fd.Body.Rbrace).Line - fset.Position(fd.Pos()).Line + 1
			}
		}
	}
	for name := range want {
		n, ok := found[name]
		switch {
		case !ok:
			t.Errorf("no function %s in the package", name)
		case n > commandFunctionLines:
			t.Errorf("%s is %d lines, over %d: move flags to register, checks to validate, the run to its own function", name, n, commandFunctionLines)
		default:
			t.Logf("%s: %d lines", name, n)
		}
	}
}
