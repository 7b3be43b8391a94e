package ur

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/gour-dev/gour/ur/driver"
)

// ArgKind says how a kernel argument is passed: ArgValue (SetArgBytes and
// the scalar setters), ArgMem (SetArgMem), ArgLocal (SetArgLocal), or
// ArgUnknown where the driver cannot tell.
type ArgKind = driver.ArgKind

// Argument kinds.
const (
	ArgUnknown = driver.ArgUnknown
	ArgValue   = driver.ArgValue
	ArgMem     = driver.ArgMem
	ArgLocal   = driver.ArgLocal
)

// ArgInfo describes one kernel argument as far as the driver can tell:
// its kind, the size in bytes of its value or pointer (0 when unknown),
// and its name and type in the source where the driver reports them.
// OpenCL reports all of it; CUDA (12.4 and later) the size alone; Level
// Zero nothing. Kernel.Args returns it.
type ArgInfo = driver.ArgInfo

// kernelArgs is what a Kernel knows of its arguments: what each takes,
// for the checks of the setters, and which are set, for the launch's.
type kernelArgs struct {
	info []ArgInfo // nil when the driver tells nothing
	// ptrSize is the size of a buffer argument where the driver reports
	// sizes but not kinds (CUDA): the device's address size.
	ptrSize uint64
	set     []bool // nil when the number of arguments is unknown
	unset   int    // arguments never set
}

// newKernelArgs takes what the driver reports; info is used only when it
// describes every argument.
func newKernelArgs(numArgs uint32, info []ArgInfo, addressBits uint32) kernelArgs {
	if numArgs == driver.NumArgsUnknown {
		return kernelArgs{}
	}
	a := kernelArgs{set: make([]bool, numArgs), unset: int(numArgs), ptrSize: uint64(addressBits / 8)}
	if len(info) == int(numArgs) {
		a.info = info
	}
	return a
}

// markSet records argument index as set; arguments never become unset.
func (a *kernelArgs) markSet(index int) {
	if uint(index) < uint(len(a.set)) && !a.set[index] {
		a.set[index] = true
		a.unset--
	}
}

// Args describes the kernel's arguments, in order, as far as the driver
// can tell; nil when it tells nothing (see ArgInfo).
func (k *Kernel) Args() []ArgInfo {
	if k == nil || k.args.info == nil {
		return nil
	}
	return append([]ArgInfo(nil), k.args.info...)
}

// argSetting is what a setter gives an argument.
type argSetting struct {
	kind ArgKind
	size uint64 // bytes of a value, or of local memory
}

func (s argSetting) String() string {
	switch s.kind {
	case ArgMem:
		return "a buffer"
	case ArgLocal:
		return fmt.Sprintf("%d bytes of local memory", s.size)
	}
	return fmt.Sprintf("a value of %d bytes", s.size)
}

// checkValue checks a value of size bytes for argument index, which
// checkIndex has let through. It is inline in the setters: the error is
// made out of line.
func (k *Kernel) checkValue(op string, index int, size uint64) error {
	if uint(index) < uint(len(k.args.info)) {
		if a := &k.args.info[index]; a.Kind > ArgValue || a.Size != 0 && a.Size != size {
			return k.argMismatch(op, index, argSetting{ArgValue, size})
		}
	}
	return nil
}

// checkMem checks a buffer for argument index.
func (k *Kernel) checkMem(op string, index int) error {
	if uint(index) >= uint(len(k.args.info)) {
		return nil
	}
	a := &k.args.info[index]
	if a.Kind == ArgValue || a.Kind == ArgLocal || a.Kind == ArgUnknown && a.Size != 0 && k.args.ptrSize != 0 && a.Size != k.args.ptrSize {
		return k.argMismatch(op, index, argSetting{kind: ArgMem})
	}
	return nil
}

// checkLocal checks local memory for argument index. Where the kind is
// unknown the adapter checks the size of the argument.
func (k *Kernel) checkLocal(op string, index int, size uint64) error {
	if uint(index) < uint(len(k.args.info)) {
		if kind := k.args.info[index].Kind; kind == ArgValue || kind == ArgMem {
			return k.argMismatch(op, index, argSetting{ArgLocal, size})
		}
	}
	return nil
}

