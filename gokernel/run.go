package gokernel

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/gour-dev/gour/compute"
	"github.com/gour-dev/gour/dtype"
	"github.com/gour-dev/gour/gokernel/kern"
	"github.com/gour-dev/gour/programmgr"
	"github.com/gour-dev/gour/ur"
)

// ErrArgs is the error of a launch whose arguments do not fit the
// kernel's parameters; it matches ur.ErrInvalidKernelArgs.
var ErrArgs = fmt.Errorf("gokernel: %w", ur.ErrInvalidKernelArgs)

// images are a Module's device images, each made once: a kernel's own
// (by kernel, language and variant), or a module's whole source, for a
// module generated before kernels had their own spans.
type images struct {
	mu sync.Mutex
	m  map[imageKey]*programmgr.Image
	// fullCUDA is set once NVRTC refused minimalCUDA (an NVRTC before
	// CUDA 12.4): CUDA C is built without it from then on.
	fullCUDA bool
}

type imageKey struct {
	kernel      string // "" for the whole module
	cuda, debug bool
	minimal     bool // built with minimalCUDA
}

// minimalCUDA is the NVRTC option CUDA C is built with: it leaves out
// the CUDA runtime's device-side API, textures and device-side launches,
// which generated code never uses, and so a part of every compile's
// work. A build that fails with it is tried once more without it, so
// that it can cost a failing build a second compile but never make a
// kernel fail; an NVRTC without it (before CUDA 12.4) is not asked for
// it again. GOUR_GOKERNEL_NVRTC_MINIMAL=0 turns it off (to compare
// build times).
const minimalCUDA = "-minimal"

// minimalFromEnv reports whether CUDA C is built with minimalCUDA.
func minimalFromEnv() bool { return os.Getenv("GOUR_GOKERNEL_NVRTC_MINIMAL") != "0" }

// cudaBuildFailure reports whether err is a failed build of CUDA C.
func cudaBuildFailure(err error) bool {
	var e *ur.Error
	return errors.As(err, &e) && e.Adapter == "cuda" && e.Result == ur.ErrProgramBuildFailure
}

// refusedMinimal reports whether err is NVRTC refusing minimalCUDA.
func refusedMinimal(err error) bool {
	var e *ur.Error
	return errors.As(err, &e) && e.Adapter == "cuda" && (e.NativeName == "NVRTC_ERROR_INVALID_OPTION" || strings.Contains(e.BuildLog, minimalCUDA))
}

// buildImage runs build on k's image and, where a build with
// minimalCUDA fails, once more on the image without it.
func buildImage[T any](m *Module, k *KernelInfo, cuda, debug bool, build func(*programmgr.Image) (T, error)) (T, error) {
	img, minimal, err := m.image(k, cuda, debug, true)
	if err != nil {
		var zero T
		return zero, err
	}
	out, err := build(img)
	if err == nil || !minimal || !cudaBuildFailure(err) {
		return out, err
	}
	if refusedMinimal(err) {
		m.im.mu.Lock()
		m.im.fullCUDA = true
		m.im.mu.Unlock()
	}
	if img, _, err = m.image(k, cuda, debug, false); err != nil {
		return out, err
	}
	return build(img)
}

// own reports whether k has its own spans in the module's sources.
func (k *KernelInfo) own() bool { return len(k.Source.OpenCL) != 0 }

// image is the image k is built from on a backend (CUDA C with cuda),
// plain or debug: the kernel's own translation unit — the spans of the
// module's source it needs — or the whole module's source. With minimal
// a CUDA C image is built with minimalCUDA where the environment and
// NVRTC allow it; isMinimal reports whether it is.
func (m *Module) image(k *KernelInfo, cuda, debug, minimal bool) (img *programmgr.Image, isMinimal bool, err error) {
	m.im.mu.Lock()
	defer m.im.mu.Unlock()
	key := imageKey{cuda: cuda, debug: debug, minimal: minimal && cuda && !m.im.fullCUDA && minimalFromEnv()}
	if k.own() {
		key.kernel = k.Name
	}
	if img := m.im.m[key]; img != nil {
		return img, key.minimal, nil
	}
	src, err := m.source(k, cuda, debug)
	if err != nil {
		return nil, false, err
	}
	var names []string
	req := programmgr.Requirements{FP64: m.FP64}
	if key.kernel == "" {
		for _, k := range m.Kernels {
			names = append(names, k.Name)
		}
	} else {
		names = []string{k.Name}
		req.FP64 = k.Needs&AspectFP64 != 0
	}
	format := programmgr.FormatOpenCLC
	if cuda {
		format = programmgr.FormatCUDAC
	}
	var options string
	if key.minimal {
		options = minimalCUDA
	}
	img, err = programmgr.NewImage(programmgr.ImageDesc{Format: format, Bytes: []byte(src), KernelNames: names, Requirements: req, CompileOptions: options})
	if err != nil {
		return nil, false, err
	}
	if m.im.m == nil {
		m.im.m = map[imageKey]*programmgr.Image{}
	}
	m.im.m[key] = img
	return img, key.minimal, nil
}

