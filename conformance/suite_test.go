package conformance

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gour-dev/gour/internal/harness/testenv"
)

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"pthread-skylake-avx512-AMD EPYC 7B13": "pthread-skylake-avx512-AMD_EPYC_7B13",
		"NVIDIA H100 80GB HBM3":                "NVIDIA_H100_80GB_HBM3",
		"  Intel(R) Arc(TM) A770  ":            "Intel_R_Arc_TM_A770",
		"a/b:c":                                "a_b_c",
		"":                                     "unnamed",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRequiredAdaptersPresent(t *testing.T) {
	testenv.CheckRequired(t)
	if len(testenv.RequiredAdapters()) == 0 {
		t.Skipf("%s is not set: missing adapters make the suite skip, not fail", testenv.EnvRequireAdapters)
	}
}

// The suite's own device code is all there, embedded: the cases run from
// any directory.
func TestBackendSourcesPresent(t *testing.T) {
	for backend, code := range builtinDeviceCode() {
		if err := code.check(); err != nil {
			t.Errorf("%s: %v", backend, err)
			continue
		}
		for _, file := range deviceCodeFiles {
			if src, err := code.read(file); err != nil || len(bytes.TrimSpace(src)) == 0 {
				t.Errorf("%s: %s is empty or unreadable (%v)", backend, code.path(file), err)
			}
		}
		if il, ok, err := code.readIL(); !ok || err != nil || len(bytes.TrimSpace(il)) == 0 {
			t.Errorf("%s: IL %q is missing, empty or unreadable (%v)", backend, code.IL, err)
		}
	}
}

func TestDeviceCodeCheck(t *testing.T) {
	files := fstest.MapFS{
		"k/kernels.x": {Data: []byte("k")}, "k/invalid.x": {Data: []byte("i")},
		"k/link_main.x": {Data: []byte("m")}, "k/link_lib.x": {Data: []byte("l")},
	}
	for _, tt := range []struct {
		name string
		code DeviceCode
		want string // a substring of the error; "" for none
	}{
		{"complete", DeviceCode{Files: files, Dir: "k", Ext: ".x"}, ""},
		{"no files", DeviceCode{Dir: "k", Ext: ".x"}, "Files is nil"},
		{"wrong extension", DeviceCode{Files: files, Dir: "k", Ext: ".cl"}, "no kernels program"},
		{"missing IL", DeviceCode{Files: files, Dir: "k", Ext: ".x", IL: "k/kernels.spv"}, "DeviceCode.IL"},
	} {
		err := tt.code.check()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: check() = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if _, err := newSuite(Options{DeviceCode: map[string]DeviceCode{"mine": {Dir: "k"}}}); err == nil || !strings.Contains(err.Error(), `DeviceCode["mine"]`) {
		t.Errorf("newSuite with incomplete device code: %v, want an error naming the adapter", err)
	}
	if _, err := newSuite(Options{Selector: "opencl"}); err == nil || !strings.Contains(err.Error(), "Options.Selector") {
		t.Errorf("newSuite with a malformed selector: %v, want an error naming Options.Selector", err)
	}
}

func TestSelectTests(t *testing.T) {
	all, err := selectTests(nil)
	if err != nil || len(all) != len(tests) {
		t.Fatalf("selectTests(nil) = %d cases, %v; want all %d", len(all), err, len(tests))
	}
	// The suite's order, whatever the order asked for.
	some, err := selectTests([]string{tests[2].Name, tests[0].Name})
	if err != nil || len(some) != 2 || some[0].Name != tests[0].Name || some[1].Name != tests[2].Name {
		t.Errorf("selectTests(third, first) = %v, %v; want first, third", names(some), err)
	}
	if _, err := selectTests([]string{tests[0].Name, "TestNoSuchCase"}); err == nil || !strings.Contains(err.Error(), "TestNoSuchCase") {
		t.Errorf("selectTests with an unknown name: %v, want an error naming it", err)
	}
}

func names(ts []Test) []string {
	var out []string
	for _, c := range ts {
		out = append(out, c.Name)
	}
	return out
}

func TestRunPattern(t *testing.T) {
	for name, want := range map[string]string{
		"TestKernelReleased":                   "^TestKernelReleased$",
		"TestConformance/TestKernelReleased":   "^TestConformance$/^TestKernelReleased$",
		"TestX/case.with+meta":                 `^TestX$/^case\.with\+meta$`,
		"TestTrace/TestKernelLaunchAfterArgRe": "^TestTrace$/^TestKernelLaunchAfterArgRe$",
	} {
		if got := runPattern(name); got != want {
			t.Errorf("runPattern(%q) = %q, want %q", name, got, want)
		}
		for i, part := range strings.Split(runPattern(name), "/") {
			if !regexp.MustCompile(part).MatchString(strings.Split(name, "/")[i]) {
				t.Errorf("runPattern(%q): %q does not match its own element", name, part)
			}
		}
	}
}

// Every case has its go test wrapper, every wrapper calls the case of its
// own name, and Tests lists exactly the package's Test functions: run
// go generate ./conformance/ when this fails.
func TestWrappersMatchTests(t *testing.T) {
	if _, err := os.Stat("tests_generated.go"); err != nil {
		// A test binary run away from the source (bin/conformance.test on
		// a device machine): the check belongs to go test.
		t.Skipf("the conformance package's source is not in the working directory: %v", err)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string][]*ast.File{} // "conformance" (non-test files only), "conformance_test"
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if pkg := f.Name.Name; pkg == "conformance_test" || !strings.HasSuffix(name, "_test.go") {
			pkgs[pkg] = append(pkgs[pkg], f)
		}
	}
	var cases, wrapped []string
	for _, f := range pkgs["conformance"] {
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && regexp.MustCompile(`^Test[A-Z]`).MatchString(fn.Name.Name) {
				cases = append(cases, fn.Name.Name)
			}
		}
	}
	for _, f := range pkgs["conformance_test"] {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Name.Name == "TestMain" || len(fn.Body.List) != 1 {
				continue
			}
			call, ok := fn.Body.List[0].(*ast.ExprStmt)
			if !ok {
				continue
			}
			if c, ok := call.X.(*ast.CallExpr); ok {
				if sel, ok := c.Fun.(*ast.SelectorExpr); ok && isIdent(sel.X, "conformance") {
					if sel.Sel.Name != fn.Name.Name {
						t.Errorf("wrapper %s calls conformance.%s", fn.Name.Name, sel.Sel.Name)
					}
					wrapped = append(wrapped, sel.Sel.Name)
				}
			}
		}
	}
	listed := names(Tests())
	if missing, extra := difference(cases, listed); len(missing)+len(extra) > 0 {
		t.Errorf("Tests() is out of date (lacks %v; lists %v, which are no cases): run go generate ./conformance/", missing, extra)
	}
	if missing, extra := difference(cases, wrapped); len(missing)+len(extra) > 0 {
		t.Errorf("the go test wrappers are out of date (none for %v; some for %v, which are no cases): run go generate ./conformance/", missing, extra)
	}
	for _, c := range Tests() {
		if c.F == nil {
			t.Errorf("Tests(): %s has no function", c.Name)
		}
	}
}

