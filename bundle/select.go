package bundle

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gour-dev/gour/ur"
)

// Rank orders the ways a device can run an image, best first.
type Rank uint8

// Ranks. Select takes the best; within a rank, the image closest to the
// device (the highest compatible architecture), then the first in the
// bundle.
const (
	RankExact      Rank = iota + 1 // a native binary for exactly this architecture
	RankCompatible                 // a native binary the architecture runs: a cubin for an older minor of the same major
	RankIL                         // IL the device JIT-compiles: PTX not newer than the device, SPIR-V it takes
	RankSource                     // source the backend compiles: OpenCL C on OpenCL, CUDA C on CUDA (NVRTC)
)

var rankNames = [...]string{"", "exact native match", "compatible native binary", "IL compiled at run time", "source compiled at run time"}

// String says what the rank means: "exact native match".
func (r Rank) String() string {
	if r >= RankExact && r <= RankSource {
		return rankNames[r]
	}
	return fmt.Sprintf("Rank(%d)", uint8(r))
}

// Reason is why Select passed over an image.
type Reason uint8

// Reasons, in the order Select checks them.
const (
	ReasonKernel       Reason = iota + 1 // the image lacks a kernel asked for
	ReasonBackend                        // it is for another backend, or a language the backend does not compile
	ReasonArch                           // a native binary for another architecture
	ReasonILVersion                      // IL the device does not take: PTX for a later architecture, SPIR-V too new or none taken
	ReasonAspects                        // it uses aspects the device lacks
	ReasonSubGroupSize                   // it requires a sub-group size the device does not support
	ReasonSpecConstant                   // built ahead of time for the defaults, and other values are asked for
	ReasonOutranked                      // usable, but another image ranks higher
)

// Rejection is one image Select did not choose, and why.
type Rejection struct {
	Index  int
	Image  *Image
	Reason Reason
	// Missing are the aspects the device lacks (ReasonAspects); Kernel
	// the kernel the image lacks (ReasonKernel); SpecID the constant with a
	// non-default value (ReasonSpecConstant); SubGroupSize the size the
	// device does not support (ReasonSubGroupSize); Rank the rank the image
	// had (ReasonOutranked).
	Missing      Aspects
	Kernel       string
	SpecID       uint32
	SubGroupSize uint32
	Rank         Rank
	device       *Device
}

// String explains the rejection: "image 2 (native cuda:sm_80): a binary for
// sm_80 does not run on sm_90" — formatted only when asked for.
func (r Rejection) String() string {
	return fmt.Sprintf("image %d (%s %s): %s", r.Index, r.Image.Format, r.Image.Target, r.why())
}

func (r Rejection) why() string {
	im, d := r.Image, r.device
	switch r.Reason {
	case ReasonKernel:
		return fmt.Sprintf("does not define kernel %q", r.Kernel)
	case ReasonBackend:
		if im.Format.source() && im.Target.Backend == d.Backend {
			return fmt.Sprintf("%s devices do not compile %s", d.Backend, im.Format)
		}
		if im.Format == FormatSPIRV {
			return fmt.Sprintf("SPIR-V for %s, the device is %s", im.Target.Backend, d.Backend)
		}
		return fmt.Sprintf("for %s, the device is %s", im.Target.Backend, d.Backend)
	case ReasonArch:
		if a, ok := parseComputeArch(im.Target.Arch, "sm_"); ok && im.Target.Backend == BackendCUDA {
			dev, _ := parseComputeArch(d.Arch, "sm_")
			switch {
			case a.specific:
				return fmt.Sprintf("%s runs only on %s, the device is %s", im.Target.Arch, strings.TrimSuffix(im.Target.Arch, "a"), d.Arch)
			case a.major != dev.major:
				return fmt.Sprintf("a cubin for %s does not run on %s (another major architecture)", im.Target.Arch, d.Arch)
			default:
				return fmt.Sprintf("a cubin for %s does not run on the older %s", im.Target.Arch, d.Arch)
			}
		}
		return fmt.Sprintf("a binary for %q, the device is %q", im.Target.Arch, d.Arch)
	case ReasonILVersion:
		if im.Format == FormatPTX {
			if !parseIL(d.IL).ptx {
				return "the device takes no PTX"
			}
			return fmt.Sprintf("PTX for %s is newer than the device (%s)", im.Target.Arch, d.Arch)
		}
		max := parseIL(d.IL).spirv
		if max == 0 {
			return "the device takes no SPIR-V"
		}
		return fmt.Sprintf("SPIR-V %s, the device takes up to %s", spirvVersionString(spirvVersion(im.Code)), spirvVersionString(max))
	case ReasonAspects:
		return fmt.Sprintf("needs %s, which the device lacks", r.Missing)
	case ReasonSubGroupSize:
		return fmt.Sprintf("requires sub-groups of %d, which the device does not support", r.SubGroupSize)
	case ReasonSpecConstant:
		return fmt.Sprintf("built ahead of time for the default of specialization constant %d, which is given another value", r.SpecID)
	case ReasonOutranked:
		return fmt.Sprintf("usable (%s), another image ranks higher", r.Rank)
	}
	return fmt.Sprintf("Reason(%d)", uint8(r.Reason))
}

