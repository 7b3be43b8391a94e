package toolkit

import (
	"slices"
	"testing"
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
