package bundle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// SplitMode says how device code is divided into images.
type SplitMode uint8

// Split modes. Every mode keeps kernels with different requirements
// (aspects, sub-group sizes) in different images, so that a device
// lacking fp64 still gets the kernels that do not need it.
const (
	// SplitAuto puts together the kernels with the same requirements: one
	// image for the kernels that need no optional aspect, one for those
	// needing fp64, one for fp64+int64_atomics, and so on.
	SplitAuto SplitMode = iota
	// SplitPerKernel makes one image per kernel.
	SplitPerKernel
	// SplitPerModule makes one image per module the caller names
	// (Module), divided further when its kernels' requirements differ.
	SplitPerModule
)

var splitModeNames = [...]string{"auto", "kernel", "module"}

// String is "auto", "kernel" or "module".
func (m SplitMode) String() string {
	if int(m) < len(splitModeNames) {
		return splitModeNames[m]
	}
	return fmt.Sprintf("SplitMode(%d)", uint8(m))
}

// ParseSplitMode reads a mode as String writes it.
func ParseSplitMode(s string) (SplitMode, error) {
	if i := slices.Index(splitModeNames[:], s); i >= 0 {
		return SplitMode(i), nil
	}
	return 0, errorf(ur.ErrInvalidValue, "bundle.ParseSplitMode", "unknown split mode %q (want auto, kernel or module)", s)
}

// Module is a named group of kernels, for SplitPerModule.
type Module struct {
	Name    string
	Kernels []string
}

// SplitOptions say how Split divides code.
type SplitOptions struct {
	Mode    SplitMode
	Modules []Module // SplitPerModule: every kernel in exactly one module
	// Aspects replace, for the kernels they name, the aspects Analyze
	// detected.
	Aspects map[string]Aspects
}

// Part is the code of one image-to-be and its kernels.
type Part struct {
	Name          string // the module, the kernel, or the requirements ("default", "fp64")
	Kernels       []string
	Aspects       Aspects
	SubGroupSizes []uint32
	// Code is what the image holds. For OpenCL C, the translation unit
	// without the declarations it cannot compile on a device lacking the
	// part's missing aspects (see the package documentation); for other
	// formats, the whole code.
	Code []byte
}

// Split divides the analyzed code into parts as opts say. Parts come out
// sorted by name, with sorted kernels: the same code and options give the
// same parts. An unknown kernel in opts, or SplitPerModule leaving a kernel
// out or naming it twice, is an error carrying ur.ErrInvalidValue.
func (a *Analysis) Split(opts SplitOptions) ([]Part, error) {
	const op = "bundle.Split"
	kernels := slices.Clone(a.Kernels)
	if len(kernels) == 0 {
		return nil, errorf(ur.ErrInvalidValue, op, "the %s code defines no kernel", a.Format)
	}
	for name, asp := range opts.Aspects {
		i := slices.IndexFunc(kernels, func(k KernelInfo) bool { return k.Name == name })
		if i < 0 {
			return nil, errorf(ur.ErrInvalidValue, op, "aspects given for kernel %q, which the code does not define", name)
		}
		kernels[i].Aspects = asp
	}
	type group struct {
		name    string
		kernels []KernelInfo
	}
	var groups []group
	switch opts.Mode {
	case SplitAuto:
		groups = []group{{"", kernels}}
	case SplitPerKernel:
		for _, k := range kernels {
			groups = append(groups, group{k.Name, []KernelInfo{k}})
		}
	case SplitPerModule:
		owner := map[string]string{}
		for _, m := range opts.Modules {
			if p := checkName("module name", m.Name, false); p != nil {
				return nil, errorf(ur.ErrInvalidValue, op, "%s", p)
			}
			g := group{name: m.Name}
			for _, name := range m.Kernels {
				if prev, dup := owner[name]; dup {
					return nil, errorf(ur.ErrInvalidValue, op, "kernel %q is in modules %q and %q", name, prev, m.Name)
				}
				owner[name] = m.Name
				i := slices.IndexFunc(kernels, func(k KernelInfo) bool { return k.Name == name })
				if i < 0 {
					return nil, errorf(ur.ErrInvalidValue, op, "module %q names kernel %q, which the code does not define", m.Name, name)
				}
				g.kernels = append(g.kernels, kernels[i])
			}
			groups = append(groups, g)
		}
		var left []string
		for _, k := range kernels {
			if _, ok := owner[k.Name]; !ok {
				left = append(left, k.Name)
			}
		}
		if len(left) > 0 {
			return nil, errorf(ur.ErrInvalidValue, op, "kernels %s are in no module", quoteList(left))
		}
	default:
		return nil, errorf(ur.ErrInvalidValue, op, "unknown split mode %d", uint8(opts.Mode))
	}
	var parts []Part
	for _, g := range groups {
		byReq := map[string]*Part{}
		var order []string
		for _, k := range g.kernels {
			key := requirementLabel(k.Aspects, k.SubGroupSizes)
			p := byReq[key]
			if p == nil {
				p = &Part{Aspects: k.Aspects, SubGroupSizes: k.SubGroupSizes}
				byReq[key] = p
				order = append(order, key)
			}
			p.Kernels = append(p.Kernels, k.Name)
		}
		for _, key := range order {
			p := byReq[key]
			switch {
			case g.name == "":
				p.Name = key
			case len(order) == 1:
				p.Name = g.name
			default:
				p.Name = g.name + "." + key
			}
			slices.Sort(p.Kernels)
			p.Code = a.cut(p.Kernels, p.Aspects)
			parts = append(parts, *p)
		}
	}
	slices.SortFunc(parts, func(x, y Part) int { return strings.Compare(x.Name, y.Name) })
	return parts, nil
}

// requirementLabel names a set of requirements: "default" for none,
// "fp64", "fp64+sub_groups.sg16".
func requirementLabel(a Aspects, sg []uint32) string {
	s := "default"
	if a != 0 {
		s = a.String()
	}
	for _, n := range sg {
		s += fmt.Sprintf(".sg%d", n)
	}
	return s
}

// cut returns the code for an image of kernels that may use aspects: for
// OpenCL C, the source without every top-level declaration that none of
// the kernels reaches and that (itself or through what it uses) needs an
// aspect outside aspects. Each cut declaration leaves its newlines, so
// that line numbers in build logs stay those of the original source.
// Other formats are returned whole.
func (a *Analysis) cut(kernels []string, aspects Aspects) []byte {
	if a.Format != FormatOpenCLC {
		return a.src
	}
	byName := indexNames(a.decls)
	var roots []*decl
	for _, k := range kernels {
		roots = append(roots, byName[k]...)
	}
	keep := reach(a.decls, byName, roots...)
	var out []byte
	last := 0
	for _, d := range a.decls {
		if keep[d] || d.macro || d.start < last {
			continue
		}
		if closureAspects(reach(a.decls, byName, d))&^aspects == 0 {
			continue
		}
		out = append(out, a.src[last:d.start]...)
		out = append(out, strings.Repeat("\n", strings.Count(string(a.src[d.start:d.end]), "\n"))...)
		last = d.end
	}
	if out == nil {
		return a.src
	}
	return append(out, a.src[last:]...)
}