// KernelSource is the source Kernel builds kernel name from on a device
// of backend (dev.Backend(): CUDA C for "cuda", OpenCL C otherwise), in
// its debug variant with debug: the kernel's own translation unit, whose
// line numbers a device compiler's log gives.
func (m *Module) KernelSource(name, backend string, debug bool) (string, error) {
	for i := range m.Kernels {
		if m.Kernels[i].Name == name {
			return m.source(&m.Kernels[i], backend == "cuda", debug)
		}
	}
	return "", fmt.Errorf("gokernel: %w: the module has no kernel %q", ur.ErrInvalidKernelName, name)
}

// source is k's own translation unit, the spans of the module's source
// it needs, or the module's whole source if k has no spans.
func (m *Module) source(k *KernelInfo, cuda, debug bool) (string, error) {
	var whole string
	var spans []int
	switch {
	case cuda && debug:
		whole, spans = m.DebugCUDA, k.Source.DebugCUDA
	case cuda:
		whole, spans = m.CUDA, k.Source.CUDA
	case debug:
		whole, spans = m.DebugOpenCL, k.Source.DebugOpenCL
	default:
		whole, spans = m.OpenCL, k.Source.OpenCL
	}
	if debug && whole == "" {
		return "", fmt.Errorf("gokernel: kernel %s: the module has no debug variant: generate it again: %w", k.Name, ur.ErrUnsupportedFeature)
	}
	if !k.own() {
		return whole, nil
	}
	if len(spans)%2 != 0 {
		return "", fmt.Errorf("gokernel: kernel %s: %d span offsets, not pairs: generate the module again: %w", k.Name, len(spans), ur.ErrInvalidValue)
	}
	var b strings.Builder
	for i := 0; i < len(spans); i += 2 {
		start, end := spans[i], spans[i+1]
		if start < 0 || start > end || end > len(whole) || i > 0 && start < spans[i-1] {
			return "", fmt.Errorf("gokernel: kernel %s: span [%d, %d) does not fit the module's source of %d bytes: generate the module again: %w", k.Name, start, end, len(whole), ur.ErrInvalidValue)
		}
		b.WriteString(whole[start:end])
	}
	return b.String(), nil
}

// AspectError is a kernel that needs a device aspect the device lacks,
// found before anything is built. It matches ur.ErrUnsupportedFeature.
type AspectError struct {
	Kernel string
	Aspect Aspect // one aspect
	Device string
	// Debug: only the debug variant needs it (AspectAtomic64, for the
	// error record).
	Debug bool
	Note  string // why, where the device has it but gour cannot reach it
}

func (e *AspectError) Error() string {
	if e.Debug {
		return fmt.Sprintf("gokernel: kernel %s in its debug variant records errors with 64-bit atomics, which %s lacks (aspect %s)", e.Kernel, e.Device, e.Aspect)
	}
	uses := map[Aspect]string{
		AspectFP64: "computes in float64", AspectAtomic64: "uses 64-bit atomics", AspectSubgroups: "uses subgroup operations",
		AspectSubgroupShuffle: "uses subgroup shuffles", AspectSubgroupBallot: "uses subgroup ballots",
	}[e.Aspect]
	if uses == "" {
		uses = "needs an aspect"
	}
	msg := fmt.Sprintf("gokernel: kernel %s %s, which %s lacks (aspect %s)", e.Kernel, uses, e.Device, e.Aspect)
	if e.Note != "" {
		msg += ": " + e.Note
	}
	return msg
}

