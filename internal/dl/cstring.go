package dl

import "unsafe"

// The small conversions every binding needs at the C boundary.

// First returns a pointer to the first element of s, or nil for an empty
// slice: C APIs reject a non-NULL list with a zero count.
func First[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(unsafe.SliceData(s))
}

// CString returns s as a NUL-terminated byte slice for C.
func CString(s string) []byte {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return b
}

// GoString copies the NUL-terminated C string at p; nil gives "".
func GoString(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(p, n)) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(p), n))
}

// BufString decodes a char[] filled by C: everything before the first NUL.
func BufString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