// describeArg names argument index with what the driver said of it:
// "argument 1 (uint n) of kernel fill_u32".
func (k *Kernel) describeArg(index int) string {
	return "argument " + k.argDecl(index) + " of kernel " + k.name
}

// argDecl is the index of an argument and, where the driver said, its
// declaration: "1 (uint n)".
func (k *Kernel) argDecl(index int) string {
	s := strconv.Itoa(index)
	if uint(index) < uint(len(k.args.info)) {
		a := &k.args.info[index]
		if decl := strings.TrimSpace(a.TypeName + " " + a.Name); decl != "" {
			s += " (" + decl + ")"
		}
	}
	return s
}

// expected says what argument index takes: "a value of 4 bytes", "a
// buffer", "local memory", "4 bytes".
func (k *Kernel) expected(index int) string {
	if uint(index) >= uint(len(k.args.info)) {
		return "an argument the driver does not describe"
	}
	a := &k.args.info[index]
	switch {
	case a.Kind == ArgMem:
		return "a buffer"
	case a.Kind == ArgLocal:
		return "local memory"
	case a.Kind == ArgValue && a.Size != 0:
		return fmt.Sprintf("a value of %d bytes", a.Size)
	case a.Kind == ArgValue:
		return "a value"
	case a.Size != 0:
		return fmt.Sprintf("%d bytes", a.Size)
	}
	return "an argument of unknown kind"
}

// argMismatch is the error for a setting argument index does not take.
//
//go:noinline
func (k *Kernel) argMismatch(op string, index int, given argSetting) error {
	what := given.String()
	if given.kind == ArgMem && k.args.ptrSize != 0 {
		what += fmt.Sprintf(" (a pointer of %d bytes)", k.args.ptrSize)
	}
	return newError(ErrInvalidKernelArgumentSize, op, k.adapter.name, "%s takes %s, not %s",
		k.describeArg(index), k.expected(index), what)
}

// argDriverError is the adapter's error for a setting of argument index,
// with what the front end knows added: which argument, what it was given
// and, where the driver said, what it takes.
//
//go:noinline
func (k *Kernel) argDriverError(op string, index int, given argSetting, err error) error {
	werr := wrapError(err, op, k.adapter.name)
	e, ok := werr.(*Error)
	if !ok {
		return werr
	}
	prefix := fmt.Sprintf("%s, given %s", k.describeArg(index), given)
	if uint(index) < uint(len(k.args.info)) {
		prefix += ", takes " + k.expected(index)
	}
	if e.Message != "" {
		prefix += ": " + e.Message
	}
	e.Message = prefix
	return e
}

// unsetArgsError names the arguments of k never set.
//
//go:noinline
func (k *Kernel) unsetArgsError(op string) error {
	var missing []string
	for i, set := range k.args.set {
		if !set {
			missing = append(missing, k.argDecl(i))
		}
	}
	what := "argument " + missing[0] + " is"
	if len(missing) > 1 {
		what = "arguments " + strings.Join(missing, ", ") + " are"
	}
	return newError(ErrInvalidKernelArgs, op, k.adapter.name, "kernel %s: %s not set (%d of %d)",
		k.name, what, len(missing), len(k.args.set))
}

// groupLimits is what bounds a kernel's work-group on one device, read
// once at NewKernel for the launch's checks.
type groupLimits struct {
	maxItems uint64    // the kernel's largest work-group there; 0 unknown
	required [3]uint64 // reqd_work_group_size; all 0 when none
}

// checkLaunch checks what the adapter would otherwise find only at the
// launch, or not at all (an argument never set, a work-group too large),
// and says which argument or limit. It is the launch's slow path, after
// checkRange; a prepared or repeated launch is only made after it passed,
// and a kernel's arguments never become unset.
func (k *Kernel) checkLaunch(op string, q *Queue, r *NDRange) error {
	// Inline: the common launch has its arguments set and no local size
	// (checkRange saw one in every dimension or in none).
	if k.args.unset == 0 && r.Local[0] == 0 {
		return nil
	}
	return k.checkSetAndGroup(op, q, r)
}

