package opencl

// SetArgLaunchLocked switches launches with arguments between the pool of
// kernels (false, the default) and one kernel under a lock (true), for
// the benchmarks that compare them; it returns a function restoring the
// mode.
func SetArgLaunchLocked(locked bool) (restore func()) {
	old := argLaunchMode
	argLaunchMode = argLaunchPool
	if locked {
		argLaunchMode = argLaunchLocked
	}
	return func() { argLaunchMode = old }
}

// ChooseLocalSize is chooseLocalSize for 1D ranges.
var ChooseLocalSize = chooseLocalSize
