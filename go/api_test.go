package hrwhash_test

import (
	"go/ast"
	gobuild "go/build"
	"go/parser"
	"go/token"
	"go/types"
	"sort"
	"testing"
)

// exported lists the package's exported names under one build context: functions, types,
// constants, variables, methods (Type.Method) and struct fields (Type.Field), each with the
// text of its declaration's signature so that a changed type or signature differs too.
func exported(t *testing.T, ctx gobuild.Context) map[string]string {
	t.Helper()
	pkg, err := ctx.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	names := map[string]string{}
	typeText := types.ExprString
	for _, f := range append(pkg.GoFiles, pkg.CgoFiles...) {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if s, ok := recv.(*ast.StarExpr); ok {
						recv = s.X
					}
					id, ok := recv.(*ast.Ident)
					if !ok || !id.IsExported() {
						continue
					}
					name = id.Name + "." + name
				}
				names[name] = typeText(d.Type)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						names[s.Name.Name] = d.Tok.String()
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fl := range st.Fields.List {
								for _, n := range fl.Names {
									if n.IsExported() {
										names[s.Name.Name+"."+n.Name] = typeText(fl.Type)
									}
								}
							}
						} else {
							names[s.Name.Name] = typeText(s.Type)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names[n.Name] = d.Tok.String()
							}
						}
					}
				}
			}
		}
	}
	return names
}

func buildContext(cgo bool, tags ...string) gobuild.Context {
	ctx := gobuild.Default
	ctx.CgoEnabled = cgo
	ctx.BuildTags = tags
	return ctx
}

// TestExportedAPISameInEveryBuild compares the exported API of the default build (pure Go, with
// cgo on or off) with that of the hrwhash_cgo build.
func TestExportedAPISameInEveryBuild(t *testing.T) {
	pure := exported(t, buildContext(false))
	pureWithCgo := exported(t, buildContext(true))
	withLib := exported(t, buildContext(true, "hrwhash_cgo"))
	t.Logf("exported names: %d in pure Go, %d with -tags hrwhash_cgo", len(pure), len(withLib))
	diff := func(a, b map[string]string) []string {
		var out []string
		for n, sig := range a {
			if other, ok := b[n]; !ok || other != sig {
				out = append(out, n)
			}
		}
		sort.Strings(out)
		return out
	}
	if d := diff(pure, pureWithCgo); len(d) > 0 || len(diff(pureWithCgo, pure)) > 0 {
		t.Errorf("CGO_ENABLED changes the default build's API: %v %v", d, diff(pureWithCgo, pure))
	}
	if d := diff(pure, withLib); len(d) > 0 {
		t.Errorf("missing or different in the hrwhash_cgo build: %v", d)
	}
	if d := diff(withLib, pure); len(d) > 0 {
		t.Errorf("only in the hrwhash_cgo build: %v", d)
	}
}