func (e *AspectError) Unwrap() error { return ur.ErrUnsupportedFeature }

// checkAspects is an *AspectError if dev lacks an aspect k needs (what
// the whole module needs, for a kernel built from the whole module).
func (m *Module) checkAspects(dev *ur.Device, k *KernelInfo, debug bool) error {
	need := k.Needs
	if !k.own() {
		if m.FP64 {
			need |= AspectFP64
		}
		if m.Int64Atomics {
			need |= AspectAtomic64
		}
	}
	plain := need
	if debug {
		need |= AspectAtomic64
	}
	for a := Aspect(1); a != 0 && a <= need; a <<= 1 {
		if need&a != 0 && !hasAspect(dev, a) {
			e := &AspectError{Kernel: k.Name, Aspect: a, Device: dev.Name(), Debug: plain&a == 0}
			if dev.Backend() == "level_zero" && a&(AspectSubgroups|AspectSubgroupShuffle|AspectSubgroupBallot) != 0 {
				e.Note = "gour builds Level Zero kernels from OpenCL C 1.2 as SPIR-V 1.0, which has no subgroup operations"
			}
			return e
		}
	}
	return nil
}

// hasAspect reports whether a kernel needing aspect a builds and runs
// on dev. A subgroup is a warp on CUDA; an OpenCL device names its
// extensions. A device that cannot say whether it has 64-bit atomics is
// let try.
func hasAspect(dev *ur.Device, a Aspect) bool {
	switch a {
	case AspectFP64:
		return dev.Info().FP64
	case AspectAtomic64:
		ok, err := dev.QueryBool(ur.DeviceInfoAtomic64)
		return err != nil || ok
	}
	switch dev.Backend() {
	case "cuda":
		return a == AspectSubgroups || a == AspectSubgroupShuffle || a == AspectSubgroupBallot
	case "level_zero":
		// Level Zero's devices have subgroups, but the kernels reach them
		// as SPIR-V 1.0 compiled from OpenCL C 1.2 (programmgr), which
		// has no subgroup operations (they are SPIR-V 1.3's).
		return false
	}
	ext, _ := dev.QueryString(ur.DeviceInfoExtensions)
	has := func(name string) bool { return slices.Contains(strings.Fields(ext), name) }
	switch a {
	case AspectSubgroups:
		return has("cl_khr_subgroups")
	case AspectSubgroupShuffle:
		return has("cl_khr_subgroups") && has("cl_khr_subgroup_shuffle")
	case AspectSubgroupBallot:
		return has("cl_khr_subgroups") && has("cl_khr_subgroup_ballot")
	}
	return false
}

// Kernel is one kernel of a Module on one device, built and cached by a
// program manager: the manager's memory, disk and remote caches serve it
// to every later process.
type Kernel struct {
	info  *KernelInfo
	k     *programmgr.Kernel
	debug *debugRecord // the debug variant's; nil for the plain one
}

