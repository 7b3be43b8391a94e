//go:build !race

package gokernel_test

const raceEnabled = false
