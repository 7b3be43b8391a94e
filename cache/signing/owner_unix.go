//go:build unix

package signing

import (
	"io/fs"
	"os"
	"syscall"
)

func ownerOf(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

func currentUID() int { return os.Geteuid() }
