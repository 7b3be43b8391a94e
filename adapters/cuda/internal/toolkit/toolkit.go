package toolkit

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

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

// Candidates returns the library paths to try: the bare names (found through
// the loader's search path), then each name and each match of
// base+".*" inside every directory that has it, newest version first.
func Candidates(base string, names []string, dirs []string) []string {
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
		matches, _ := filepath.Glob(filepath.Join(dir, base+".*"))
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
