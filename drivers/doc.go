// Package drivers links every optional driver gour has: every adapter
// (package adapters/all) and every store of the persistent cache's remote
// tier (package cache/rediscache: GOUR_CACHE_REMOTE=redis://...). Import
// it for its side effects, from a main package, as gour's commands do:
//
//	import _ "github.com/gour-dev/gour/drivers"
//
// A program that wants less imports the drivers it wants instead, as
// database/sql leaves its drivers to main: package programmgr links no
// remote store of its own, and a GOUR_CACHE_REMOTE of a store the program
// has not linked gives one warning that names the import to add.
package drivers

import (
	_ "github.com/gour-dev/gour/adapters/all"     // OpenCL, CUDA, Level Zero
	_ "github.com/gour-dev/gour/cache/rediscache" // the remote tier on Redis
)
