package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// PoCL with its kernel cache off (POCL_KERNEL_CACHE=0, as make test runs)
// still builds in a directory under its cache root, named after the
// program's hash, and removes it when the program is released. go test
// runs packages in processes side by side, and two of them building the
// same program (compute's built-in kernels, say) share that directory:
// one's release removed it while the other linked a kernel there
// ("Final linking of kernel dot_sum_f32 failed", then abort). So each
// test process that imports testenv gets a cache root of its own, unless
// the environment names one; the roots of processes that have exited are
// removed on the way.
func init() {
	if os.Getenv("POCL_KERNEL_CACHE") != "0" || os.Getenv("POCL_CACHE_DIR") != "" {
		return
	}
	const prefix = "gour-pocl-"
	tmp := os.TempDir()
	if old, err := filepath.Glob(filepath.Join(tmp, prefix+"*")); err == nil {
		for _, dir := range old {
			pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), prefix))
			if err == nil && pid != os.Getpid() && syscall.Kill(pid, 0) == syscall.ESRCH {
				os.RemoveAll(dir)
			}
		}
	}
	dir := filepath.Join(tmp, fmt.Sprintf("%s%d", prefix, os.Getpid()))
	if err := os.MkdirAll(dir, 0o700); err == nil {
		os.Setenv("POCL_CACHE_DIR", dir)
	}
}