// difference returns the names of want missing from got, and those of got
// that want lacks.
func difference(want, got []string) (missing, extra []string) {
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	return missing, extra
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// A run binds its cases to its options: the cases named run on the
// devices kept, its known failures are added to the suite's, and what its
// cases shared is released when the run's test ends.
// TestKernelLaunchAfterArgReleased re-runs this test in a child process,
// restricted to that case.
func TestRunOptions(t *testing.T) {
	dev := testenv.Devices(t)[0]
	s, err := newSuite(Options{
		Adapters: []string{dev.Backend()},
		Selector: fmt.Sprintf("%s:%d", dev.Backend(), dev.Index()),
		KnownFailures: []KnownFailure{
			{Adapter: dev.Backend(), Test: "TestDeviceString", Reason: "a known failure of TestRunOptions"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	cases, err := selectTests([]string{"TestPlatformInfo", "TestKernelLaunchAfterArgReleased", "TestProgramBuildFromSource"})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("run", func(t *testing.T) {
		t.Cleanup(s.release)
		s.run(t, cases)
		if got := s.devices(t); len(got) != 1 || got[0] != dev {
			t.Errorf("the run's devices = %v, want [%v]", got, dev)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if st := s.states[dev]; st == nil || st.ctx == nil || len(st.programs) == 0 {
			t.Errorf("the run's cases shared no context and program on %v", dev)
		}
	})
	if len(s.states) != 0 {
		t.Errorf("%d devices' shared objects left after the run's test ended", len(s.states))
	}

	// The run's known failure is the run's alone.
	for _, tt := range []struct {
		suite *suite
		want  bool
	}{{s, true}, {defaultSuite, false}} {
		f := &Fixture{Device: dev, Backend: dev.Backend(), suite: tt.suite, test: "TestDeviceString", prefix: t.Name()}
		if _, got := f.knownFailure(t); got != tt.want {
			t.Errorf("TestDeviceString a known failure of %s: %v, want %v", map[bool]string{true: "the run", false: "the default suite"}[tt.want], got, tt.want)
		}
	}
}
