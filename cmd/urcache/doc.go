// Command urcache inspects and maintains gour's persistent device code
// cache (package cache, SPEC.md §4).
//
// Usage:
//
//	urcache [--dir DIR] [--json] COMMAND [flags]
//
// The commands are:
//
//	ls                 list the entries, most recently used first: last use,
//	                   size, device, image, kernels
//	stat               totals: entries, devices, bytes (scanned and as
//	                   tracked in cache_size.txt), the eviction settings
//	verify [--repair]  read every entry in full and check headers, lengths
//	                   and checksums; report bad entries, half-written
//	                   entries and temporary files; --repair removes them
//	                   (exit status 1 when problems remain)
//	prune [--max-size SIZE] [--older-than AGE] [--stale]
//	                   sweep temporary files and half-written entries, and
//	                   remove entries: least recently used ones until the
//	                   cache takes at most SIZE (--max-size), those unused
//	                   for longer than AGE (--older-than), those whose device
//	                   or driver is no longer present (--stale)
//	clear              remove every entry
//
// The flags, accepted before or after the command:
//
//	--dir DIR   the cache root; default as the runtime finds it:
//	            SYCL_CACHE_DIR, else $XDG_CACHE_HOME/gour, else $HOME/.cache/gour
//	--json      print one JSON document instead of text
//
// SIZE is a number of bytes with an optional suffix K, M, G or T (powers
// of 1024; KiB, MB, ... are accepted too). AGE is a Go duration ("36h")
// or a number of days ("7d").
//
// --stale discovers the devices of every adapter that loads (all
// devices: ONEAPI_DEVICE_SELECTOR is ignored; UR_ADAPTERS_FORCE_LOAD
// applies) and removes the entries whose device key — backend, platform,
// device name, device version, driver version — matches none of them.
// Entries of an adapter that did not load are kept: a driver that fails
// to load today is no proof that its binaries are useless.
//
// Entries in use by another process (their directory locked) are skipped
// and counted as busy. A cache that cannot be used (a root owned by
// another user or writable by others without SYCL_CACHE_ALLOW_SHARED=1,
// not a directory, ...) is an error (exit status 1); a root that does not
// exist is an empty cache. SYCL_CACHE_TRACE=1 logs every removal on
// standard error. Exit status 2 is a usage error.
package main
