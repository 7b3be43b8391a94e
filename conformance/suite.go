package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gour-dev/gour/internal/harness/devreq"
	"github.com/gour-dev/gour/ur"
)

//go:generate go run ./internal/gencases

// Test is one conformance case. F runs it on every device, one sub-test
// per device, with the suite's defaults (every selected device, the
// suite's device code), as go test ./conformance/ does; Run runs it with
// Options.
type Test struct {
	Name string
	F    func(t *testing.T)
}

// Tests lists every case, in the order go test runs them: by file, then
// as written. The list is generated from the package's Test functions
// (go generate).
func Tests() []Test { return slices.Clone(tests) }

// Options chooses what Run runs, on which devices, with which device code.
// The zero value runs every case on every device discovery selects, with
// the suite's device code for the adapters of this module.
type Options struct {
	// Adapters keeps only the devices of these adapters, by the name they
	// registered under; empty keeps every adapter. Devices are those that
	// discovery selects under the environment's settings
	// (UR_ADAPTERS_FORCE_LOAD, ONEAPI_DEVICE_SELECTOR).
	Adapters []string
	// Require makes an adapter of Adapters that did not load, or has no
	// selected device, fail the run rather than skip it, as
	// UR_REQUIRE_ADAPTERS does for the adapters it names.
	Require bool
	// Selector further filters the devices, in the syntax of
	// ONEAPI_DEVICE_SELECTOR ("opencl:cpu", "mine:0").
	Selector string
	// Tests names the cases to run, as Tests lists them; empty runs every
	// case. A name the suite does not have fails the run.
	Tests []string
	// DeviceCode gives adapters their device code, by adapter name, adding
	// to or replacing the suite's own (OpenCL C for "opencl", CUDA C++ for
	// "cuda", SPIR-V for "level_zero"). An adapter without device code
	// skips the cases that build programs, saying so.
	DeviceCode map[string]DeviceCode
	// KnownFailures are skipped like the suite's own KnownFailures.
	KnownFailures []KnownFailure
}

// Run runs the cases opts selects as sub-tests of t, each on every
// selected device: t/TestMemoryFill/opencl/cpu:0/<device>/pattern16. The
// contexts and programs the cases share are released when t ends.
//
// It is how another module runs the suite on its own adapter, from any
// test of its own:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, conformance.Options{
//			Adapters:   []string{"mine"},
//			DeviceCode: map[string]conformance.DeviceCode{"mine": conformance.OpenCLC()},
//		})
//	}
func Run(t *testing.T, opts Options) {
	t.Helper()
	x, err := NewSession(opts)
	if err != nil {
		t.Fatalf("conformance.Run: %v", err)
	}
	t.Cleanup(x.Close)
	x.Run(t)
}

// Session is a run of the suite that outlives one test: the contexts and
// programs its cases share are made once and kept until Close, for a
// program that runs the cases as top-level tests of its own, one by one
// (a comparison of drivers, which reads each case's result from go test's
// output): a context and a build per case would cost seconds each on some
// drivers. Run makes one per call and closes it when its test ends.
type Session struct{ s *suite }

// NewSession checks opts as Run does and returns the session.
func NewSession(opts Options) (*Session, error) {
	s, err := newSuite(opts)
	if err != nil {
		return nil, err
	}
	return &Session{s}, nil
}

// Run runs the named cases (every case of the session's Options.Tests for
// none) as sub-tests of t, as Run does.
func (x *Session) Run(t *testing.T, names ...string) {
	t.Helper()
	if len(names) == 0 {
		names = x.s.opts.Tests
	}
	selected, err := selectTests(names)
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	x.s.run(t, selected)
}

// Close releases what the session's cases shared.
func (x *Session) Close() { x.s.release() }

// run runs the cases as sub-tests of t, bound to s.
func (s *suite) run(t *testing.T, cases []Test) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			bind(t, s, c.Name)
			c.F(t)
		})
	}
}

