//go:build unix

package cache

import (
	"io/fs"
	"syscall"
)

// oNoFollow makes an open fail on a symbolic link; oNonblock keeps an
// open of a FIFO planted in the cache from blocking.
const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonblock = syscall.O_NONBLOCK
)

// isLoop reports an open refused because the path is a symbolic link
// (O_NOFOLLOW) or a FIFO without a reader.
func isLoop(err error) bool { return errorIs(err, syscall.ELOOP, syscall.ENXIO) }

// isReadOnlyFS reports a write refused because the file system is
// read-only or the directory is not this user's to write.
func isReadOnlyFS(err error) bool { return errorIs(err, syscall.EROFS, fs.ErrPermission) }
