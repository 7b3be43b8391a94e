package programmgr

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// SpecValues are specialization-constant values chosen for a build,
// by spec constant ID. The zero value means "every constant at its
// default". SpecValues are immutable and comparable, so they can sit in map
// keys; two SpecValues holding the same values are ==.
//
// Internally the values are one string: for each ID in increasing order,
// the ID (4 bytes), the value's length (4 bytes) and the value, all
// little-endian.
type SpecValues struct {
	enc string
}

// Spec returns the SpecValues holding values. Spec(nil) is the zero value.
func Spec(values map[uint32][]byte) SpecValues {
	if len(values) == 0 {
		return SpecValues{}
	}
	ids := make([]uint32, 0, len(values))
	size := 0
	for id, v := range values {
		ids = append(ids, id)
		size += 8 + len(v)
	}
	slices.Sort(ids)
	b := make([]byte, 0, size)
	for _, id := range ids {
		b = appendSpec(b, id, values[id])
	}
	return SpecValues{enc: string(b)}
}

func appendSpec(b []byte, id uint32, v []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, id)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
	return append(b, v...)
}

// With returns s with spec constant id set to value.
func (s SpecValues) With(id uint32, value []byte) SpecValues {
	m := s.Map()
	if m == nil {
		m = make(map[uint32][]byte, 1)
	}
	m[id] = value
	return Spec(m)
}

// IsZero reports whether s sets no value.
func (s SpecValues) IsZero() bool { return s.enc == "" }

// Len is the number of values set.
func (s SpecValues) Len() int {
	n := 0
	s.each(func(uint32, string) bool { n++; return true })
	return n
}

// Get returns the value of spec constant id, if set.
func (s SpecValues) Get(id uint32) ([]byte, bool) {
	var out []byte
	found := false
	s.each(func(i uint32, v string) bool {
		if i == id {
			out, found = []byte(v), true
			return false
		}
		return true
	})
	return out, found
}

// Map returns the values as a map; nil for the zero value.
func (s SpecValues) Map() map[uint32][]byte {
	if s.enc == "" {
		return nil
	}
	m := map[uint32][]byte{}
	s.each(func(id uint32, v string) bool { m[id] = []byte(v); return true })
	return m
}

// String lists the values as "id=hex" pairs, for logs: "1=2a000000,7=01".
func (s SpecValues) String() string {
	var b strings.Builder
	s.each(func(id uint32, v string) bool {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d=%s", id, hex.EncodeToString([]byte(v)))
		return true
	})
	return b.String()
}

// each calls fn for every (id, value) in ID order until fn returns false.
func (s SpecValues) each(fn func(id uint32, value string) bool) {
	e := s.enc
	for len(e) >= 8 {
		id := binary.LittleEndian.Uint32([]byte(e[:4]))
		n := int(binary.LittleEndian.Uint32([]byte(e[4:8])))
		if n > len(e)-8 {
			return // cannot happen: Spec builds every encoding
		}
		if !fn(id, e[8:8+n]) {
			return
		}
		e = e[8+n:]
	}
}

// normalize checks s against the image's declarations and drops values
// equal to their default, so that every SpecValues meaning the same build
// has one encoding in the program cache key. An ID the image does not
// declare gives ur.ErrInvalidSpecID; a value of the wrong size gives
// ur.ErrInvalidValue.
func (s SpecValues) normalize(op string, img *Image) (SpecValues, error) {
	if s.enc == "" {
		return s, nil
	}
	var err error
	drop := false
	s.each(func(id uint32, v string) bool {
		sc, ok := img.specConstant(id)
		switch {
		case !ok:
			err = newError(ur.ErrInvalidSpecID, op, "image %s declares no spec constant %d", img.id.Short(), id)
		case len(v) != len(sc.Default):
			err = newError(ur.ErrInvalidValue, op, "spec constant %d (%s): %d-byte value for a %d-byte %s",
				id, sc.Name, len(v), len(sc.Default), sc.Kind)
		case v == string(sc.Default):
			drop = true
		}
		return err == nil
	})
	if err != nil || !drop {
		return s, err
	}
	var b []byte
	s.each(func(id uint32, v string) bool {
		if sc, _ := img.specConstant(id); v != string(sc.Default) {
			b = appendSpec(b, id, []byte(v))
		}
		return true
	})
	return SpecValues{enc: string(b)}, nil
}

