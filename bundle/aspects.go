package bundle

import (
	"fmt"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// Aspects is a set of optional device features, as SYCL names its aspects.
// An image records the aspects its code uses; a device description the
// aspects the device has.
type Aspects uint64

// The aspects. The bit numbers are part of the bundle format.
const (
	AspectFP64         Aspects = 1 << iota // double precision (cl_khr_fp64, SPIR-V Float64)
	AspectFP16                             // half precision arithmetic (cl_khr_fp16, SPIR-V Float16)
	AspectInt64Atomics                     // 64-bit integer atomics (cl_khr_int64_base_atomics, SPIR-V Int64Atomics)
	AspectSubGroups                        // sub-group functions (cl_khr_subgroups, SPIR-V Groups or GroupNonUniform)

	allAspects = AspectFP64 | AspectFP16 | AspectInt64Atomics | AspectSubGroups
)

var aspectNames = [...]string{"fp64", "fp16", "int64_atomics", "sub_groups"}

// String lists the aspects separated by "+": "fp64+int64_atomics"; "none"
// for the empty set.
func (a Aspects) String() string {
	if a == 0 {
		return "none"
	}
	var parts []string
	for bit := range 64 {
		if a&(1<<bit) == 0 {
			continue
		}
		if bit < len(aspectNames) {
			parts = append(parts, aspectNames[bit])
		} else {
			parts = append(parts, fmt.Sprintf("aspect%d", bit))
		}
	}
	return strings.Join(parts, "+")
}

// Names lists the names of the aspects, in bit order.
func (a Aspects) Names() []string {
	var out []string
	for bit := range len(aspectNames) {
		if a&(1<<bit) != 0 {
			out = append(out, aspectNames[bit])
		}
	}
	return out
}

// ParseAspects reads aspect names separated by "+" or ",": "fp64+fp16".
// "" and "none" are the empty set.
func ParseAspects(s string) (Aspects, error) {
	var a Aspects
	if s == "" || s == "none" {
		return 0, nil
	}
	for _, name := range strings.FieldsFunc(s, func(r rune) bool { return r == '+' || r == ',' }) {
		found := false
		for bit, n := range aspectNames {
			if n == name {
				a |= 1 << bit
				found = true
			}
		}
		if !found {
			return 0, errorf(ur.ErrInvalidValue, "bundle.ParseAspects", "unknown aspect %q (want %s)", name, strings.Join(aspectNames[:], ", "))
		}
	}
	return a, nil
}

// errorf is a *ur.Error from this package.
func errorf(code ur.Result, op, format string, args ...any) *ur.Error {
	return &ur.Error{Result: code, Op: op, Message: fmt.Sprintf(format, args...)}
}