// Build builds every kernel of m for dev ahead of its first launch (or
// loads them from the manager's caches), so that no launch pays a
// compile: each kernel's own program, as Kernel builds it, several at
// once. A kernel needing an aspect dev lacks is not built, and its
// *AspectError is among those returned (joined), which match
// ur.ErrUnsupportedFeature: the others are built all the same. A compile
// error carries the device compiler's log.
func (m *Module) Build(ctx context.Context, mgr *programmgr.Manager, dev *ur.Device) error {
	debug := debugFromEnv()
	var errs []error
	cuda := dev.Backend() == "cuda"
	imgs := map[*programmgr.Image]*KernelInfo{}
	for i := range m.Kernels {
		if err := m.checkAspects(dev, &m.Kernels[i], debug); err != nil {
			errs = append(errs, err)
			continue
		}
		img, _, err := m.image(&m.Kernels[i], cuda, debug, true)
		if err != nil {
			return err
		}
		imgs[img] = &m.Kernels[i] // a module without spans is one image
	}
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		sem = make(chan struct{}, runtime.GOMAXPROCS(0))
	)
	for _, k := range imgs {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			_, err := buildImage(m, k, cuda, debug, func(img *programmgr.Image) (struct{}, error) {
				p, err := mgr.GetProgram(ctx, img, []*ur.Device{dev}, programmgr.SpecValues{}, "")
				if err == nil {
					err = p.Release()
				}
				return struct{}{}, err
			})
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Kernel returns the kernel called name of m on dev, built by mgr from
// the kernel's own OpenCL C (OpenCL and, through SPIR-V, Level Zero) or
// CUDA C — the kernel and what it calls, not the module's other kernels,
// so that a first use compiles one kernel — and cached by mgr under that
// source. An unknown name is ur.ErrInvalidKernelName; a device lacking
// an aspect the kernel needs (double precision, 64-bit atomics,
// subgroups), an *AspectError, which matches ur.ErrUnsupportedFeature.
// With GOUR_GOKERNEL_DEBUG=1 in the environment it is DebugKernel.
func (m *Module) Kernel(ctx context.Context, mgr *programmgr.Manager, dev *ur.Device, name string) (*Kernel, error) {
	return m.kernel(ctx, mgr, dev, name, debugFromEnv())
}

// DebugKernel is Kernel's bounds-checked variant, as -race is Go's: every
// index into a slice or array is checked on the device, and Launch waits
// for the kernel and returns an *IndexError naming the kernel, the
// file:line:col of the first failed check, the index and the length.
// (Without it an index out of range is the device's undefined behaviour,
// as in C.) It is slower: each launch waits for the device.
func (m *Module) DebugKernel(ctx context.Context, mgr *programmgr.Manager, dev *ur.Device, name string) (*Kernel, error) {
	return m.kernel(ctx, mgr, dev, name, true)
}

// debugFromEnv reports whether GOUR_GOKERNEL_DEBUG asks for the debug
// variant.
func debugFromEnv() bool { return os.Getenv("GOUR_GOKERNEL_DEBUG") == "1" }

func (m *Module) kernel(ctx context.Context, mgr *programmgr.Manager, dev *ur.Device, name string, debug bool) (*Kernel, error) {
	var info *KernelInfo
	for i := range m.Kernels {
		if m.Kernels[i].Name == name {
			info = &m.Kernels[i]
		}
	}
	if info == nil {
		return nil, fmt.Errorf("gokernel: %w: the module has no kernel %q", ur.ErrInvalidKernelName, name)
	}
	if err := m.checkAspects(dev, info, debug); err != nil {
		return nil, err
	}
	k, err := buildImage(m, info, dev.Backend() == "cuda", debug, func(img *programmgr.Image) (*programmgr.Kernel, error) {
		return mgr.GetKernel(ctx, img, name, dev, programmgr.SpecValues{}, "")
	})
	if err != nil {
		return nil, err
	}
	kk := &Kernel{info: info, k: k}
	if debug {
		kk.debug = &debugRecord{sites: m.DebugSites}
		if kk.debug.buf, err = mgr.Context().NewBufferFrom(ur.MemReadWrite, make([]byte, 24)); err != nil {
			k.Release()
			return nil, err
		}
	}
	return kk, nil
}

// debugRecord is a debug kernel's error record on the device: the first
// failed check's site, its index and the length.
type debugRecord struct {
	mu    sync.Mutex
	buf   *ur.Mem
	sites []string
}

// IndexError is an index out of range found by a debug kernel.
type IndexError struct {
	Kernel string
	Pos    string // file:line:col of the index expression
	Index  int64
	Len    int64
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("gokernel: kernel %s: %s: index out of range [%d] with length %d", e.Kernel, e.Pos, e.Index, e.Len)
}

// Info is the kernel's signature.
func (k *Kernel) Info() KernelInfo { return *k.info }

// UR is the kernel underneath, for ur's launch paths.
func (k *Kernel) UR() *ur.Kernel { return k.k.UR() }

// Release gives back the caller's reference to the cached kernel (and
// frees a debug kernel's error record).
func (k *Kernel) Release() error {
	if k.debug != nil {
		return errors.Join(k.debug.buf.Release(), k.k.Release())
	}
	return k.k.Release()
}

// Arg is one argument of a Go kernel's launch: a number (Value) or a
// slice in device memory (Ptr, Buffer), typed so that a launch checks it
// against the kernel's parameter.
type Arg struct {
	slice bool
	t     dtype.Type
	ur    ur.Arg
	n     int64
	// strct is a struct's Go type name, and n its size.
	strct string
	iv    int64 // a number's value as an int64: the length of a shared array it sizes
}

// Number is what a kernel's number parameters and slices hold: numbers,
// and the storage types kern.Float16 and kern.BFloat16.
type Number interface {
	~int8 | ~uint8 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~int | ~uint | ~float32 | ~float64 | kern.Float16 | kern.BFloat16
}

// typeOf is T's dtype.
func typeOf[T Number]() dtype.Type {
	var z T
	switch any(z).(type) {
	case kern.Float16:
		return dtype.Float16
	case kern.BFloat16:
		return dtype.BFloat16
	case float32:
		return dtype.Float32
	case float64:
		return dtype.Float64
	case int32:
		return dtype.Int32
	case uint32:
		return dtype.Uint32
	case int8:
		return dtype.Int8
	case uint8:
		return dtype.Uint8
	case uint64, uint:
		return dtype.Uint64
	case int64, int:
		return dtype.Int64
	}
	// A named type of a number: its kind by a conversion probe, its width
	// by its size.
	half, size := 0.5, unsafe.Sizeof(z)
	switch {
	case T(half) != 0 && size == 4:
		return dtype.Float32
	case T(half) != 0:
		return dtype.Float64
	case T(0)-1 > 0 && size == 1:
		return dtype.Uint8
	case T(0)-1 > 0 && size == 4:
		return dtype.Uint32
	case T(0)-1 > 0:
		return dtype.Uint64
	case size == 1:
		return dtype.Int8
	case size == 4:
		return dtype.Int32
	}
	return dtype.Int64
}

// Value is a number argument.
func Value[T Number](v T) Arg {
	t := typeOf[T]()
	switch t.Size() {
	case 1:
		return Arg{t: t, ur: ur.ArgOf(*(*uint8)(unsafe.Pointer(&v))), iv: int64(v)}
	case 2:
		return Arg{t: t, ur: ur.ArgOf(*(*uint16)(unsafe.Pointer(&v))), iv: int64(v)}
	case 4:
		return Arg{t: t, ur: ur.ArgOf(*(*uint32)(unsafe.Pointer(&v))), iv: int64(v)}
	}
	return Arg{t: t, ur: ur.ArgOf(*(*uint64)(unsafe.Pointer(&v))), iv: int64(v)}
}

// Struct is a struct argument, passed by value: its bytes as Go lays it
// out, which is the device's C layout for the structs a kernel takes
// (numbers and arrays of numbers, each at a multiple of its alignment).
// A launch checks its type's name and size against the kernel's
// parameter; the launch functions command gokernel generates take the
// struct type itself, so that Go's compiler checks it.
func Struct[T any](v T) Arg {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return Arg{strct: t.String() + " (not a struct)", n: -1}
	}
	b := make([]byte, t.Size())
	copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&v)), t.Size()))
	return Arg{strct: t.Name(), ur: ur.ArgBytes(b), n: int64(t.Size())}
}

