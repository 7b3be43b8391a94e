//go:build unix

package fileowner

import (
	"io/fs"
	"os"
	"syscall"
)

// Of returns the user ID that owns fi; ok is false where the system
// does not say.
func Of(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// Me is this process's effective user ID.
func Me() int { return os.Geteuid() }
