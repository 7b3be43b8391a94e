//go:build race

package ur

// raceEnabled is true under -race, where sync.Pool drops items at random
// on purpose, so allocation counts say nothing about the real build.
const raceEnabled = true
