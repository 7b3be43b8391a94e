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

// CStrings returns ss as a C array of NUL-terminated strings (char**), for
// option lists; nil when ss is empty. The array's elements point to Go
// memory, which the array keeps alive for as long as it is.
func CStrings(ss []string) []*byte {
	if len(ss) == 0 {
		return nil
	}
	ptrs := make([]*byte, len(ss))
	for i, s := range ss {
		ptrs[i] = &CString(s)[0]
	}
	return ptrs
}

// CStringOrNil is CString, or nil (C's NULL through First) for "": the
// optional names C APIs take for messages.
func CStringOrNil(s string) []byte {
	if s == "" {
		return nil
	}
	return CString(s)
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
