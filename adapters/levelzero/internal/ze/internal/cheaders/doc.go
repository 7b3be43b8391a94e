// Package cheaders reads sizes, field offsets and constants out of the
// Level Zero C header, ze_api.h, through cgo, for the layout test of
// package ze (layout_cgo_test.go).
//
// It exists because Go does not allow cgo in _test.go files. Its cgo file
// builds only with the zeheaders build tag (and cgo); without the tag the
// package is empty and gour stays free of cgo. Nothing but that test
// imports it. Building it needs the header, from Debian's libze-dev:
//
//	go test -tags zeheaders ./adapters/levelzero/internal/ze/
package cheaders
