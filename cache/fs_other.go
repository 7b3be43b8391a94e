//go:build !unix

package cache

import "os"

const (
	oNoFollow = 0
	oNonblock = 0
)

func ownerOf(fi os.FileInfo) (uid int, ok bool) { return 0, false }

func currentUID() int { return 0 }

func isLoop(err error) bool { return false }
