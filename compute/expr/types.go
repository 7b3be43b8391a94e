package expr

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Type is the type of a value: one of the six numeric types gour's kernels
// take. The zero Type is invalid.
type Type uint8

const (
	invalid Type = iota
	Float32
	Float64
	Int32
	Uint32
	Int64
	Uint64

	// The checker's own types, never in a Signature: the result of a
	// comparison, and constants (or expressions of constants) whose type
	// comes from where they are used.
	boolType
	untypedInt
	untypedFloat
)

var typeNames = [...]string{"invalid", "float32", "float64", "int32", "uint32", "int64", "uint64", "bool", "untyped int", "untyped float"}

func (t Type) String() string {
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Valid reports whether t is one of the six numeric types.
func (t Type) Valid() bool { return t >= Float32 && t <= Uint64 }

// IsFloat reports whether t is Float32 or Float64.
func (t Type) IsFloat() bool { return t == Float32 || t == Float64 || t == untypedFloat }

// IsInteger reports whether t is one of the four integer types.
func (t Type) IsInteger() bool { return (t >= Int32 && t <= Uint64) || t == untypedInt }

func (t Type) isSigned() bool  { return t == Int32 || t == Int64 }
func (t Type) isUntyped() bool { return t == untypedInt || t == untypedFloat }
func (t Type) isNumeric() bool { return t.Valid() || t.isUntyped() }

// typeByName is the type a conversion function names, or invalid.
func typeByName(s string) Type {
	if i := slices.Index(typeNames[:Uint64+1], s); i > 0 {
		return Type(i)
	}
	return invalid
}

// Signature says what the identifiers of a function are: the output's
// type, the arrays (read element-wise: element i of each for out[i]) and
// the scalar parameters (one value for all elements). A name is an array
// or a parameter, not both. The output's name comes from the source; it
// may also be an array's name, for a function computed in place.
type Signature struct {
	Out    Type
	Arrays map[string]Type
	Params map[string]Type
}

func sortedNames(m map[string]Type) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

func nameList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
