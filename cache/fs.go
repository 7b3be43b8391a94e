package cache

import (
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tempPrefix starts the name of every file being written; the sweep
// removes those a crash left behind.
const tempPrefix = ".tmp-"

func errorIs(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// readBounded reads a whole regular file without following a symbolic
// link at its last component and without blocking on a FIFO. It fails
// with errBadFile for anything that is not a regular file of at most max
// bytes. The returned FileInfo is the opened file's (fstat), to tell
// later whether the file changed.
func readBounded(path string, max int64) ([]byte, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNoFollow|oNonblock, 0)
	if err != nil {
		if isLoop(err) {
			return nil, nil, badf("not a regular file")
		}
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, badf("not a regular file")
	}
	if fi.Size() > max {
		return nil, fi, badf("%d bytes, more than %d", fi.Size(), max)
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fi, badf("short read: %v", err)
	}
	var one [1]byte
	if n, _ := f.Read(one[:]); n != 0 {
		return nil, fi, badf("file grew while read")
	}
	return b, fi, nil
}

// unchanged reports whether path still is the file described by was:
// same inode, size, mode and modification time. A nil was means "was
// absent".
func unchanged(path string, was os.FileInfo) bool {
	now, err := os.Lstat(path)
	if was == nil {
		return isNotExist(err)
	}
	return err == nil && os.SameFile(was, now) && was.Size() == now.Size() &&
		was.Mode() == now.Mode() && was.ModTime().Equal(now.ModTime())
}

// removeIfUnchanged removes path when it still is the file described by
// was and returns the bytes freed. A directory where a file belongs goes
// with its contents (see removePath).
func removeIfUnchanged(path string, was os.FileInfo) int64 {
	if was == nil || !unchanged(path, was) {
		return 0
	}
	if err := removePath(path, was); err != nil {
		return 0
	}
	if was.Mode().IsRegular() {
		return was.Size()
	}
	return 0
}

// removeFile removes what is at path — a file, a link, a FIFO, a socket,
// or a directory with its contents — and returns the bytes freed.
func removeFile(path string) int64 {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0
	}
	if removePath(path, fi) != nil {
		return 0
	}
	if fi.Mode().IsRegular() {
		return fi.Size()
	}
	return 0
}

// removePath removes path, which Lstat described as fi, never following
// a link: a link is removed, not its target, and os.RemoveAll removes the
// links inside a directory, not what they point to. Only the cache's own
// file names reach it, so a directory there is debris (a directory where
// a .src, .bin or lock file belongs would otherwise block that entry for
// good).
func removePath(path string, fi os.FileInfo) error {
	if fi.IsDir() {
		return os.RemoveAll(path)
	}
	return os.Remove(path)
}

// inTheWay reports whether path holds something other than a regular
// file — a directory, link, FIFO, socket or device — and so can never
// serve as the file the cache means to open there.
func inTheWay(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && !fi.Mode().IsRegular()
}

// writeAtomic writes data to dir/name through a temporary file in dir:
// write, fsync (if durable), rename. A reader sees the old file, no file
// or the whole new one. It returns the new file's FileInfo. The test hook
// runs at named points: before the create, between the two halves of the
// write, after the rename (tests stall or fail there).
func (c *Cache) writeAtomic(dir, name string, data []byte, point string, durable bool) (os.FileInfo, error) {
	if err := c.hook(point + ":create"); err != nil {
		return nil, err
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, tempPrefix+name+"-"+hexString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL|oNoFollow, c.filePerm)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	half := len(data) / 2
	if _, err := f.Write(data[:half]); err != nil {
		return nil, err
	}
	if err := c.hook(point + ":write"); err != nil {
		return nil, err
	}
	if _, err := f.Write(data[half:]); err != nil {
		return nil, err
	}
	if durable {
		if err := f.Sync(); err != nil {
			return nil, err
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		return nil, err
	}
	ok = true
	return fi, c.hook(point + ":renamed")
}

// syncDir makes the renames in dir durable (best effort).
func syncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		_ = f.Sync()
		f.Close()
	}
}

func hexString(b []byte) string {
	const digits = "0123456789abcdef"
	var sb strings.Builder
	for _, c := range b {
		sb.WriteByte(digits[c>>4])
		sb.WriteByte(digits[c&15])
	}
	return sb.String()
}
