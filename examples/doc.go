// Package examples holds the programs whose code README.md shows, one
// directory each, and the test that keeps the two in agreement: every Go
// block of the README is a copy of a region of one of these programs,
// marked in its source by
//
//	// README: begin NAME
//	...
//	// README: end NAME
//
// and named in the README by an HTML comment on the line above the block:
//
//	<!-- examples/axpy/main.go: NAME -->
//
// The programs' own tests run them on every selected device and check what
// they print, so the README's code is compiled and run by go test ./...
package examples
