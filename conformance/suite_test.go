package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/gour-dev/gour/adapters/all"
	"github.com/gour-dev/gour/internal/testenv"
	"github.com/gour-dev/gour/ur"
)

// backendSource says where a backend's device code lives: the directory
// under testdata and the extension of its source files. Every backend has
// the same files: kernels (the kernels the suite launches), invalid (a
// program that must fail to build), link_main and link_lib (the two halves
// of the compile + link test). il, where set, names a file of the same
// directory in the backend's IL (the form NewProgramFromIL takes) that
// defines at least the iota kernel, for TestProgramFromIL.
type backendSource struct {
	dir, ext string
	il       string
	ilOnly   bool // the files are IL: programs come from NewProgramFromIL
}

var backendSources = map[string]backendSource{
	"opencl":     {dir: "opencl", ext: ".cl", il: "../spirv/kernels.spv"}, // SPIR-V from scripts/spirv.sh
	"cuda":       {dir: "cuda", ext: ".cu", il: "kernels.ptx"},
	"level_zero": {dir: "spirv", ext: ".spv", il: "kernels.spv", ilOnly: true}, // no source language
}

// sourceFileFor reads one of the backend's source files.
func sourceFileFor(backend, name string) (string, error) {
	bs, ok := backendSources[backend]
	if !ok {
		return "", fmt.Errorf("backend %q has no conformance device code under testdata/", backend)
	}
	b, err := os.ReadFile(filepath.Join("testdata", bs.dir, name+bs.ext))
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// createProgram creates a program of one of the backend's device-code
// files: from source, or from IL for a backend without a source language
// (on an fp64 device, the kernels file that has the fp64 kernels too).
func createProgram(ctx *ur.Context, dev *ur.Device, file string) (*ur.Program, error) {
	bs := backendSources[dev.Backend()]
	if !bs.ilOnly {
		src, err := sourceFileFor(dev.Backend(), file)
		if err != nil {
			return nil, err
		}
		return ctx.NewProgramFromSource(src)
	}
	if file == "kernels" && dev.Info().FP64 {
		file = "kernels_fp64"
	}
	il, err := os.ReadFile(filepath.Join("testdata", bs.dir, file+bs.ext))
	if err != nil {
		return nil, err
	}
	return ctx.NewProgramFromIL(il)
}

// ilFileFor reads the backend's IL file; ok is false when it has none.
func ilFileFor(backend string) (il []byte, ok bool, err error) {
	bs, known := backendSources[backend]
	if !known || bs.il == "" {
		return nil, false, nil
	}
	b, err := os.ReadFile(filepath.Join("testdata", bs.dir, bs.il))
	return b, true, err
}

// deviceState is what the suite shares between the tests of one device: a
// context and the programs built in it, each built once, on first use.
// Tests must not release them; TestMain does, after the last test.
type deviceState struct {
	dev *ur.Device

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

var (
	statesMu sync.Mutex
	states   = map[*ur.Device]*deviceState{}
)

func stateOf(dev *ur.Device) *deviceState {
	statesMu.Lock()
	defer statesMu.Unlock()
	s, ok := states[dev]
	if !ok {
		s = &deviceState{dev: dev, programs: map[string]*programEntry{}}
		states[dev] = s
	}
	return s
}

func (s *deviceState) context() (*ur.Context, error) {
	s.ctxOnce.Do(func() { s.ctx, s.ctxErr = ur.NewContext(s.dev) })
	return s.ctx, s.ctxErr
}

// program returns the shared program built from the backend's file name
// with options.
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
		p, err := createProgram(ctx, s.dev, file)
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

func TestMain(m *testing.M) {
	code := m.Run()
	statesMu.Lock()
	for _, s := range states {
		s.release()
	}
	statesMu.Unlock()
	os.Exit(code)
}

// Fixture is one test's view of one device.
type Fixture struct {
	Device  *ur.Device
	Backend string

	state  *deviceState
	test   string // the top-level test's name
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

// forEachDevice runs fn as a sub-test for every selected device of every
// loaded adapter. Without devices the test skips with the adapters'
// reasons, or fails when UR_REQUIRE_ADAPTERS names a missing adapter.
func forEachDevice(t *testing.T, fn func(t *testing.T, f *Fixture)) {
	t.Helper()
	for _, dev := range testenv.Devices(t) {
		t.Run(deviceLabel(dev), func(t *testing.T) {
			f := &Fixture{Device: dev, Backend: dev.Backend(), state: stateOf(dev), test: t.Name()[:strings.IndexByte(t.Name()+"/", '/')], prefix: t.Name()}
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

// SkipIfKnownFailure skips t when KnownFailures lists it for this adapter
// and device, unless GOUR_CTS_RUN_KNOWN_FAILURES=1.
func (f *Fixture) SkipIfKnownFailure(t testing.TB) {
	t.Helper()
	k, ok := FindKnownFailure(KnownFailures, f.Backend, f.deviceDescription(), f.TestName(t))
	if !ok {
		return
	}
	if os.Getenv(EnvRunKnownFailures) == "1" {
		t.Logf("known failure, run anyway (%s=1): %s", EnvRunKnownFailures, k.Reason)
		return
	}
	t.Skipf("known failure on %s %q: %s (%s=1 runs it)", f.Backend, f.Device.Name(), k.Reason, EnvRunKnownFailures)
}

// deviceDescription is what KnownFailure.Device is matched against: the
// platform name and the device name, so that an entry can name a driver
// ("Portable Computing Language") as well as a device.
func (f *Fixture) deviceDescription() string {
	return f.Device.Platform().Info().Name + ", " + f.Device.Name()
}

// envChild marks a child process started by Fixture.RunInChild; its value
// is the selector of the one device the child tests.
const envChild = "GOUR_CTS_CHILD"

// RunInChild re-runs the current top-level test in a child process (this
// test binary) restricted to the fixture's device, for scenarios that may
// crash the process; the child's failure or crash fails t, with its
// output. The test calls runAsChild when envChild is set.
func (f *Fixture) RunInChild(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	sel := fmt.Sprintf("%s:%d", f.Backend, f.Device.Index())
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+f.test+"$", "-test.v", "-test.count=1")
	// The child sees one device, so it may require only that device's adapter.
	cmd.Env = append(os.Environ(), envChild+"="+sel, ur.EnvDeviceSelector+"="+sel, "UR_REQUIRE_ADAPTERS="+f.Backend)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("child process (%s=%s) failed: %v\n%s", envChild, sel, err, tail(out, 4000))
		return
	}
	if !bytes.Contains(out, []byte("--- PASS: "+f.test)) {
		t.Errorf("child process (%s=%s) did not pass %s:\n%s", envChild, sel, f.test, tail(out, 4000))
	}
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

// Source returns one of the backend's source files, skipping the test when
// the backend has no device code in testdata.
func (f *Fixture) Source(t testing.TB, file string) string {
	t.Helper()
	if _, ok := backendSources[f.Backend]; !ok {
		t.Skipf("backend %q has no conformance device code under testdata/ yet", f.Backend)
	}
	src, err := sourceFileFor(f.Backend, file)
	if err != nil {
		t.Fatalf("reading device code: %v", err)
	}
	return src
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
	f.Source(t, "kernels") // skips backends without device code
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

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"pthread-skylake-avx512-AMD EPYC 7B13": "pthread-skylake-avx512-AMD_EPYC_7B13",
		"NVIDIA H100 80GB HBM3":                "NVIDIA_H100_80GB_HBM3",
		"  Intel(R) Arc(TM) A770  ":            "Intel_R_Arc_TM_A770",
		"a/b:c":                                "a_b_c",
		"":                                     "unnamed",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("sanitize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRequiredAdaptersPresent(t *testing.T) {
	testenv.CheckRequired(t)
	if len(testenv.RequiredAdapters()) == 0 {
		t.Skipf("%s is not set: missing adapters make the suite skip, not fail", testenv.EnvRequireAdapters)
	}
}

func TestBackendSourcesPresent(t *testing.T) {
	for backend, bs := range backendSources {
		for _, file := range []string{"kernels", "invalid", "link_main", "link_lib"} {
			src, err := sourceFileFor(backend, file)
			if err != nil {
				t.Errorf("%s: %v", backend, err)
				continue
			}
			if len(bytes.TrimSpace([]byte(src))) == 0 {
				t.Errorf("%s: testdata/%s/%s%s is empty", backend, bs.dir, file, bs.ext)
			}
		}
		if il, ok, err := ilFileFor(backend); err != nil {
			t.Errorf("%s: %v", backend, err)
		} else if ok && len(bytes.TrimSpace(il)) == 0 {
			t.Errorf("%s: testdata/%s/%s is empty", backend, bs.dir, bs.il)
		}
	}
}
