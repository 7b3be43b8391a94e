// Command urcache inspects and maintains gour's persistent device code
// cache (package cache; its design is in docs/design.md, section "The
// persistent device code cache").
//
// Usage:
//
//	urcache [--dir DIR | --remote URL] [--json] COMMAND [flags]
//
// The commands are:
//
//	ls                 list the entries, most recently used first: last use,
//	                   size, device, image, kernels, options (the compile
//	                   options, then "[link: ...]" with the link options)
//	stat               totals: entries, devices, bytes (scanned and as
//	                   tracked in cache_size.txt), the eviction settings,
//	                   whether the cache is read-only
//	verify [--repair]  read every entry in full and check headers, lengths
//	                   and checksums; report bad entries, half-written
//	                   entries and temporary files; --repair removes them
//	prune [--max-size SIZE] [--older-than AGE] [--stale]
//	                   sweep temporary files and half-written entries, and
//	                   remove entries: least recently used ones until the
//	                   cache takes at most SIZE (--max-size), those unused
//	                   for longer than AGE (--older-than), those whose device
//	                   or driver is no longer present (--stale)
//	clear              remove every entry
//	key new [--name NAME] FILE
//	                   make a key pair for the remote tier's signed
//	                   entries: the private key in FILE (mode 0600), the
//	                   public key in FILE.pub, printed too
//	key show FILE      print the public key of a key file
//	help               print the usage
//
// The flags, accepted before or after the command:
//
//	--dir DIR   the cache root; default as the runtime finds it:
//	            SYCL_CACHE_DIR, else $XDG_CACHE_HOME/gour, else $HOME/.cache/gour
//	--remote URL
//	            the remote tier instead of a local directory, as
//	            GOUR_CACHE_REMOTE names it: redis://[user:password@]host:port[/db],
//	            rediss:// for TLS, ?prefix=P for a key prefix other than
//	            "gour:v1:" (package cache/rediscache)
//	--json      print one JSON document instead of text; ls gives each
//	            entry's "compile_options" and "link_options"
//	-h, --help  print the usage
//
// With --remote, ls names each value's signer (the SIGNER column, "signer"
// in JSON) as GOUR_CACHE_TRUSTED_KEYS and GOUR_CACHE_SIGNING_KEY see it: a
// trusted key's name, an untrusted key's fingerprint, or "unsigned".
// verify checks every signature and counts the values of each signer;
// with trusted keys set, a value no trusted key signed is a problem,
// which --repair removes.
//
// SIZE is a number of bytes, or a number with a unit K, M, G or T (powers
// of 1024; KB, KiB, MB, ... mean the same): cache.ParseSize, which reads
// SYCL_CACHE_MAX_SIZE too. AGE is a Go duration ("36h") or a number of
// days ("7d").
//
// --stale discovers the devices of every adapter that loads (all
// devices: ONEAPI_DEVICE_SELECTOR is ignored; UR_ADAPTERS_FORCE_LOAD
// applies) and removes the entries whose device key — backend, platform,
// device name, device version, driver version — matches none of them.
// Entries of an adapter that did not load are kept: a driver that fails
// to load today is no proof that its binaries are useless.
//
// Entries in use by another process (their directory locked) are skipped
// and counted as busy. A root that does not exist is an empty cache. A
// root that cannot be written (a read-only file system, such as a cache
// shipped pre-warmed in a container image) is a read-only cache: ls,
// stat and verify work; prune, clear and verify --repair fail (exit
// status 1) saying the cache is read-only. A cache that cannot be used at
// all (a root owned by another user or writable by others without
// SYCL_CACHE_ALLOW_SHARED=1, not a directory, ...) is an error.
// SYCL_CACHE_TRACE=1 logs every removal on standard error.
//
// # The remote tier
//
// With --remote URL the commands work on a Redis server's entries under
// the URL's prefix, walking the keys with SCAN (never KEYS) and removing
// with UNLINK:
//
//	stat     entries, bytes, build leases held now, and the lookups of
//	         every machine: hits, misses, hit rate (counters kept on the
//	         server)
//	ls       the entries, most recently used first ("last use" from
//	         Redis's idle time, to the second), as for a directory; values
//	         that are not valid entries are counted on standard error
//	verify [--repair]
//	         read every value in full and check it as the runtime does
//	         (headers, checksums, the key against the name it is stored
//	         under); --repair removes the bad ones; the report, text or
//	         JSON, is that of a directory
//	prune [--max-size SIZE] [--older-than AGE] [--stale]
//	         remove values that are not valid entries, then entries idle
//	         for longer than AGE, of devices no longer present, and the
//	         longest idle until the rest takes at most SIZE
//	clear    remove every key of the prefix: entries, leases, counters
//
// Idle times, and so ls's "last use", prune --older-than and the order of
// prune --max-size, need a server that tracks them: an LRU
// maxmemory-policy (allkeys-lru, as the runtime's documentation
// advises) or none. Under an LFU policy Redis keeps no idle time: every
// entry looks used now, --older-than removes nothing and --max-size
// removes entries in no useful order.
//
// --dir and --remote together are a misuse (exit status 2), as is a
// malformed URL (the password is never printed); a server that cannot be
// reached within 5 seconds is a failure (exit status 1).
//
// Exit status:
//
//	0  done; also -h, --help and help, which print the usage on standard output
//	1  the command failed, or verify found problems that remain
//	2  misuse: no or an unknown command, an unknown flag, an extra argument,
//	   a malformed SIZE or AGE or SYCL_CACHE_* variable; the usage goes to
//	   standard error
package main
