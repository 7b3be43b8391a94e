//go:build !unix

package cache

import (
	"errors"
	"io/fs"
)

const (
	oNoFollow = 0
	oNonblock = 0
)

func isLoop(err error) bool { return false }

// isReadOnlyFS reports a write refused because the directory is not this
// user's to write.
func isReadOnlyFS(err error) bool { return errors.Is(err, fs.ErrPermission) }
