package cache

import "testing"

// SimulateReadOnlyFS makes every cache opened until the test ends see a
// read-only file system (every write it attempts fails with EROFS), for
// the external tests.
func SimulateReadOnlyFS(t *testing.T) {
	testOpenHook = readOnlyFS
	t.Cleanup(func() { testOpenHook = nil })
}