// Bool is a bool argument: a byte on the device, 1 for true.
func Bool(v bool) Arg {
	var b uint8
	if v {
		b = 1
	}
	return Arg{t: dtype.Uint8, ur: ur.ArgOf(b)}
}

// Slice is a slice argument whose element type is T: what the launch
// functions command gokernel generates take for a kernel's []T
// parameter, so that Go's compiler checks the element type.
type Slice[T Number] struct{ arg Arg }

// Arg is s as an argument of Kernel.Launch.
func (s Slice[T]) Arg() Arg { return s.arg }

// PtrSlice is Ptr, typed.
func PtrSlice[T Number](p ur.Ptr, n int) Slice[T] { return Slice[T]{Ptr[T](p, n)} }

// BufferSlice is Buffer, typed.
func BufferSlice[T Number](m *ur.Mem, n int) Slice[T] { return Slice[T]{Buffer[T](m, n)} }

// ArraySlice is Array, typed.
func ArraySlice[T compute.Number](a *compute.Array[T], mode compute.Access) (Slice[T], error) {
	arg, err := Array(a, mode)
	return Slice[T]{arg}, err
}

// Ptr is a slice argument of n elements of T at p (USM).
func Ptr[T Number](p ur.Ptr, n int) Arg {
	return Arg{slice: true, t: typeOf[T](), ur: ur.ArgPtr(p), n: int64(n)}
}

// Buffer is a slice argument of n elements of T in buffer m.
func Buffer[T Number](m *ur.Mem, n int) Arg {
	return Arg{slice: true, t: typeOf[T](), ur: ur.ArgBuffer(m), n: int64(n)}
}

