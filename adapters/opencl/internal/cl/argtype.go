package cl

import "strings"

// scalarSizes are the sizes of OpenCL C's built-in scalar types, as
// CL_KERNEL_ARG_TYPE_NAME spells them.
var scalarSizes = map[string]uint64{
	"char": 1, "uchar": 1, "bool": 1,
	"short": 2, "ushort": 2, "half": 2,
	"int": 4, "uint": 4, "float": 4,
	"long": 8, "ulong": 8, "double": 8,
}

// addressSized are the types as wide as the device's addresses.
var addressSized = map[string]bool{"size_t": true, "ptrdiff_t": true, "intptr_t": true, "uintptr_t": true}

// ArgTypeSize returns the size in bytes that clSetKernelArg wants for an
// argument of the OpenCL C type typeName (CL_KERNEL_ARG_TYPE_NAME) on a
// device of addressBits-bit addresses: scalars, their vectors (a 3-vector
// takes the room of a 4-vector, as sizeof says) and pointers. It returns
// 0 for a type whose size the name does not tell: a struct, a union, a
// typedef, an image or a sampler.
func ArgTypeSize(typeName string, addressBits uint32) uint64 {
	t := strings.TrimSpace(typeName)
	if strings.HasSuffix(t, "*") {
		return uint64(addressBits / 8)
	}
	if rest, ok := strings.CutPrefix(t, "unsigned "); ok {
		t = "u" + strings.TrimSpace(rest)
	}
	if addressSized[t] {
		return uint64(addressBits / 8)
	}
	if n, ok := scalarSizes[t]; ok {
		return n
	}
	// A vector: a scalar name followed by its width.
	base := strings.TrimRight(t, "0123456789")
	n, ok := scalarSizes[base]
	if !ok || base == "bool" {
		return 0
	}
	switch t[len(base):] {
	case "2":
		return 2 * n
	case "3", "4":
		return 4 * n
	case "8":
		return 8 * n
	case "16":
		return 16 * n
	}
	return 0
}
