package cache

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes ParseSize accepts, upper-cased. Every
// multiple is a power of 1024, KB as much as KiB: cache sizes are
// file-system sizes, and urcache has always read them so.
var sizeUnits = map[string]int64{
	"": 1, "B": 1,
	"K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10,
	"M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20,
	"G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30,
	"T": 1 << 40, "TB": 1 << 40, "TIB": 1 << 40,
}

// ParseSize reads a size in bytes: a decimal number with an optional
// unit K, M, G or T (powers of 1024; KB, KiB, MB, MiB, ... mean the same,
// in any case), such as "1048576", "500M", "2G" or "1.5GiB". A fraction
// needs a unit and is rounded down to whole bytes. Negative sizes and
// sizes of 2^63 bytes or more are errors. SYCL_CACHE_MAX_SIZE, the image
// size limits and urcache prune --max-size all read sizes with it.
func ParseSize(s string) (int64, error) {
	n, why := readSize(s)
	if why != "" {
		return 0, fmt.Errorf("cache: size %q: %s", s, why)
	}
	return n, nil
}

// readSize is ParseSize with the reason of a failure as a phrase ("" on
// success), for errors that name their variable or flag.
func readSize(s string) (int64, string) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToUpper(strings.TrimSpace(t[i:]))
	}
	mult, ok := sizeUnits[unit]
	if !ok || num == "" {
		return 0, "want a number of bytes with an optional unit K, M, G or T (powers of 1024), such as 500M or 10G"
	}
	if !strings.Contains(num, ".") {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n > math.MaxInt64/mult {
			return 0, "too large (2^63 bytes or more)"
		}
		return n * mult, ""
	}
	if mult == 1 {
		return 0, "a fraction of a byte (a fraction needs a unit, such as 1.5G)"
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Sprintf("%q is not a number", num)
	}
	if v*float64(mult) >= math.MaxInt64 {
		return 0, "too large (2^63 bytes or more)"
	}
	return int64(v * float64(mult)), ""
}
