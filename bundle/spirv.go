package bundle

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// SPIR-V words this package reads (the SPIR-V specification, section 3).
const (
	spirvMagic uint32 = 0x07230203

	opName            = 5
	opEntryPoint      = 15
	opExecutionMode   = 16
	opCapability      = 17
	opTypeBool        = 20
	opTypeInt         = 21
	opTypeFloat       = 22
	opSpecConstTrue   = 48
	opSpecConstFalse  = 49
	opSpecConstant    = 50
	opDecorate        = 71
	execModelKernel   = 6
	execModeSubgroup  = 35 // SubgroupSize
	decorationSpecID  = 1
	spirvHeaderWords  = 5
	spirvMaxWordCount = 0xffff
)

// spirvCapabilityAspects maps the capabilities that need an optional device
// feature to its aspect.
var spirvCapabilityAspects = map[uint32]Aspects{
	9:    AspectFP16,         // Float16
	10:   AspectFP64,         // Float64
	12:   AspectInt64Atomics, // Int64Atomics
	18:   AspectSubGroups,    // Groups
	61:   AspectSubGroups,    // GroupNonUniform
	62:   AspectSubGroups,    // GroupNonUniformVote
	63:   AspectSubGroups,    // GroupNonUniformArithmetic
	64:   AspectSubGroups,    // GroupNonUniformBallot
	65:   AspectSubGroups,    // GroupNonUniformShuffle
	66:   AspectSubGroups,    // GroupNonUniformShuffleRelative
	67:   AspectSubGroups,    // GroupNonUniformClustered
	5568: AspectSubGroups,    // SubgroupShuffleINTEL
	5569: AspectSubGroups,    // SubgroupBufferBlockIOINTEL
}

// spirvWords returns the module's words in host order, reading the
// magic number to tell its byte order; ok is false for anything that is
// not a whole SPIR-V module header.
func spirvWords(code []byte) (words []uint32, ok bool) {
	if len(code)%4 != 0 || len(code) < 4*spirvHeaderWords {
		return nil, false
	}
	var order binary.ByteOrder = binary.LittleEndian
	switch spirvMagic {
	case binary.LittleEndian.Uint32(code):
	case binary.BigEndian.Uint32(code):
		order = binary.BigEndian
	default:
		return nil, false
	}
	words = make([]uint32, len(code)/4)
	for i := range words {
		words[i] = order.Uint32(code[4*i:])
	}
	return words, true
}

// spirvVersion is the version word of a module's header (0x00010000 for
// 1.0), or 0 when code is not SPIR-V. It reads four bytes.
func spirvVersion(code []byte) uint32 {
	if len(code) < 8 {
		return 0
	}
	switch spirvMagic {
	case binary.LittleEndian.Uint32(code):
		return binary.LittleEndian.Uint32(code[4:])
	case binary.BigEndian.Uint32(code):
		return binary.BigEndian.Uint32(code[4:])
	}
	return 0
}

// analyzeSPIRV reads the kernels (OpEntryPoint with the Kernel execution
// model), the aspects (from OpCapability: they hold for every kernel of
// the module), required sub-group sizes (OpExecutionMode SubgroupSize) and
// specialization constants (OpDecorate SpecId on OpSpecConstant*, with
// their OpName, type and default) of a SPIR-V module.
func analyzeSPIRV(code []byte) (*Analysis, error) {
	const op = "bundle.Analyze"
	w, ok := spirvWords(code)
	if !ok {
		return nil, errorf(ur.ErrInvalidBinary, op, "not a SPIR-V module: %d bytes, no SPIR-V header", len(code))
	}
	a := &Analysis{Format: FormatSPIRV, SPIRVVersion: spirvVersionString(w[1]), src: code}
	var aspects Aspects
	var sgSizes []uint32
	names := map[uint32]string{}
	specIDs := map[uint32]uint32{} // result id → SpecId
	type numType struct {
		width uint32
		kind  SpecKind
	}
	types := map[uint32]numType{}
	type specDef struct {
		typ   uint32
		value []uint32
		isBool,
		boolValue bool
	}
	defs := map[uint32]specDef{}
	var kernels []string
	for i := spirvHeaderWords; i < len(w); {
		n, opcode := int(w[i]>>16), w[i]&0xffff
		if n == 0 || i+n > len(w) {
			return nil, errorf(ur.ErrInvalidBinary, op, "SPIR-V instruction at word %d has word count %d, %d words are left", i, n, len(w)-i)
		}
		args := w[i+1 : i+n]
		switch opcode {
		case opCapability:
			if len(args) >= 1 {
				aspects |= spirvCapabilityAspects[args[0]]
			}
		case opEntryPoint:
			if len(args) >= 3 && args[0] == execModelKernel {
				kernels = append(kernels, spirvString(args[2:]))
			}
		case opExecutionMode:
			if len(args) >= 3 && args[1] == execModeSubgroup {
				sgSizes = append(sgSizes, args[2])
			}
		case opName:
			if len(args) >= 2 {
				names[args[0]] = spirvString(args[1:])
			}
		case opDecorate:
			if len(args) >= 3 && args[1] == decorationSpecID {
				specIDs[args[0]] = args[2]
			}
		case opTypeInt:
			if len(args) >= 3 {
				kind := SpecUint
				if args[2] == 1 {
					kind = SpecInt
				}
				types[args[0]] = numType{args[1], kind}
			}
		case opTypeFloat:
			if len(args) >= 2 {
				types[args[0]] = numType{args[1], SpecFloat}
			}
		case opTypeBool:
			if len(args) >= 1 {
				types[args[0]] = numType{8, SpecBool}
			}
		case opSpecConstTrue, opSpecConstFalse:
			if len(args) >= 2 {
				defs[args[1]] = specDef{typ: args[0], isBool: true, boolValue: opcode == opSpecConstTrue}
			}
		case opSpecConstant:
			if len(args) >= 2 {
				defs[args[1]] = specDef{typ: args[0], value: args[2:]}
			}
		}
		i += n
	}
	for id, specID := range specIDs {
		def, ok := defs[id]
		if !ok {
			continue // SpecId on something other than a scalar constant
		}
		t := types[def.typ]
		sc := SpecConstant{ID: specID, Kind: t.kind}
		if name := names[id]; checkName("", name, true) == nil {
			sc.Name = name
		}
		switch {
		case def.isBool:
			sc.Kind, sc.Default = SpecBool, []byte{0}
			if def.boolValue {
				sc.Default[0] = 1
			}
		default:
			size := int(t.width / 8)
			if !t.kind.ValidSize(size) {
				continue
			}
			var buf []byte
			for _, v := range def.value {
				buf = binary.LittleEndian.AppendUint32(buf, v)
			}
			if len(buf) < size {
				continue
			}
			sc.Default = buf[:size]
		}
		a.SpecConstants = append(a.SpecConstants, sc)
	}
	slices.SortFunc(a.SpecConstants, func(x, y SpecConstant) int { return cmpUint32(x.ID, y.ID) })
	slices.Sort(sgSizes)
	sgSizes = slices.Compact(sgSizes)
	slices.Sort(kernels)
	for _, k := range slices.Compact(kernels) {
		a.Kernels = append(a.Kernels, KernelInfo{Name: k, Aspects: aspects, SubGroupSizes: sgSizes})
	}
	return a, nil
}

// spirvString reads a literal string: UTF-8 bytes, NUL-terminated, packed
// little-endian into words.
func spirvString(words []uint32) string {
	var b strings.Builder
	for _, w := range words {
		for k := range 4 {
			c := byte(w >> (8 * k))
			if c == 0 {
				return b.String()
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}
