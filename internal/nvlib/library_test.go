package nvlib

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gour-dev/gour/internal/dl"
)

func TestToolkitDirs(t *testing.T) {
	t.Setenv("CUDA_HOME", "/opt/cuda-home")
	t.Setenv("CUDA_PATH", "/opt/cuda-home")
	dirs := Dirs([]string{"/extra", ""})
	for _, want := range []string{"/usr/local/cuda/lib64", "/opt/cuda-home/lib64", "/extra"} {
		if !slices.Contains(dirs, want) {
			t.Errorf("Dirs = %v, missing %s", dirs, want)
		}
	}
	if n := len(dirs); n != len(slices.Compact(slices.Clone(dirs))) {
		t.Errorf("duplicates in %v", dirs)
	}
}

func TestLibraryNamesAndCandidates(t *testing.T) {
	lib := Library{Name: "test", Base: "libgourtk.so", Versions: []string{"13", "12"}}
	if got, want := lib.Names(), []string{"libgourtk.so", "libgourtk.so.13", "libgourtk.so.12"}; !slices.Equal(got, want) {
		t.Errorf("Names = %v, want %v", got, want)
	}
	dir := t.TempDir()
	for _, n := range []string{"libgourtk.so.12", "libgourtk.so.12.8.93", "libgourtk.so.13.0.48", "libgourtk-builtins.so.12"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := lib.Candidates([]string{dir})
	want := append(lib.Names(), // the loader's search path first, then the directory
		filepath.Join(dir, "libgourtk.so.12"),      // a known soname
		filepath.Join(dir, "libgourtk.so.13.0.48"), // then the newest file
		filepath.Join(dir, "libgourtk.so.12.8.93"))
	if !slices.Equal(got, want) {
		t.Errorf("Candidates =\n%v, want\n%v", got, want)
	}
}

func TestLoadMissingLibraryNamesPathsAndDirs(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "libgourtk.so.12.1")
	if err := os.WriteFile(fake, []byte("not ELF"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := Library{Name: "Gour test", Base: "libgourtk.so", Versions: []string{"12"}}
	called := false
	_, err := Load(lib, []string{dir}, func(*dl.Library) []dl.Symbol { called = true; return nil })
	if err == nil {
		t.Fatal("Load of a missing library succeeded")
	}
	for _, want := range []string{"Gour test library not available", "libgourtk.so.12", fake, dir, "/usr/local/cuda/lib64"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %q: %v", want, err)
		}
	}
	if called {
		t.Error("the symbol table was built for a library that did not load")
	}
}

// TestLoadResolvesTheTable loads libc as a stand-in toolkit library: a
// table that libc satisfies loads; one with a missing required symbol is
// an error naming it.
func TestLoadResolvesTheTable(t *testing.T) {
	libc := Library{Name: "libc", Base: "libc.so", Versions: []string{"6"}}
	var strlen, missing uintptr
	l, err := Load(libc, nil, func(got *dl.Library) []dl.Symbol {
		if got == nil {
			t.Error("table built without the library")
		}
		return []dl.Symbol{{Name: "strlen", Addr: &strlen}, {Name: "gour_no_such_symbol", Addr: &missing, Optional: true}}
	})
	if err != nil {
		t.Fatalf("Load(libc): %v", err)
	}
	defer l.Close()
	if strlen == 0 || missing != 0 {
		t.Errorf("strlen = %#x, optional missing symbol = %#x", strlen, missing)
	}
	_, err = Load(libc, nil, func(*dl.Library) []dl.Symbol {
		return []dl.Symbol{{Name: "gour_no_such_symbol", Alternates: []string{"__gour_no_such_symbol_1_0"}, Addr: &missing}}
	})
	if err == nil || !strings.Contains(err.Error(), "gour_no_such_symbol") || !strings.Contains(err.Error(), "__gour_no_such_symbol_1_0") {
		t.Errorf("missing required symbol: err = %v, want one naming it and its alternate", err)
	}
}