// selectTests returns the cases named, in the suite's order; every case
// for none.
func selectTests(names []string) ([]Test, error) {
	if len(names) == 0 {
		return Tests(), nil
	}
	var unknown []string
	for _, n := range names {
		if !slices.ContainsFunc(tests, func(c Test) bool { return c.Name == n }) {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("Options.Tests names cases the suite does not have: %s (conformance.Tests lists them)", strings.Join(unknown, ", "))
	}
	var out []Test
	for _, c := range tests {
		if slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Main runs a test binary whose tests call the cases directly
// (func TestX(t *testing.T) { conformance.TestX(t) }), then releases the
// contexts and programs the cases shared, and returns the exit code:
//
//	func TestMain(m *testing.M) { os.Exit(conformance.Main(m)) }
func Main(m *testing.M) int {
	code := m.Run()
	defaultSuite.release()
	return code
}

// suite is one run of the cases: its options and what its cases share.
type suite struct {
	opts     Options
	selector ur.Selector
	code     map[string]DeviceCode // by adapter name

	mu     sync.Mutex
	states map[*ur.Device]*deviceState
}

func newSuite(opts Options) (*suite, error) {
	sel, err := ur.ParseSelector(opts.Selector)
	if err != nil {
		return nil, fmt.Errorf("Options.Selector: %w", err)
	}
	code := builtinDeviceCode()
	for name, c := range opts.DeviceCode {
		if err := c.check(); err != nil {
			return nil, fmt.Errorf("Options.DeviceCode[%q]: %w", name, err)
		}
		code[name] = c
	}
	return &suite{opts: opts, selector: sel, code: code, states: map[*ur.Device]*deviceState{}}, nil
}

// defaultSuite runs the cases called directly, as go test functions:
// every device, the suite's own device code (what newSuite(Options{})
// returns).
var defaultSuite = &suite{code: builtinDeviceCode(), states: map[*ur.Device]*deviceState{}}

// A case finds its run through its *testing.T: Run binds the sub-test it
// gives each case; a case called directly is not bound and runs in
// defaultSuite, named by the last element of its test's name.
type binding struct {
	s    *suite
	name string
}

var bindings sync.Map // *testing.T → binding

func bind(t *testing.T, s *suite, name string) {
	bindings.Store(t, binding{s, name})
	t.Cleanup(func() { bindings.Delete(t) })
}

// caseOf returns the run of a case's t and the case's name.
func caseOf(t *testing.T) (*suite, string) {
	if b, ok := bindings.Load(t); ok {
		b := b.(binding)
		return b.s, b.name
	}
	name := t.Name() // "TestX", or ".../TestX" for t.Run(c.Name, c.F)
	return defaultSuite, name[strings.LastIndexByte(name, '/')+1:]
}

// devices returns the devices the run selects, skipping t without any, or
// failing it when a required adapter has none.
func (s *suite) devices(t testing.TB) []*ur.Device {
	t.Helper()
	devs, why, err := devreq.Select(system(t), s.opts.Adapters, s.opts.Require)
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	if len(devs) == 0 {
		t.Skipf("conformance: %s", why)
	}
	kept := slices.DeleteFunc(slices.Clone(devs), func(d *ur.Device) bool { return !s.selector.Match(d) })
	if len(kept) == 0 {
		t.Skipf("conformance: Options.Selector %q leaves none of the %d selected devices", s.opts.Selector, len(devs))
	}
	return kept
}

// system returns the devices discovery finds with the environment's
// settings, once per process; a malformed setting fails t.
func system(t testing.TB) *ur.System {
	t.Helper()
	sys, err := devreq.System()
	if err != nil {
		t.Fatalf("conformance: discovery failed: %v", err)
	}
	return sys
}

func (s *suite) stateOf(dev *ur.Device) *deviceState {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.states[dev]
	if !ok {
		code, hasCode := s.code[dev.Backend()]
		st = &deviceState{dev: dev, code: code, hasCode: hasCode, programs: map[string]*programEntry{}}
		s.states[dev] = st
	}
	return st
}

// release releases what the run's cases shared; the run's cases have
// ended.
func (s *suite) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range s.states {
		st.release()
	}
	clear(s.states)
}

// deviceState is what the cases of one run share on one device: a context
// and the programs built in it, each built once, on first use. Cases must
// not release them; the run does, after its last case.
type deviceState struct {
	dev     *ur.Device
	code    DeviceCode
	hasCode bool

	ctxOnce sync.Once
	ctx     *ur.Context
	ctxErr  error

	mu       sync.Mutex
	programs map[string]*programEntry // by source file name and build options
}

type programEntry struct {
	once sync.Once
	prog *ur.Program
	err  error
}

func (s *deviceState) context() (*ur.Context, error) {
	s.ctxOnce.Do(func() { s.ctx, s.ctxErr = ur.NewContext(s.dev) })
	return s.ctx, s.ctxErr
}

// program returns the shared program built from the device code's file
// name with options.
func (s *deviceState) program(file, options string) (*ur.Program, error) {
	key := file + "\x00" + options
	s.mu.Lock()
	e, ok := s.programs[key]
	if !ok {
		e = &programEntry{}
		s.programs[key] = e
	}
	s.mu.Unlock()
	e.once.Do(func() {
		ctx, err := s.context()
		if err != nil {
			e.err = err
			return
		}
		p, err := s.code.createProgram(ctx, s.dev, file)
		if err != nil {
			e.err = err
			return
		}
		if err := p.Build(options); err != nil {
			p.Release()
			e.err = err
			return
		}
		e.prog = p
	})
	return e.prog, e.err
}

func (s *deviceState) release() {
	for _, e := range s.programs {
		if e.prog != nil {
			e.prog.Release()
		}
	}
	if s.ctx != nil {
		s.ctx.Release()
	}
}

// Fixture is one case's view of one device.
type Fixture struct {
	Device  *ur.Device
	Backend string

	suite  *suite
	state  *deviceState
	test   string // the case's name, as KnownFailures spells it
	root   string // the case's full test name (under Run, below the caller's test)
	prefix string // the device sub-test's full name
}

// deviceLabel names a device in sub-test names: adapter/type:index/name.
func deviceLabel(d *ur.Device) string {
	return fmt.Sprintf("%s/%s:%d/%s", d.Backend(), d.Type(), d.Index(), sanitize(d.Name()))
}

// sanitize keeps letters, digits, '.', '-' and '_', turns runs of anything
// else into one '_', so that -run patterns can name a device.
func sanitize(s string) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		ok := r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
		if ok {
			b.WriteRune(r)
			under = false
		} else if !under {
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		return "unnamed"
	}
	return out
}

// selectedDevices returns the devices of the case's run; t is the case's
// own test.
func selectedDevices(t *testing.T) []*ur.Device {
	t.Helper()
	s, _ := caseOf(t)
	return s.devices(t)
}

// forEachDevice runs fn as a sub-test for every device of the case's run.
// t must be the case's own test. Without devices the case skips with the
// adapters' reasons, or fails when a required adapter is missing.
func forEachDevice(t *testing.T, fn func(t *testing.T, f *Fixture)) {
	t.Helper()
	s, name := caseOf(t)
	root := t.Name()
	for _, dev := range s.devices(t) {
		t.Run(deviceLabel(dev), func(t *testing.T) {
			f := &Fixture{Device: dev, Backend: dev.Backend(), suite: s, state: s.stateOf(dev), test: name, root: root, prefix: t.Name()}
			f.SkipIfKnownFailure(t)
			fn(t, f)
		})
	}
}

// Run runs fn as a sub-test named name (a table row), skipping it when it
// is a known failure on this device.
func (f *Fixture) Run(t *testing.T, name string, fn func(t *testing.T)) bool {
	t.Helper()
	return t.Run(name, func(t *testing.T) {
		f.SkipIfKnownFailure(t)
		fn(t)
	})
}

// TestName is t's name without the device part, as KnownFailures spells it.
func (f *Fixture) TestName(t testing.TB) string {
	return f.test + strings.TrimPrefix(t.Name(), f.prefix)
}

// SkipIfKnownFailure skips t when the run's known failures list it for
// this adapter and device, unless GOUR_CTS_RUN_KNOWN_FAILURES=1.
func (f *Fixture) SkipIfKnownFailure(t testing.TB) {
	t.Helper()
	k, ok := f.knownFailure(t)
	if !ok {
		return
	}
	if os.Getenv(EnvRunKnownFailures) == "1" {
		t.Logf("known failure, run anyway (%s=1): %s", EnvRunKnownFailures, k.Reason)
		return
	}
	t.Skipf("known failure on %s %q: %s (%s=1 runs it)", f.Backend, f.Device.Name(), k.Reason, EnvRunKnownFailures)
}

// knownFailure finds t in the run's known failures: the suite's and those
// of its Options.
func (f *Fixture) knownFailure(t testing.TB) (KnownFailure, bool) {
	return FindKnownFailure(slices.Concat(KnownFailures, f.suite.opts.KnownFailures), f.Backend, f.deviceDescription(), f.TestName(t))
}

// deviceDescription is what KnownFailure.Device is matched against: the
// platform name and the device name, so that an entry can name a driver
// ("Portable Computing Language") as well as a device.
func (f *Fixture) deviceDescription() string {
	return f.Device.Platform().Info().Name + ", " + f.Device.Name()
}

// InChildProcess reports whether this process is a case's child process,
// started by Fixture.RunInChild: the program again, with a -test.run
// pattern that selects the case. A program that runs the suite through
// its own testing.Main (rather than go test) must keep that pattern in
// such a child, or the child runs every case it would run itself.
func InChildProcess() bool { return os.Getenv(envChild) != "" }

// envChild marks a child process started by Fixture.RunInChild; its value
// is the selector of the one device the child tests.
const envChild = "GOUR_CTS_CHILD"

// RunInChild re-runs the current case in a child process (this test
// binary) restricted to the fixture's device, for scenarios that may
// crash the process; the child's failure or crash fails t, with its
// output. The case calls runAsChild when envChild is set.
func (f *Fixture) RunInChild(t *testing.T) {
	t.Helper()
	// Two minutes, or less where the test's own deadline (-test.timeout)
	// comes sooner; a harness with a shorter limit (urcompare's case
	// timeout) kills this process's group, the child included.
	deadline := time.Now().Add(2 * time.Minute)
	if d, ok := t.Deadline(); ok && d.Add(-time.Second).Before(deadline) {
		deadline = d.Add(-time.Second)
	}
	ctx, cancel := context.WithDeadline(t.Context(), deadline)
	defer cancel()
	sel := fmt.Sprintf("%s:%d", f.Backend, f.Device.Index())
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+runPattern(f.root), "-test.v", "-test.count=1")
	// The child sees one device, so it may require only that device's adapter.
	cmd.Env = append(os.Environ(), envChild+"="+sel, ur.EnvDeviceSelector+"="+sel, devreq.EnvRequireAdapters+"="+f.Backend)
	// A process the killed child started may keep its output open:
	// CombinedOutput stops waiting for it this long after the kill.
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("child process (%s=%s) failed: %v\n%s", envChild, sel, err, tail(out, 4000))
		return
	}
	if !bytes.Contains(out, []byte("--- PASS: "+f.root+" ")) {
		t.Errorf("child process (%s=%s) did not pass %s:\n%s", envChild, sel, f.root, tail(out, 4000))
	}
}