func (k *Kernel) checkSetAndGroup(op string, q *Queue, r *NDRange) error {
	if k.args.unset != 0 {
		return k.unsetArgsError(op)
	}
	return k.checkGroup(op, q, r)
}

// checkGroup checks r's local size against the kernel's and the device's
// limits on q's device. It allocates nothing unless it fails: its errors
// are made out of line (groupError), where r's copy may go to the heap.
func (k *Kernel) checkGroup(op string, q *Queue, r *NDRange) error {
	var lim groupLimits
	if i := q.deviceIndex; i >= 0 && i < len(k.groups) {
		lim = k.groups[i]
	}
	if lim.required != [3]uint64{} {
		for i := range r.Dims {
			if r.Local[i] != lim.required[i] {
				return k.groupError(op, q, *r, lim, groupNotRequired, 0)
			}
		}
	}
	var maxSizes [3]uint64
	var deviceMax uint64
	if q.device != nil {
		maxSizes, deviceMax = q.device.info.MaxWorkItemSizes, q.device.info.MaxWorkGroupSize
	}
	for i := range r.Dims {
		if maxSizes[i] != 0 && r.Local[i] > maxSizes[i] {
			return k.groupError(op, q, *r, lim, groupOverItemSize, int(i))
		}
	}
	if items := workItems(r); lim.maxItems != 0 && items > lim.maxItems || lim.maxItems == 0 && deviceMax != 0 && items > deviceMax {
		return k.groupError(op, q, *r, lim, groupOverMax, 0)
	}
	return nil
}

// groupProblem is what checkGroup found wrong.
type groupProblem int

const (
	groupNotRequired  groupProblem = iota // not the kernel's reqd_work_group_size
	groupOverItemSize                     // over the device's work-item size in one dimension
	groupOverMax                          // more work-items than the kernel or the device takes
)

// groupError is checkGroup's error, naming the limit r broke.
//
//go:noinline
func (k *Kernel) groupError(op string, q *Queue, r NDRange, lim groupLimits, problem groupProblem, dim int) error {
	dev := "the device"
	var info DeviceInfo
	if q.device != nil {
		dev, info = strconv.Quote(q.device.Name()), q.device.info
	}
	local := r.Local[:r.Dims]
	switch problem {
	case groupNotRequired:
		return newError(ErrInvalidWorkGroupSize, op, q.adapter.name,
			"local size %v: kernel %s requires a work-group of %v (reqd_work_group_size)",
			local, k.name, lim.required[:r.Dims])
	case groupOverItemSize:
		return newError(ErrInvalidWorkItemSize, op, q.adapter.name,
			"local size %d in dimension %d exceeds the maximum of %s in that dimension, %d (its maximum work-item sizes are %v)",
			local[dim], dim, dev, info.MaxWorkItemSizes[dim], info.MaxWorkItemSizes)
	}
	items := workItems(&r)
	if lim.maxItems != 0 {
		return newError(ErrInvalidWorkGroupSize, op, q.adapter.name,
			"work-group of %s = %d work-items exceeds kernel %s's maximum of %d on %s",
			groupShape(local), items, k.name, lim.maxItems, dev)
	}
	return newError(ErrInvalidWorkGroupSize, op, q.adapter.name,
		"work-group of %s = %d work-items exceeds the maximum of %s, %d",
		groupShape(local), items, dev, info.MaxWorkGroupSize)
}

// workItems is the number of work-items in a work-group of r, or
// MaxUint64 where that does not fit in 64 bits.
func workItems(r *NDRange) uint64 {
	items := uint64(1)
	for i := range r.Dims {
		hi, lo := bits.Mul64(items, r.Local[i])
		if hi != 0 {
			return math.MaxUint64
		}
		items = lo
	}
	return items
}

// groupShape formats a local size: "16×16".
func groupShape(local []uint64) string {
	parts := make([]string, len(local))
	for i, n := range local {
		parts[i] = strconv.FormatUint(n, 10)
	}
	return strings.Join(parts, "×")
}
