//go:build race

package cu

const raceEnabled = true
