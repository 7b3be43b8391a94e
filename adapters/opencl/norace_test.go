//go:build !race

package opencl_test

const raceEnabled = false
