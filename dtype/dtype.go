package dtype

import "fmt"

// Type is an element type.
type Type uint8

// The element types, numbered as NCCL's ncclDataType_t orders them (the
// values are gour's own: nothing depends on them outside this package's
// users' switch statements).
const (
	Int8 Type = iota + 1
	Uint8
	Int32
	Uint32
	Int64
	Uint64
	Float16 // IEEE 754 binary16: a storage type
	Float32
	Float64
	BFloat16 // the upper half of a float32: a storage type
)

var types = [...]struct {
	name string
	size int
}{
	Int8:     {"int8", 1},
	Uint8:    {"uint8", 1},
	Int32:    {"int32", 4},
	Uint32:   {"uint32", 4},
	Int64:    {"int64", 8},
	Uint64:   {"uint64", 8},
	Float16:  {"float16", 2},
	Float32:  {"float32", 4},
	Float64:  {"float64", 8},
	BFloat16: {"bfloat16", 2},
}

// Valid reports whether t is one of the package's types.
func (t Type) Valid() bool { return t >= Int8 && t <= BFloat16 }

// Size is the size of one element in bytes; 0 for an unknown type.
func (t Type) Size() int {
	if !t.Valid() {
		return 0
	}
	return types[t].size
}

// String names the type as NumPy does: "float32", "bfloat16".
func (t Type) String() string {
	if !t.Valid() {
		return fmt.Sprintf("dtype.Type(%d)", uint8(t))
	}
	return types[t].name
}

// IsFloat reports whether t is a floating-point type, storage types
// included.
func (t Type) IsFloat() bool {
	return t == Float16 || t == Float32 || t == Float64 || t == BFloat16
}
