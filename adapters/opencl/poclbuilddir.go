package opencl

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// PoCL with its kernel cache off (POCL_KERNEL_CACHE=0) builds each program
// in a directory of its own, <cache root>/_UNCACHED_XXXXXX (mkdtemp), and
// removes that directory when the program is freed. Its binaries
// (clGetProgramInfo(CL_PROGRAM_BINARIES)) name the directory in their
// header, and a program made from such a binary unpacks into the directory
// the binary names and, at later launches, compiles its work-group
// specialisations there. So every program made from one binary, in any
// context of the process, shares one directory, and the first of them to
// be freed removes it under the others: the next launch of another aborts
// the process inside PoCL ("Can't get stat() on .../_UNCACHED_.../<kernel>",
// or the assertion program->binaries[device_i] in
// pocl_driver_build_poclbinary). gour's program manager makes programs
// from cached binaries in every context, so two compute Devices of one
// process were enough (PoCL 3.1 and 5.0).
//
// The adapter therefore gives each program it makes from a PoCL binary a
// directory of its own before clCreateProgramWithBinary: it makes a fresh
// _UNCACHED_ directory under PoCL's cache root, exclusively (so it is
// neither another program's nor a crashed process's), and writes its name
// into a copy of the binary in place of the old one, same length. PoCL
// unpacks the binary there and removes the directory with the program, as
// it does for its own. A binary made with the kernel cache on names a
// directory by the program's hash that PoCL never removes, and passes
// unchanged; so does anything that is not a PoCL binary.

const (
	poclBinaryMagic = "poclbin\x00" // the first 8 bytes of a PoCL binary
	poclUncached    = "_UNCACHED_"  // PoCL's prefix of a directory removed with its program
	poclTempLen     = 6             // mkdtemp's XXXXXX
	// poclHeaderScan bounds the search for the directory's name: PoCL's
	// header (PoCL 3.1: 32 bytes, 5.0: 36) precedes it.
	poclHeaderScan = 128
)

// poclUncachedName returns the offset in bin of the 6 characters that
// name its uncached build directory, or -1 where bin is not a PoCL binary
// built with the kernel cache off.
func poclUncachedName(bin []byte) int {
	if !bytes.HasPrefix(bin, []byte(poclBinaryMagic)) {
		return -1
	}
	head := bin[:min(len(bin), poclHeaderScan)]
	i := bytes.Index(head, []byte(poclUncached))
	if i < 0 {
		return -1
	}
	at := i + len(poclUncached)
	if at+poclTempLen >= len(head) || head[at+poclTempLen] != 0 {
		return -1
	}
	for _, c := range head[at : at+poclTempLen] {
		if !isAlnum(c) {
			return -1
		}
	}
	return at
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// poclCacheRoot is the directory PoCL builds in, found as PoCL finds it
// (pocl_cache_init_topdir): POCL_CACHE_DIR, else $XDG_CACHE_HOME/pocl/uncached,
// else $HOME/.cache/pocl/uncached, else /tmp/pocl/uncached. Only the
// uncached root matters here: its binaries are the only ones rewritten.
func poclCacheRoot() string {
	if d := os.Getenv("POCL_CACHE_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "pocl", "uncached")
	}
	if d, ok := os.LookupEnv("HOME"); ok {
		return filepath.Join(d, ".cache", "pocl", "uncached")
	}
	return filepath.Join("/tmp", "pocl", "uncached")
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// poclOwnBuildDirs returns binaries, each PoCL binary built with the kernel
// cache off copied and given a build directory made for it, and the
// directories made: the caller removes them if the program is not made.
// A binary whose directory cannot be made passes unchanged (PoCL's own
// behaviour, no worse than without this).
func poclOwnBuildDirs(binaries [][]byte) (out [][]byte, made []string) {
	out = binaries
	root := ""
	for i, b := range binaries {
		at := poclUncachedName(b)
		if at < 0 {
			continue
		}
		if root == "" {
			root = poclCacheRoot()
		}
		for range 100 {
			var name [poclTempLen]byte
			for j := range name {
				name[j] = alnum[rand.IntN(len(alnum))]
			}
			dir := filepath.Join(root, poclUncached+string(name[:]))
			err := os.Mkdir(dir, 0o700)
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if err != nil {
				break
			}
			if len(made) == 0 {
				out = append([][]byte(nil), binaries...)
			}
			c := bytes.Clone(b)
			copy(c[at:], name[:])
			out[i] = c
			made = append(made, dir)
			break
		}
	}
	return out, made
}

// isPoCL reports whether the context's devices are PoCL's.
func (c *context) isPoCL() bool { return len(c.order) > 0 && c.order[0].p.isPoCL() }
