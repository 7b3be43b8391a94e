package nvlib

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/gour-dev/gour/internal/dl"
)

// Library describes one library of the toolkit.
type Library struct {
	// Name names the library in messages, such as "NVRTC".
	Name string
	// Base is the file name without a version, such as "libnvrtc.so": the
	// development link, and the prefix of the versioned files.
	Base string
	// Versions are the soname versions of the toolkit releases the binding
	// knows, newest first, such as "13", "12", "11.2".
	Versions []string
}

// Names returns the file names asked of the loader's search path: Base
// first (a development link names the toolkit the user chose), then
// Base.<version> for each version.
func (lib Library) Names() []string {
	names := []string{lib.Base}
	for _, v := range lib.Versions {
		names = append(names, lib.Base+"."+v)
	}
	return names
}

// Load opens lib and resolves the symbol table that table builds for it
// (a function, so that a binding can choose its entry points' names by
// what the library exports). It tries lib's names through the loader's
// search path, then in the toolkit's directories (Dirs) and extraDirs,
// including any Base.* found there, newest version first. The library is
// closed again when a required symbol is missing. The error names every
// path tried and every directory searched; nothing panics.
func Load(lib Library, extraDirs []string, table func(*dl.Library) []dl.Symbol) (*dl.Library, error) {
	dirs := Dirs(extraDirs)
	l, err := dl.Open(lib.Candidates(dirs)...)
	if err != nil {
		return nil, fmt.Errorf("%s library not available (searched the loader path and %s): %w",
			lib.Name, strings.Join(dirs, ", "), err)
	}
	if err := l.Resolve(table(l)); err != nil {
		_ = l.Close()
		return nil, err
	}
	return l, nil
}

// Dirs returns the directories where a CUDA toolkit keeps its
// libraries: the standard install, $CUDA_HOME and $CUDA_PATH, then extra.
func Dirs(extra []string) []string {
	arch := map[string]string{"amd64": "x86_64-linux", "arm64": "sbsa-linux"}[runtime.GOARCH]
	dirs := []string{"/usr/local/cuda/lib64"}
	if arch != "" {
		dirs = append(dirs, "/usr/local/cuda/targets/"+arch+"/lib")
	}
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if root := os.Getenv(env); root != "" {
			dirs = append(dirs, filepath.Join(root, "lib64"))
		}
	}
	dirs = append(dirs, extra...)
	var out []string
	for _, d := range dirs {
		if d != "" && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// Candidates returns the library paths to try: the bare Names (found
// through the loader's search path), then, in each of dirs, each of Names
// that is there and each match of Base.*, newest version first.
func (lib Library) Candidates(dirs []string) []string {
	names := lib.Names()
	out := slices.Clone(names)
	add := func(p string) {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	for _, dir := range dirs {
		for _, n := range names {
			p := filepath.Join(dir, n)
			if _, err := os.Stat(p); err == nil {
				add(p)
			}
		}
		matches, _ := filepath.Glob(filepath.Join(dir, lib.Base+".*"))
		slices.SortFunc(matches, func(a, b string) int { return -compareVersions(a, b) })
		for _, m := range matches {
			add(m)
		}
	}
	return out
}

// compareVersions orders library paths by the numbers after ".so.", so that
// libx.so.12.8 sorts after libx.so.12.
func compareVersions(a, b string) int {
	va, vb := soVersion(a), soVersion(b)
	for i := range max(len(va), len(vb)) {
		x, y := -1, -1
		if i < len(va) {
			x = va[i]
		}
		if i < len(vb) {
			y = vb[i]
		}
		if x != y {
			return x - y
		}
	}
	return strings.Compare(a, b)
}

func soVersion(p string) []int {
	_, v, ok := strings.Cut(filepath.Base(p), ".so.")
	if !ok {
		return nil
	}
	var out []int
	for _, part := range strings.Split(v, ".") {
		n := 0
		for _, c := range part {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
		}
		out = append(out, n)
	}
	return out
}