// CheckKernel reports whether k is the kernel called name: what the
// launch functions command gokernel generates check before launching.
func CheckKernel(k *Kernel, name string) error {
	if k == nil {
		return fmt.Errorf("%w: a nil *gokernel.Kernel for kernel %s", ErrArgs, name)
	}
	if k.info.Name != name {
		return fmt.Errorf("%w: kernel %s given to the launch function of kernel %s", ErrArgs, k.info.Name, name)
	}
	return nil
}

// maxParams bounds a kernel's parameters for a launch that allocates
// nothing.
const maxParams = 16

// Launch launches k over r on q with args, checked against the kernel's
// parameters (ErrArgs names the one that does not fit), through
// ur.Queue.Launch: repeated, it is the prepared launch's one driver call.
func (k *Kernel) Launch(q *ur.Queue, r ur.NDRange, args ...Arg) error {
	ps := k.info.Params
	if len(args) != len(ps) {
		return fmt.Errorf("%w: kernel %s takes %d arguments, the launch gives %d", ErrArgs, k.info.Name, len(ps), len(args))
	}
	if len(ps) > maxParams {
		return fmt.Errorf("%w: kernel %s takes %d arguments, more than %d", ErrArgs, k.info.Name, len(ps), maxParams)
	}
	var buf [2 * maxParams]ur.Arg
	ua := buf[:0]
	for i, a := range args {
		p := &ps[i]
		if a.slice != p.Slice || a.t != p.Type || p.Struct != (a.strct != "") || p.Struct && (a.strct != p.Go || a.n != int64(p.Size)) {
			return k.argError(i, a)
		}
		ua = append(ua, a.ur)
		if a.slice {
			ua = append(ua, ur.ArgOf(a.n))
		}
	}
	// The shared arrays sized at launch: work-group memory of their
	// length argument's elements.
	for _, d := range k.info.Dynamic {
		if d.Param < 0 || d.Param >= len(args) {
			return fmt.Errorf("%w: kernel %s: a shared array sized by parameter %d of %d: generate the module again", ErrArgs, k.info.Name, d.Param, len(args))
		}
		n := args[d.Param].iv
		if n <= 0 {
			return fmt.Errorf("%w: kernel %s: argument %d (%s) is %d: it is a shared array's length, which must be positive", ErrArgs, k.info.Name, d.Param, ps[d.Param].Name, n)
		}
		ua = append(ua, ur.ArgLocalMem(uint64(n)*uint64(d.Elem)))
	}
	if k.debug != nil {
		return k.launchDebug(q, r, ua)
	}
	return q.Launch(k.k.UR(), r, ua...)
}

// launchDebug launches the debug variant with its error record, waits
// for it and reports the first failed check.
func (k *Kernel) launchDebug(q *ur.Queue, r ur.NDRange, ua []ur.Arg) error {
	d := k.debug
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := q.Launch(k.k.UR(), r, append(ua, ur.ArgBuffer(d.buf))...); err != nil {
		return err
	}
	var rec [3]int64
	if err := q.ReadBuffer(d.buf, 0, ur.AsBytes(rec[:])); err != nil {
		return err
	}
	if rec[0] == 0 {
		return nil
	}
	if err := q.WriteBuffer(d.buf, 0, make([]byte, 24)); err != nil {
		return err
	}
	pos := "an unknown place"
	if s := int(rec[0]); s >= 1 && s <= len(d.sites) {
		pos = d.sites[s-1]
	}
	return &IndexError{Kernel: k.info.Name, Pos: pos, Index: rec[1], Len: rec[2]}
}

func (k *Kernel) argError(i int, a Arg) error {
	p := k.info.Params[i]
	want, got := p.Type.String(), a.t.String()
	if p.Struct {
		want = fmt.Sprintf("struct %s of %d bytes", p.Go, p.Size)
	}
	if a.strct != "" {
		got = fmt.Sprintf("struct %s of %d bytes", a.strct, a.n)
	}
	if p.Slice {
		want = "[]" + want
	}
	if a.slice {
		got = "[]" + got
	}
	return fmt.Errorf("%w: kernel %s: argument %d (%s) is %s, want %s", ErrArgs, k.info.Name, i, p.Name, got, want)
}

