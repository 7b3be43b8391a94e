// Package cache is gour's persistent device code cache: it stores built
// device binaries on disk so that a restarted application skips the JIT.
// It stores and finds bytes by Key and knows nothing of the program
// manager; package urkey makes the device part of a key from a
// ur.Device. The design, and the choices not made, are in docs/design.md,
// section "The persistent device code cache".
//
// # Use
//
//	c, err := cache.Open(cache.Config{})   // reads the SYCL_CACHE_* variables
//	e, fromCache, err := c.GetOrBuild(ctx, key, info, func() ([]byte, error) {
//		// build the program, return its binary for key.Device
//	})
//	// load e.Binary; if the driver refuses it (INVALID_BINARY):
//	c.Reject(e) // and GetOrBuild again, once
//
// GetOrBuild makes N processes (and goroutines) that miss one key at
// once build it once — N machines too, with a remote tier. Get and Put
// are the parts on their own. The maintenance methods (List, Stats,
// Verify, Prune, Clear) serve the urcache tool.
//
// # Layout
//
//	<root>/v1/                          format version
//	    cache_size.txt  size.lock  sweep.lock  last_sweep
//	    <device>/<images>/<spec>/<options>/   one leaf directory per key hash
//	        lock  build.lock                  lock files
//	        0.src  0.bin  0.use               entry 0
//	        1.src  1.bin  1.use               entry 1 (a key whose hashes collide)
//
// Each of the four directory names is the hex SHA-256 of a versioned,
// domain-tagged canonical encoding (length-prefixed strings, image IDs in
// order; the compile and link options as compile options, NUL, link
// options): the same in every process, machine and Go version; no path
// component comes from anything but a hash (docs/design.md, section "The
// persistent device code cache", Key derivation). <n>.src holds the full key
// and the Info; a lookup walks n = 0, 1, ... and takes the first entry
// whose full key is equal, so colliding hashes are resolved, never
// served. <n>.bin holds the binary; <n>.use the entry's last use.
//
// # Files
//
// .src, .bin and .use start with a header: magic, kind, format version,
// payload length and CRC-32C of the payload (format.go has the byte
// layout, docs/design.md the reasons, under File format); the file must
// be exactly header plus payload. (cache_size.txt
// is a plain decimal number, as in DPC++; it is parsed strictly and
// rebuilt from a scan when malformed.) The .src also
// records the length, checksum and a random nonce of its .bin, so a .bin
// that is not the one written with its .src is detected. Every read is
// bounded (by the format's limits and the file's size), opens with
// O_NOFOLLOW|O_NONBLOCK and accepts only regular files; a file that
// fails any check — empty, truncated, garbage, another format, a .src
// without .bin or the reverse — is a miss, and the entry is removed, but
// only if its .src is still the very file that was read (same inode,
// size, mode and modification time) and only under the entry's exclusive
// lock. Something other than a regular file where a .src, .bin, .use or
// lock file belongs — a directory, a symbolic link, a FIFO, a socket — is
// removed the same way, never following a link (a directory goes with
// its contents, the links inside it and not their targets), and the file
// is made again: left there, it would keep that entry from ever being
// cached. Nothing a file holds can make the process panic (see the fuzz
// tests).
//
// Writes are atomic: each file is written to a temporary file in the
// same directory, fsynced and renamed into place; the .bin first, the
// .src last (the .src is the commit), then the directory is fsynced. A
// crash leaves a temporary file or a .bin without its .src; both are
// misses and are swept.
//
// # Locks
//
// Every leaf has two lock files, flock(2) locks through gofrs/flock:
// "lock" is held shared by readers and exclusively by writers and
// removers of the leaf's entries; "build.lock" is held by GetOrBuild
// from its second lookup until its store is done. The kernel releases a
// dead process's locks, so no stale lock ever blocks anyone. Lock files
// are removed only together with their (empty) leaf directory, by a
// process holding both locks; a process that opened a lock file before
// it was unlinked notices, once it holds the lock, that the path no
// longer names that file and starts again. Because a reader holds the
// shared lock while it reads and an evictor needs the exclusive one (and
// skips an entry whose lock is taken), eviction never makes a reader see
// half an entry (docs/design.md, section "The persistent device code
// cache", Locking between processes).
//
// # Eviction and sweeping
//
// cache_size.txt holds the total size of the entries, adjusted under
// size.lock by every store and removal (and rebuilt from a scan when it
// is missing or malformed). When a store takes it past MaxSize
// (SYCL_CACHE_MAX_SIZE, 0 = no limit), the least recently used
// entries — by their .use stamps, written on every hit, not by atime —
// are removed until the cache is at half the limit; the scan this needs
// also rewrites the total. At most once an hour a store also sweeps:
// temporary files and half-written entries in directories no process is
// writing to (their lock is free, so they cannot be in use), empty
// directories, and, with SYCL_CACHE_THRESHOLD days, entries unused that
// long. SYCL_CACHE_EVICTION_DISABLE=1 turns size and age eviction off.
//
// # Settings
//
//	SYCL_CACHE_PERSISTENT             1 (default: on, unlike DPC++, since the cache is crash-safe) or 0
//	SYCL_CACHE_DIR                    root; default $XDG_CACHE_HOME/gour, else $HOME/.cache/gour; none: off, one warning
//	SYCL_CACHE_MAX_SIZE               a size; 0 or unset: no size limit
//	SYCL_CACHE_THRESHOLD              days; 0 or unset: no age limit
//	SYCL_CACHE_EVICTION_DISABLE       1: no eviction
//	SYCL_CACHE_MIN_DEVICE_IMAGE_SIZE  a size; images smaller are not cached (default 0)
//	SYCL_CACHE_MAX_DEVICE_IMAGE_SIZE  a size; images larger are not cached (default 1 GiB)
//	SYCL_CACHE_TRACE                  bit mask; value&1 logs every hit, miss, store, eviction, rejection and removal (slog, level Info)
//	SYCL_CACHE_ALLOW_SHARED           1: accept a root owned by another user or writable by group/others; new files 0660, directories 0770
//	GOUR_CACHE_REMOTE                 the remote tier's URL (see The remote tier); unset, empty or "off": none
//	GOUR_CACHE_SIGNING_KEY            the private key file this machine signs remote values with
//	GOUR_CACHE_TRUSTED_KEYS           the public keys (or key files) whose remote values are accepted; "unsigned": any
//
// Booleans are 1/0 (or true/false), days decimal integers, sizes a number
// of bytes or a number with a unit K, M, G or T, powers of 1024 (10G;
// KB, KiB, ... mean the same: ParseSize, which urcache prune --max-size
// uses too); a malformed value makes Open fail with a *SettingError
// naming the variable. Config fields win over the variables.
//
// # Read-only caches
//
// A root that exists but cannot be written — on a read-only file system,
// or a directory this user may not write, such as a cache warmed in
// advance and shipped in a container image's read-only layer — makes the
// cache read-only (ReadOnly), with exactly one slog warning, whether Open
// finds it so or a write fails so later. A read-only cache serves hits
// and writes nothing: no stores, use stamps or lock files, no eviction,
// sweeping or repair. A reader that finds no lock file reads without one
// (nobody can write there); a bad entry is a miss and stays in place; an
// entry Reject is given is hidden from this process instead of removed.
// GetOrBuild builds what it misses and stores nothing; Put, Prune, Clear
// and Verify(true) fail with ErrReadOnly; List, Stats and Verify(false)
// work.
//
// # The remote tier
//
// A Remote — a store shared by many machines, such as Redis through
// package cache/rediscache — sits behind the disk: a lookup goes memory
// (the program manager's), disk, remote, build. It is named by
// Config.RemoteURL, else GOUR_CACHE_REMOTE:
//
//	redis://[user:password@]host:port[/db][?prefix=gour:v1:&timeout=300ms&max_entry=64M&wait=2m&lease=10s&off_for=1m]
//	rediss://...   the same over TLS
//
// or given as Config.Remote; Config.RemoteOptions win over the URL's
// parameters (RemoteOptions documents them). The scheme must be
// registered by a package the program links (RegisterRemote;
// cache/rediscache registers redis and rediss when imported — the main
// package imports it, or package all); a URL of a known store that is not
// linked is no tier and one warning naming the import. A malformed URL, a
// bad parameter or an unknown scheme makes Open fail with a
// *SettingError naming GOUR_CACHE_REMOTE, its password hidden. Close
// waits for the local copies of remote hits (Flush) and closes the
// store.
//
// The store is written by every machine of a fleet, and by whoever
// obtains its password, so it is not trusted: a machine that stores
// signs each value with its ed25519 key (RemoteKeys.Signing,
// GOUR_CACHE_SIGNING_KEY), and a value is accepted only when a trusted
// key signed it (RemoteKeys.Trusted, GOUR_CACHE_TRUSTED_KEYS; package
// cache/signing has the keys). A value no trusted key signed is a miss,
// counted in RemoteCounters.Untrusted, warned about once, never written
// to disk. Without a signing key a machine is a read-only member: it
// takes no lease and stores, marks and deletes nothing. With no key to
// trust at all the tier is not used (one warning), unless
// GOUR_CACHE_TRUSTED_KEYS=unsigned (RemoteKeys.Unsigned) accepts every
// value, for a server only its user can write.
//
// An entry's name in the store is RemoteName(key), the same on every
// machine, and its value is a signature envelope then its .src file and
// its .bin file, as on disk. Everything read is checked as the files are
// — the signature, headers, checksums, the .bin tied to the .src, the
// full key — and a value that fails is a miss, deleted (if it is still
// the value read) and rebuilt.
// A remote hit is written to disk (Entry.FromRemote reports it), on a
// goroutine while the caller loads the binary, without fsync: the store
// keeps the durable copy, and a file a crash tears fails its checks; a
// build is stored to disk and to the store; Get and Put use the store
// too, and Reject deletes the store's copy of the refused binary.
//
// GetOrBuild single-flights across machines: under the leaf's build.lock
// (one process per machine), it polls the store for the value or the
// key's build lease (a random token with an expiry, renewed while the
// build runs, released by compare-and-delete, only by its holder); the
// holder builds and stores, the others wait up to RemoteOptions.Wait for
// the value and then build themselves. A holder whose build fails, or
// whose entry is not sent, leaves an "abandoned" mark so that the waiters
// build at once; a crashed holder's lease expires.
//
// The tier never fails a call and never makes one much slower: every
// operation has a deadline (RemoteOptions.Timeout, plus the time to carry
// its bytes at 64 MiB/s: for a lookup, an entry of MaxEntrySize, so that
// whatever could be stored can be read), the first error turns
// the tier off for RemoteOptions.OffFor with exactly one slog warning
// (the circuit breaker; later errors are traced), a full store
// (ErrRemoteFull) skips writes with one warning, and entries larger than
// RemoteOptions.MaxEntrySize are not sent. RemoteCounters has this
// process's counts and the time spent in the tier; the store keeps the
// fleet's hits and misses (urcache --remote URL stat).
//
// # Failure is never fatal
//
// A directory that cannot be used — none configured, not creatable,
// full, deleted during the run, a file where it should be, owned by a
// user other than this one or root, or writable by others — turns the
// cache off for the rest of the run with exactly one slog warning, and
// every call goes on without it: Get misses, Put returns an error
// wrapping ErrDisabled, GetOrBuild builds. A remote tier goes on without
// the disk — a full disk should not also lose the fleet's cache: Get and
// GetOrBuild are served from it (nothing is copied to disk) and what is
// built or Put is sent to it; Usable reports whether a cache serves
// anything. SYCL_CACHE_PERSISTENT=0 turns both off: the remote store is
// not even opened (a Config.Remote is closed). Directories are created
// 0700 and files 0600; only the root may be reached through a symbolic
// link, nothing inside it is followed.
package cache
