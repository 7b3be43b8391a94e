//go:build race

package dl

// raceEnabled: the race detector makes sync.Pool drop items on purpose,
// so allocation counts are only meaningful without it.
const raceEnabled = true
