package rediscache

import "testing"

// SetRemoveBadHook makes f run between Prune's read of a bad value and
// its removal, until the test ends.
func SetRemoveBadHook(t testing.TB, f func(name string)) {
	testHookRemoveBad = f
	t.Cleanup(func() { testHookRemoveBad = nil })
}