// Request is what the caller needs from the chosen image.
type Request struct {
	// Kernels must all be defined by the image; none asks for any image.
	Kernels []string
	// SpecValues are the specialization constant values the program will
	// be built with, by ID. An image built ahead of time (native, or PTX)
	// holds the defaults baked in, so it is not chosen when a value
	// differs from its default.
	SpecValues map[uint32][]byte
}

// Selection is the image Select chose and why the others were not.
type Selection struct {
	Index    int
	Image    *Image
	Rank     Rank
	Rejected []Rejection // every other image, in bundle order
}

// String says which image was chosen and why: "image 1 (native cuda:sm_90):
// exact native match".
func (s *Selection) String() string {
	return fmt.Sprintf("image %d (%s %s): %s", s.Index, s.Image.Format, s.Image.Target, s.Rank)
}

// Select chooses the image of b that dev should run, as Select does.
func (b *Bundle) Select(dev Device, req Request) (*Selection, error) {
	return Select(b.Images, dev, req)
}

// Select chooses, among images, the one dev should run for req: an exact
// native match over a compatible native binary over IL the device
// JIT-compiles over source, skipping images that lack a kernel asked for,
// use aspects the device lacks, or were built ahead of time for other
// specialization constant values. The Selection lists why each other image
// was passed over.
//
// When nothing fits, the error is a *ur.Error: ur.ErrInvalidKernelName when
// no image defines a kernel asked for; ur.ErrUnsupportedFeature when the
// only images that would run it need aspects the device lacks (the error
// names them); ur.ErrInvalidBinary otherwise, with every image's reason.
func Select(images []Image, dev Device, req Request) (*Selection, error) {
	il := parseIL(dev.IL)
	devArch, devIsCUDA := cudaArch{}, false
	if dev.Backend == BackendCUDA {
		devArch, devIsCUDA = parseComputeArch(dev.Arch, "sm_")
	}
	s := &Selection{Index: -1, Rejected: make([]Rejection, 0, len(images))}
	best, bestRank, bestCloseness := -1, Rank(0), 0
	for i := range images {
		im := &images[i]
		rej := Rejection{Index: i, Image: im, device: &dev}
		rank, closeness := rateImage(im, &dev, il, devArch, devIsCUDA, req, &rej)
		if rank == 0 {
			s.Rejected = append(s.Rejected, rej)
			continue
		}
		if best < 0 || rank < bestRank || (rank == bestRank && closeness > bestCloseness) {
			if best >= 0 {
				s.Rejected = append(s.Rejected, Rejection{Index: best, Image: &images[best], Reason: ReasonOutranked, Rank: bestRank, device: &dev})
			}
			best, bestRank, bestCloseness = i, rank, closeness
			continue
		}
		rej.Reason, rej.Rank = ReasonOutranked, rank
		s.Rejected = append(s.Rejected, rej)
	}
	if best < 0 {
		return nil, noImage(images, dev, req, s.Rejected)
	}
	slices.SortFunc(s.Rejected, func(a, b Rejection) int { return a.Index - b.Index })
	s.Index, s.Image, s.Rank = best, &images[best], bestRank
	return s, nil
}

