//go:build race

package compute

// raceEnabled is true under -race, where sync.Pool drops items at random
// on purpose, so allocation counts say nothing about the real build.
const raceEnabled = true
