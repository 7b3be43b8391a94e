//go:build !race

package ur

const raceEnabled = false