// rateImage returns the rank at which dev runs im and, within the rank,
// how close the image is to the device (higher is closer); or rank 0 with
// rej filled in.
func rateImage(im *Image, dev *Device, il ilCaps, devArch cudaArch, devIsCUDA bool, req Request, rej *Rejection) (Rank, int) {
	for _, k := range req.Kernels {
		if !im.HasKernel(k) {
			rej.Reason, rej.Kernel = ReasonKernel, k
			return 0, 0
		}
	}
	t := &im.Target
	if t.Backend != "" && t.Backend != dev.Backend {
		rej.Reason = ReasonBackend
		return 0, 0
	}
	var rank Rank
	closeness := 0
	aot := false // built ahead of time, with spec constants at their defaults
	switch im.Format {
	case FormatNative:
		aot = true
		switch {
		case t.Arch == dev.Arch || (dev.Backend == BackendLevelZero && strings.EqualFold(t.Arch, dev.Arch)):
			rank = RankExact
		case devIsCUDA:
			a, _ := parseComputeArch(t.Arch, "sm_")
			if a.number() == devArch.number() {
				rank = RankExact // sm_90a on sm_90
				break
			}
			if a.specific || a.major != devArch.major || a.minor > devArch.minor {
				rej.Reason = ReasonArch
				return 0, 0
			}
			rank, closeness = RankCompatible, a.minor
		default:
			rej.Reason = ReasonArch
			return 0, 0
		}
	case FormatPTX:
		aot = true
		a, _ := parseComputeArch(t.Arch, "compute_")
		if !il.ptx || !devIsCUDA || a.number() > devArch.number() || (a.specific && a.number() != devArch.number()) {
			rej.Reason = ReasonILVersion
			return 0, 0
		}
		rank, closeness = RankIL, a.number()
	case FormatSPIRV:
		if v := spirvVersion(im.Code); il.spirv == 0 || v > il.spirv {
			rej.Reason = ReasonILVersion
			return 0, 0
		}
		rank = RankIL
	case FormatOpenCLC, FormatCUDAC:
		// validate ties each language to its backend, checked above.
		rank = RankSource
	}
	p := &im.Properties
	if missing := p.Aspects &^ dev.Aspects; missing != 0 {
		rej.Reason, rej.Missing = ReasonAspects, missing
		return 0, 0
	}
	if len(dev.SubGroupSizes) > 0 {
		for _, n := range p.SubGroupSizes {
			if !slices.Contains(dev.SubGroupSizes, n) {
				rej.Reason, rej.SubGroupSize = ReasonSubGroupSize, n
				return 0, 0
			}
		}
	}
	if aot && len(req.SpecValues) > 0 {
		if id, ok := p.defaultsOnly(req.SpecValues); !ok {
			rej.Reason, rej.SpecID = ReasonSpecConstant, id
			return 0, 0
		}
	}
	return rank, closeness
}

// noImage is Select's error when no image fits.
func noImage(images []Image, dev Device, req Request, rejected []Rejection) error {
	const op = "bundle.Select"
	// A kernel no image defines is the caller's mistake, whatever else is wrong.
	for _, k := range req.Kernels {
		if !slices.ContainsFunc(images, func(im Image) bool { return im.HasKernel(k) }) {
			var all []string
			for i := range images {
				all = append(all, images[i].Kernels...)
			}
			slices.Sort(all)
			return errorf(ur.ErrInvalidKernelName, op, "no image defines kernel %q; the bundle defines %s", k, strings.Join(slices.Compact(all), ", "))
		}
	}
	var missing Aspects
	for _, r := range rejected {
		if r.Reason == ReasonAspects {
			missing |= r.Missing
		}
	}
	var why strings.Builder
	for i, r := range rejected {
		if i > 0 {
			why.WriteString("; ")
		}
		why.WriteString(r.String())
	}
	what := "the bundle"
	if len(req.Kernels) > 0 {
		what = fmt.Sprintf("kernel %s", quoteList(req.Kernels))
	}
	if missing != 0 {
		return errorf(ur.ErrUnsupportedFeature, op, "%s needs %s, which device %s lacks: %s", what, missing, dev, why.String())
	}
	return errorf(ur.ErrInvalidBinary, op, "no image of %s runs on device %s: %s", what, dev, why.String())
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