// runPattern is the -test.run pattern that runs exactly the test named
// name ("TestX", or "TestConformance/TestX" under Run) and its sub-tests.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// runAsChild runs fn on the devices the child's selector leaves.
func runAsChild(t *testing.T, fn func(t *testing.T, f *Fixture)) {
	t.Helper()
	t.Logf("child process for %s", os.Getenv(envChild))
	forEachDevice(t, fn)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// releaser is every handle.
type releaser interface{ Release() error }

// alreadyReleased reports an error of releasing a handle twice.
func alreadyReleased(err error) bool {
	for _, code := range []ur.Result{ur.ErrInvalidContext, ur.ErrInvalidQueue, ur.ErrInvalidMemObject,
		ur.ErrInvalidProgram, ur.ErrInvalidKernel, ur.ErrInvalidEvent} {
		if errors.Is(err, code) {
			return true
		}
	}
	return false
}

// cleanup releases h when the test ends; a handle the test released itself
// is fine, any other failure to release is an error.
func cleanup[H releaser](t testing.TB, h H) H {
	t.Cleanup(func() {
		if err := h.Release(); err != nil && !alreadyReleased(err) {
			t.Errorf("release at cleanup: %v", err)
		}
	})
	return h
}

// Context returns the device's shared context. Tests must not release it.
func (f *Fixture) Context(t testing.TB) *ur.Context {
	t.Helper()
	ctx, err := f.state.context()
	if err != nil {
		t.Fatalf("NewContext(%s): %v", f.Device.Name(), err)
	}
	return ctx
}

// NewContext creates a context of the device alone, released at cleanup.
func (f *Fixture) NewContext(t testing.TB) *ur.Context {
	t.Helper()
	ctx, err := ur.NewContext(f.Device)
	if err != nil {
		t.Fatalf("NewContext(%s): %v", f.Device.Name(), err)
	}
	return cleanup(t, ctx)
}

// Queue creates a queue on the device in the shared context, released at
// cleanup.
func (f *Fixture) Queue(t testing.TB) *ur.Queue {
	t.Helper()
	return f.QueueIn(t, f.Context(t), ur.QueueProperties{})
}

// QueueIn creates a queue on the device in ctx, released at cleanup.
func (f *Fixture) QueueIn(t testing.TB, ctx *ur.Context, props ur.QueueProperties) *ur.Queue {
	t.Helper()
	q, err := ctx.NewQueue(f.Device, props)
	if err != nil {
		t.Fatalf("NewQueue(%+v): %v", props, err)
	}
	return cleanup(t, q)
}

// DeviceCode returns the adapter's device code, skipping the test when the
// run has none for it.
func (f *Fixture) DeviceCode(t testing.TB) DeviceCode {
	t.Helper()
	if !f.state.hasCode {
		t.Skipf("adapter %q has no conformance device code (conformance.Options.DeviceCode gives it some)", f.Backend)
	}
	return f.state.code
}

// Source returns one of the adapter's device-code files, skipping the test
// when the adapter has no device code.
func (f *Fixture) Source(t testing.TB, file string) string {
	t.Helper()
	src, err := f.DeviceCode(t).read(file)
	if err != nil {
		t.Fatalf("reading device code: %v", err)
	}
	return string(src)
}

// Program returns the shared program of the backend's kernels, built once
// per device. Tests must not release it.
func (f *Fixture) Program(t testing.TB) *ur.Program {
	t.Helper()
	return f.ProgramWithOptions(t, "")
}

// ProgramWithOptions is Program built with options, shared the same way.
func (f *Fixture) ProgramWithOptions(t testing.TB, options string) *ur.Program {
	t.Helper()
	f.DeviceCode(t) // skips adapters without device code
	p, err := f.state.program("kernels", options)
	if err != nil {
		t.Fatalf("building the %s kernels with options %q: %v", f.Backend, options, err)
	}
	return p
}

// Kernel creates a kernel of the shared program, released at cleanup.
// Kernels hold argument state, so every test makes its own.
func (f *Fixture) Kernel(t testing.TB, name string) *ur.Kernel {
	t.Helper()
	return f.KernelOf(t, f.Program(t), name)
}

// KernelOf creates a kernel of p, released at cleanup.
func (f *Fixture) KernelOf(t testing.TB, p *ur.Program, name string) *ur.Kernel {
	t.Helper()
	k, err := p.NewKernel(name)
	if err != nil {
		t.Fatalf("NewKernel(%q): %v", name, err)
	}
	return cleanup(t, k)
}

// Buffer allocates a buffer of size bytes in the shared context, released
// at cleanup.
func (f *Fixture) Buffer(t testing.TB, flags ur.MemFlags, size uint64) *ur.Mem {
	t.Helper()
	return f.BufferIn(t, f.Context(t), flags, size)
}

// BufferIn allocates a buffer in ctx, released at cleanup.
func (f *Fixture) BufferIn(t testing.TB, ctx *ur.Context, flags ur.MemFlags, size uint64) *ur.Mem {
	t.Helper()
	m, err := ctx.NewBuffer(flags, size)
	if err != nil {
		t.Fatalf("NewBuffer(%d bytes): %v", size, err)
	}
	return cleanup(t, m)
}

// BufferFrom allocates a buffer holding data in the shared context,
// released at cleanup.
func (f *Fixture) BufferFrom(t testing.TB, flags ur.MemFlags, data []byte) *ur.Mem {
	t.Helper()
	m, err := f.Context(t).NewBufferFrom(flags, data)
	if err != nil {
		t.Fatalf("NewBufferFrom(%d bytes): %v", len(data), err)
	}
	return cleanup(t, m)
}

// wantErr fails the test unless err carries code.
func wantErr(t testing.TB, what string, err error, code ur.Result) {
	t.Helper()
	if !errors.Is(err, code) {
		t.Errorf("%s: got error %v, want %v (%d)", what, err, code.String(), int32(code))
	}
}

// must fails the test at once on err.
func must(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// readUint32s reads n uint32 values from m.
func readUint32s(t testing.TB, q *ur.Queue, m *ur.Mem, n int) []uint32 {
	t.Helper()
	out := make([]uint32, n)
	must(t, "ReadBuffer", q.ReadBuffer(m, 0, ur.AsBytes(out)))
	return out
}

// checkUint32s compares got with want element by element, reporting the
// first few differences.
func checkUint32s(t testing.TB, what string, got []uint32, want func(i int) uint32) {
	t.Helper()
	bad := 0
	for i, g := range got {
		if w := want(i); g != w {
			if bad < 5 {
				t.Errorf("%s: element %d = %#x, want %#x", what, i, g, w)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d elements wrong", what, bad, len(got))
	}
}

// pattern returns n bytes that differ from their neighbours, to catch
// offset mistakes.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7) + seed
	}
	return b
}