// RunCPU runs a kernel on the CPU as Go: fn, which calls the kernel with
// the Item it is given and the kernel's arguments as Go values, runs once
// for every work-item of r. The work-groups (r.Local; all 0: groups of
// one) run on GOMAXPROCS goroutines at once; a group of more than one
// work-item runs a goroutine per work-item, with a real barrier and the
// group's shared memory, so that go test -race reports what a missing
// barrier lets race. Its subgroups are of kern.CPUSubgroupSize
// consecutive work-items, whose operations wait for each other as a
// barrier does. r.Offset is added to the global ids. A panic of the
// kernel (an index out of range) is returned as an error naming the
// work-item, and so is a work-item that returned while others of its
// group wait for it at a barrier or subgroup operation
// (kern.ErrDivergence), where a device would hang.
func RunCPU(r ur.NDRange, fn func(it kern.Item)) (err error) {
	dims := int(r.Dims)
	if dims < 1 || dims > 3 {
		return fmt.Errorf("gokernel: %w: %d dimensions", ur.ErrInvalidWorkDimension, r.Dims)
	}
	var global, local, groups [3]int
	for d := range 3 {
		global[d], local[d] = 1, 1
		if d < dims {
			global[d] = int(r.Global[d])
			if r.Local[d] != 0 {
				local[d] = int(r.Local[d])
			}
			if global[d] == 0 || global[d]%local[d] != 0 {
				return fmt.Errorf("gokernel: %w: global size %d is not a multiple of local size %d in dimension %d", ur.ErrInvalidWorkGroupSize, global[d], local[d], d)
			}
		}
		groups[d] = global[d] / local[d]
	}
	size := local[0] * local[1] * local[2]
	total := groups[0] * groups[1] * groups[2]
	var (
		mu   sync.Mutex
		errs []error
		next int
		wg   sync.WaitGroup
	)
	fail := func(e error) {
		mu.Lock()
		errs = append(errs, e)
		mu.Unlock()
	}
	item := func(g *kern.Group, grp, lid [3]int) kern.Item {
		var gid [3]int
		for d := range 3 {
			gid[d] = grp[d]*local[d] + lid[d]
			if d < dims {
				gid[d] += int(r.Offset[d])
			}
		}
		return kern.NewItem(g, gid, lid, grp, global, local)
	}
	run := func(g *kern.Group, it kern.Item) {
		id := [3]int{it.GlobalID(0), it.GlobalID(1), it.GlobalID(2)}
		defer func() {
			if p := recover(); p != nil {
				g.Break()
				var de *kern.DivergenceError
				if e, ok := p.(error); ok && errors.As(e, &de) {
					fail(fmt.Errorf("gokernel: %w", de))
				} else if p != kern.ErrGroupBroken {
					fail(fmt.Errorf("gokernel: work-item %v panicked: %v", id, p))
				}
			}
		}()
		fn(it)
		if err := g.Done(it); err != nil {
			fail(fmt.Errorf("gokernel: %w", err))
		}
	}
	workers := min(runtime.GOMAXPROCS(0), total)
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				n := next
				next++
				failed := len(errs) > 0
				mu.Unlock()
				if n >= total || failed {
					return
				}
				grp := [3]int{n % groups[0], n / groups[0] % groups[1], n / (groups[0] * groups[1])}
				g := kern.NewGroup(size)
				if size == 1 {
					run(g, item(g, grp, [3]int{}))
					continue
				}
				var items sync.WaitGroup
				for l := range size {
					lid := [3]int{l % local[0], l / local[0] % local[1], l / (local[0] * local[1])}
					items.Go(func() { run(g, item(g, grp, lid)) })
				}
				items.Wait()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Array is a compute.Array as a slice argument, prepared for a kernel
// that uses it as mode says (compute.Array.Arg: uploaded for In and
// InOut if its device copy is stale; after the launch only the device
// copy is valid for Out and InOut). The array must be of a compute.Device
// whose queue the kernel is launched on (Device.UR's third result).
func Array[T compute.Number](a *compute.Array[T], mode compute.Access) (Arg, error) {
	ua, err := a.Arg(mode)
	if err != nil {
		return Arg{}, err
	}
	return Arg{slice: true, t: a.DType(), ur: ua, n: int64(a.Len())}, nil
}
