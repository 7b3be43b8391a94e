//go:build race

package ze

const raceEnabled = true
