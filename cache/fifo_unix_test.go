//go:build unix

package cache

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO where a file belongs does not hang a reader.
func TestFIFO(t *testing.T) {
	c := mustOpen(t, t.TempDir())
	k := key("k")
	put(t, c, k, 300)
	leaf := leafOf(c, k)
	os.Remove(filepath.Join(leaf, "0.src"))
	if err := syscall.Mkfifo(filepath.Join(leaf, "0.src"), 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan bool)
	go func() { _, ok := c.Get(k); done <- ok }()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("hit")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Get blocked on a FIFO")
	}
}