// value returns the effective value of a declared constant: the one set
// in s, else the default.
func (s SpecValues) value(sc *SpecConstant) []byte {
	if v, ok := s.Get(sc.ID); ok {
		return v
	}
	return sc.Default
}

// defines renders every spec constant of a source image as -DName=value,
// each value written as the literal of its kind (see SpecLiteral).
func (s SpecValues) defines(img *Image) string {
	var parts []string
	for i := range img.specs {
		sc := &img.specs[i]
		parts = append(parts, "-D"+sc.Name+"="+SpecLiteral(sc.Kind, s.value(sc)))
	}
	return strings.Join(parts, " ")
}

// SpecLiteral writes a specialization-constant value as the C literal a
// source image receives in its -D definition:
//
//   - SpecInt: decimal, negative values in parentheses, 8-byte values with
//     an L suffix: 42, (-3), 5000000000L;
//   - SpecUint: decimal with a u suffix, UL for 8 bytes: 42u, 7UL;
//   - SpecFloat: the shortest decimal that reads back exactly, always with
//     a '.' or an exponent, f suffix for 4 bytes: 1.5f, 2.0, (-0.25f);
//     infinities and NaN as constant expressions (1.0f/0.0f), (0.0/0.0);
//   - SpecBool: 1 or 0.
//
// The bytes are little-endian; their length must suit the kind (NewImage
// and the manager check it).
func SpecLiteral(kind SpecKind, v []byte) string {
	switch kind {
	case SpecUint:
		u := uleInt(v)
		if len(v) == 8 {
			return strconv.FormatUint(u, 10) + "UL"
		}
		return strconv.FormatUint(u, 10) + "u"
	case SpecFloat:
		suffix, bits := "", 64
		var f float64
		if len(v) == 4 {
			suffix, bits = "f", 32
			f = float64(math.Float32frombits(binary.LittleEndian.Uint32(v)))
		} else {
			f = math.Float64frombits(binary.LittleEndian.Uint64(v))
		}
		switch {
		case math.IsNaN(f):
			return "(0.0" + suffix + "/0.0" + suffix + ")"
		case math.IsInf(f, 1):
			return "(1.0" + suffix + "/0.0" + suffix + ")"
		case math.IsInf(f, -1):
			return "(-1.0" + suffix + "/0.0" + suffix + ")"
		}
		s := strconv.FormatFloat(f, 'g', -1, bits)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		if strings.HasPrefix(s, "-") {
			return "(" + s + suffix + ")"
		}
		return s + suffix
	case SpecBool:
		if bytes.IndexFunc(v, func(r rune) bool { return r != 0 }) >= 0 {
			return "1"
		}
		return "0"
	}
	// SpecInt: sign-extend from the value's size.
	u := uleInt(v)
	shift := 64 - 8*uint(len(v))
	i := int64(u<<shift) >> shift
	suffix := ""
	if len(v) == 8 {
		suffix = "L"
	}
	switch {
	case i == math.MinInt64:
		return "(-9223372036854775807L-1)"
	case i < 0:
		return "(" + strconv.FormatInt(i, 10) + suffix + ")"
	}
	return strconv.FormatInt(i, 10) + suffix
}

func uleInt(v []byte) uint64 {
	var u uint64
	for i := len(v) - 1; i >= 0; i-- {
		u = u<<8 | uint64(v[i])
	}
	return u
}

// SpecInt32 encodes v as a 4-byte spec-constant value.
func SpecInt32(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }

// SpecUint32 encodes v as a 4-byte spec-constant value.
func SpecUint32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// SpecInt64 encodes v as an 8-byte spec-constant value.
func SpecInt64(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }

// SpecUint64 encodes v as an 8-byte spec-constant value.
func SpecUint64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// SpecFloat32 encodes v as a 4-byte spec-constant value.
func SpecFloat32(v float32) []byte {
	return binary.LittleEndian.AppendUint32(nil, math.Float32bits(v))
}

// SpecFloat64 encodes v as an 8-byte spec-constant value.
func SpecFloat64(v float64) []byte {
	return binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))
}

// SpecBoolValue encodes v as a 1-byte spec-constant value.
func SpecBoolValue(v bool) []byte {
	if v {
		return []byte{1}
	}
	return []byte{0}
}
