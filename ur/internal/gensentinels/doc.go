// Command gensentinels writes ur/sentinels.go: one ErrX constant for every
// ResultX code declared in ur/driver/result.go, so the two lists cannot
// drift apart. Run it with `go generate ./ur`.
package main
