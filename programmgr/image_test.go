package programmgr

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
)

func goldenDesc() ImageDesc {
	return ImageDesc{
		Format:      FormatOpenCLC,
		Bytes:       []byte("__kernel void k(__global int* p) { p[0] = N; }"),
		KernelNames: []string{"k"},
		SpecConstants: []SpecConstant{
			{ID: 7, Name: "N", Kind: SpecInt, Default: SpecInt32(42)},
		},
		CompileOptions: "-cl-std=CL1.2",
		LinkOptions:    "",
		Requirements:   Requirements{FP64: true},
	}
}

// TestImageIDGolden pins the ID of one image. The ID keys the persistent
// cache, so it must never change for a given image: if this test fails,
// the canonical encoding changed and imageEncodingVersion must be bumped
// (and the golden value updated with it).
func TestImageIDGolden(t *testing.T) {
	img, err := NewImage(goldenDesc())
	if err != nil {
		t.Fatal(err)
	}
	const golden = "a35a7b7d9df3bf1fccdb0977660b1aca7ffab345e274620f8342393d57a54d85"
	if got := img.ID().String(); got != golden {
		t.Errorf("image ID = %s, want %s (encoding version %d)", got, golden, imageEncodingVersion)
	}
	if got, want := img.ID().Short(), golden[:12]; got != want {
		t.Errorf("Short() = %s, want %s", got, want)
	}
}

func TestImageIDCoversEveryField(t *testing.T) {
	base, err := NewImage(goldenDesc())
	if err != nil {
		t.Fatal(err)
	}
	changes := map[string]func(*ImageDesc){
		"format":          func(d *ImageDesc) { d.Format = FormatCUDAC },
		"bytes":           func(d *ImageDesc) { d.Bytes = append(d.Bytes, ' ') },
		"kernel names":    func(d *ImageDesc) { d.KernelNames = append(d.KernelNames, "k2") },
		"spec ID":         func(d *ImageDesc) { d.SpecConstants[0].ID = 8 },
		"spec name":       func(d *ImageDesc) { d.SpecConstants[0].Name = "M" },
		"spec kind":       func(d *ImageDesc) { d.SpecConstants[0].Kind = SpecUint },
		"spec default":    func(d *ImageDesc) { d.SpecConstants[0].Default = SpecInt32(43) },
		"no spec":         func(d *ImageDesc) { d.SpecConstants = nil },
		"compile options": func(d *ImageDesc) { d.CompileOptions = "" },
		"link options":    func(d *ImageDesc) { d.LinkOptions = "-x" },
		"fp64":            func(d *ImageDesc) { d.Requirements.FP64 = false },
		"fp16":            func(d *ImageDesc) { d.Requirements.FP16 = true },
		// Options moved from compile to link must not collide.
		"options moved": func(d *ImageDesc) { d.CompileOptions, d.LinkOptions = "", d.CompileOptions },
	}
	seen := map[ImageID]string{base.ID(): "base"}
	for name, change := range changes {
		d := goldenDesc()
		change(&d)
		img, err := NewImage(d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if other, dup := seen[img.ID()]; dup {
			t.Errorf("changing the %s gives the ID of %s", name, other)
		}
		seen[img.ID()] = name
	}
}

func TestImageIDCanonical(t *testing.T) {
	a := goldenDesc()
	a.KernelNames = []string{"b", "a", "b"}
	a.SpecConstants = []SpecConstant{
		{ID: 2, Name: "Y", Default: []byte{1}},
		{ID: 1, Name: "X", Default: []byte{2}},
	}
	b := goldenDesc()
	b.KernelNames = []string{"a", "b"}
	b.SpecConstants = []SpecConstant{
		{ID: 1, Name: "X", Default: []byte{2}},
		{ID: 2, Name: "Y", Default: []byte{1}},
	}
	ia, err := NewImage(a)
	if err != nil {
		t.Fatal(err)
	}
	ib, err := NewImage(b)
	if err != nil {
		t.Fatal(err)
	}
	if ia.ID() != ib.ID() {
		t.Error("kernel name order and spec constant order change the ID")
	}
	if got := ia.KernelNames(); strings.Join(got, ",") != "a,b" {
		t.Errorf("KernelNames = %q, want sorted and unique", got)
	}
}

func TestImageIsImmutable(t *testing.T) {
	d := goldenDesc()
	img, err := NewImage(d)
	if err != nil {
		t.Fatal(err)
	}
	id := img.ID()
	d.Bytes[0] = 'X'
	d.SpecConstants[0].Default[0] = 99
	d.KernelNames[0] = "zzz"
	img.Bytes()[0] = 'Y'
	img.SpecConstants()[0].Default[0] = 98
	img.KernelNames()[0] = "yyy"
	again, err := NewImage(img.Desc())
	if err != nil {
		t.Fatal(err)
	}
	if again.ID() != id || img.ID() != id {
		t.Error("changing the description or the accessors' results changed the image")
	}
}

func TestNewImageErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(*ImageDesc)
		want   string
	}{
		{"no format", func(d *ImageDesc) { d.Format = 0 }, "unknown image format"},
		{"bad format", func(d *ImageDesc) { d.Format = 99 }, "unknown image format"},
		{"no bytes", func(d *ImageDesc) { d.Bytes = nil }, "has no bytes"},
		{"empty kernel name", func(d *ImageDesc) { d.KernelNames = []string{""} }, "kernel name"},
		{"duplicate spec ID", func(d *ImageDesc) {
			d.SpecConstants = append(d.SpecConstants, SpecConstant{ID: 7, Name: "O", Default: []byte{1}})
		}, "declared twice"},
		{"duplicate spec name", func(d *ImageDesc) {
			d.SpecConstants = append(d.SpecConstants, SpecConstant{ID: 8, Name: "N", Default: []byte{1}})
		}, "declared twice"},
		{"no default", func(d *ImageDesc) { d.SpecConstants[0].Default = nil }, "0-byte default"},
		{"3-byte int", func(d *ImageDesc) { d.SpecConstants[0].Default = []byte{1, 2, 3} }, "3-byte default"},
		{"2-byte float", func(d *ImageDesc) {
			d.SpecConstants[0].Kind, d.SpecConstants[0].Default = SpecFloat, []byte{0, 0}
		}, "2-byte default"},
		{"4-byte bool", func(d *ImageDesc) { d.SpecConstants[0].Kind = SpecBool }, "4-byte default"},
		{"bad kind", func(d *ImageDesc) { d.SpecConstants[0].Kind = 9 }, "cannot have"},
		{"source without name", func(d *ImageDesc) { d.SpecConstants[0].Name = "" }, "C identifier"},
		{"source with bad name", func(d *ImageDesc) { d.SpecConstants[0].Name = "N=3 -DX" }, "C identifier"},
		{"IL with bad name", func(d *ImageDesc) {
			d.Format, d.SpecConstants[0].Name = FormatSPIRV, "9lives"
		}, "not an identifier"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := goldenDesc()
			tt.change(&d)
			_, err := NewImage(d)
			checkCode(t, err, ur.ErrInvalidValue)
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not say %q", err, tt.want)
			}
		})
	}
	d := goldenDesc()
	d.Format, d.SpecConstants[0].Name = FormatSPIRV, ""
	if _, err := NewImage(d); err != nil {
		t.Errorf("an IL image's spec constants need no names: %v", err)
	}
}

func TestFormatString(t *testing.T) {
	for f, want := range map[Format]string{FormatOpenCLC: "opencl-c", FormatCUDAC: "cuda-c", FormatSPIRV: "spir-v",
		FormatPTX: "ptx", FormatNative: "native", 0: "Format(0)", 77: "Format(77)"} {
		if got := f.String(); got != want {
			t.Errorf("Format(%d).String() = %q, want %q", uint8(f), got, want)
		}
	}
}

func TestSpecValues(t *testing.T) {
	a := Spec(map[uint32][]byte{3: {1}, 1: {2, 0, 0, 0}})
	b := SpecValues{}.With(1, []byte{2, 0, 0, 0}).With(3, []byte{1})
	if a != b {
		t.Errorf("Spec and With disagree: %v vs %v", a, b)
	}
	if a.Len() != 2 || a.IsZero() {
		t.Errorf("Len = %d, IsZero = %v", a.Len(), a.IsZero())
	}
	if v, ok := a.Get(3); !ok || len(v) != 1 || v[0] != 1 {
		t.Errorf("Get(3) = %v, %v", v, ok)
	}
	if _, ok := a.Get(2); ok {
		t.Error("Get(2) found a value")
	}
	if got := a.String(); got != "1=02000000,3=01" {
		t.Errorf("String = %q", got)
	}
	if m := a.Map(); len(m) != 2 {
		t.Errorf("Map = %v", m)
	}
	if Spec(nil) != (SpecValues{}) || !Spec(map[uint32][]byte{}).IsZero() {
		t.Error("no values is not the zero value")
	}
	if a == Spec(map[uint32][]byte{1: {2, 0, 0, 0}}) {
		t.Error("different values compare equal")
	}
	// Comparable: usable as a map key.
	set := map[SpecValues]int{a: 1}
	if set[b] != 1 {
		t.Error("equal SpecValues are different map keys")
	}
}

func TestSpecNormalize(t *testing.T) {
	img := image(t, 5, "k")
	const op = "test"
	norm, err := Spec(map[uint32][]byte{1: SpecInt32(5)}).normalize(op, img)
	if err != nil || !norm.IsZero() {
		t.Errorf("a value equal to the default normalises to %v, %v; want the zero value", norm, err)
	}
	norm, err = Spec(map[uint32][]byte{1: SpecInt32(6)}).normalize(op, img)
	if err != nil || norm.Len() != 1 {
		t.Errorf("a value that differs normalises to %v, %v", norm, err)
	}
	_, err = Spec(map[uint32][]byte{2: SpecInt32(6)}).normalize(op, img)
	checkCode(t, err, ur.ErrInvalidSpecID)
	_, err = Spec(map[uint32][]byte{1: SpecInt64(6)}).normalize(op, img)
	checkCode(t, err, ur.ErrInvalidValue)
}

func TestSpecLiteral(t *testing.T) {
	tests := []struct {
		kind SpecKind
		v    []byte
		want string
	}{
		{SpecInt, SpecInt32(42), "42"},
		{SpecInt, SpecInt32(-3), "(-3)"},
		{SpecInt, []byte{0xff}, "(-1)"},
		{SpecInt, []byte{0xff, 0x7f}, "32767"},
		{SpecInt, SpecInt64(5000000000), "5000000000L"},
		{SpecInt, SpecInt64(math.MinInt64), "(-9223372036854775807L-1)"},
		{SpecUint, []byte{0xff}, "255u"},
		{SpecUint, SpecUint32(math.MaxUint32), "4294967295u"},
		{SpecUint, SpecUint64(7), "7UL"},
		{SpecFloat, SpecFloat32(1.5), "1.5f"},
		{SpecFloat, SpecFloat32(2), "2.0f"},
		{SpecFloat, SpecFloat32(-0.25), "(-0.25f)"},
		{SpecFloat, SpecFloat32(1e30), "1e+30f"},
		{SpecFloat, SpecFloat64(0.1), "0.1"},
		{SpecFloat, SpecFloat64(3), "3.0"},
		{SpecFloat, SpecFloat32(float32(math.Inf(1))), "(1.0f/0.0f)"},
		{SpecFloat, SpecFloat64(math.Inf(-1)), "(-1.0/0.0)"},
		{SpecFloat, SpecFloat64(math.NaN()), "(0.0/0.0)"},
		{SpecBool, SpecBoolValue(true), "1"},
		{SpecBool, SpecBoolValue(false), "0"},
		{SpecBool, []byte{7}, "1"},
	}
	for _, tt := range tests {
		if got := SpecLiteral(tt.kind, tt.v); got != tt.want {
			t.Errorf("SpecLiteral(%v, %x) = %q, want %q", tt.kind, tt.v, got, tt.want)
		}
	}
}

func TestOptionsFor(t *testing.T) {
	img, err := NewImage(ImageDesc{
		Format: FormatOpenCLC, Bytes: []byte("x"),
		SpecConstants: []SpecConstant{
			{ID: 2, Name: "B", Kind: SpecFloat, Default: SpecFloat32(0.5)},
			{ID: 1, Name: "A", Default: SpecInt32(1)},
		},
		CompileOptions: "-img-c", LinkOptions: "-img-l",
	})
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec(map[uint32][]byte{1: SpecInt32(-2)})
	tests := []struct {
		env           map[string]string
		compile, link string
	}{
		{nil, "-img-c -DA=(-2) -DB=0.5f -api", "-img-l"},
		{map[string]string{EnvCompileOptions: "-env-c", EnvLinkOptions: "-env-l"}, "-env-c -DA=(-2) -DB=0.5f -api", "-env-l"},
		{map[string]string{EnvAppendCompileOptions: "-app-c", EnvAppendLinkOptions: "-app-l"}, "-img-c -app-c -DA=(-2) -DB=0.5f -api", "-img-l -app-l"},
		{map[string]string{EnvCompileOptions: "-env-c", EnvAppendCompileOptions: "-app-c"}, "-env-c -app-c -DA=(-2) -DB=0.5f -api", "-img-l"},
	}
	for _, tt := range tests {
		cfg, err := Options{}.resolve(func(k string) string { return tt.env[k] })
		if err != nil {
			t.Fatal(err)
		}
		got := cfg.optionsFor(img, spec, "-api")
		if got.compile != tt.compile || got.link != tt.link {
			t.Errorf("env %v: options = %q / %q, want %q / %q", tt.env, got.compile, got.link, tt.compile, tt.link)
		}
	}
	// An IL image gets no -D definitions.
	il, err := NewImage(ImageDesc{Format: FormatSPIRV, Bytes: []byte{1},
		SpecConstants: []SpecConstant{{ID: 1, Default: []byte{1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := (&config{}).optionsFor(il, spec, ""); got.compile != "" {
		t.Errorf("IL image options = %q, want none", got.compile)
	}
}

func TestEnvParsing(t *testing.T) {
	tests := []struct {
		env     map[string]string
		opts    Options
		bad     string // the variable the error must name, or "" for success
		want    config
		wantSet bool
	}{
		{env: nil, opts: DefaultOptions(), want: config{threshold: 0, inMem: true, trace: 0}, wantSet: true},
		{env: map[string]string{EnvEvictionThreshold: "20005", EnvCacheInMem: "0", EnvCacheTrace: "2"},
			opts: DefaultOptions(), want: config{threshold: 20005, inMem: false, trace: 2}, wantSet: true},
		{env: map[string]string{EnvEvictionThreshold: " 7 ", EnvCacheInMem: "true", EnvCacheTrace: "7"},
			opts: DefaultOptions(), want: config{threshold: 7, inMem: true, trace: 7}, wantSet: true},
		// Options win over the environment.
		{env: map[string]string{EnvEvictionThreshold: "20005", EnvCacheInMem: "0", EnvCacheTrace: "2"},
			opts: Options{EvictionThreshold: ptr(int64(100)), InMemCache: ptr(true), Trace: ptr(0)}, want: config{threshold: 100, inMem: true}, wantSet: true},
		// A zero EvictionThreshold is "off" and does not read the variable.
		{env: map[string]string{EnvEvictionThreshold: "20005"}, opts: Options{EvictionThreshold: ptr(int64(0))}, want: config{inMem: true}, wantSet: true},
		// Malformed values never reach the manager.
		{env: map[string]string{EnvEvictionThreshold: "-1"}, opts: DefaultOptions(), bad: EnvEvictionThreshold},
		{env: map[string]string{EnvEvictionThreshold: "a"}, opts: DefaultOptions(), bad: EnvEvictionThreshold},
		{env: map[string]string{EnvEvictionThreshold: "10k"}, opts: DefaultOptions(), bad: EnvEvictionThreshold},
		{env: map[string]string{EnvEvictionThreshold: "1e6"}, opts: DefaultOptions(), bad: EnvEvictionThreshold},
		{env: map[string]string{EnvCacheInMem: "maybe"}, opts: DefaultOptions(), bad: EnvCacheInMem},
		{env: map[string]string{EnvCacheInMem: "2"}, opts: DefaultOptions(), bad: EnvCacheInMem},
		{env: map[string]string{EnvCacheTrace: "random"}, opts: DefaultOptions(), bad: EnvCacheTrace},
		{env: map[string]string{EnvCacheTrace: "16"}, opts: DefaultOptions(), bad: EnvCacheTrace},
		{env: map[string]string{EnvCacheTrace: "-2"}, opts: DefaultOptions(), bad: EnvCacheTrace},
		{opts: Options{Trace: ptr(17)}, bad: "Options.Trace"},
	}
	for _, tt := range tests {
		got, err := tt.opts.resolve(func(k string) string { return tt.env[k] })
		if tt.bad != "" {
			if err == nil {
				t.Errorf("env %v, %+v: no error, want one naming %s", tt.env, tt.opts, tt.bad)
				continue
			}
			if ur.ResultOf(err) != ur.ErrInvalidValue || !strings.Contains(err.Error(), tt.bad) {
				t.Errorf("env %v: error %q does not carry INVALID_VALUE and name %s", tt.env, err, tt.bad)
			}
			continue
		}
		if err != nil {
			t.Errorf("env %v: %v", tt.env, err)
			continue
		}
		if got.threshold != tt.want.threshold || got.inMem != tt.want.inMem || got.trace != tt.want.trace {
			t.Errorf("env %v, %+v: got threshold %d inMem %v trace %d, want %d %v %d", tt.env, tt.opts,
				got.threshold, got.inMem, got.trace, tt.want.threshold, tt.want.inMem, tt.want.trace)
		}
	}
}

// TestNewReadsEnvironment checks, through the real environment, that New
// reads the variables and refuses a malformed one by name.
func TestNewReadsEnvironment(t *testing.T) {
	devs := fiDevices(t)
	ctx, err := ur.NewContext(devs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Release()
	t.Setenv("SYCL_CACHE_DIR", t.TempDir())
	t.Setenv(EnvCacheInMem, "0")
	t.Setenv(EnvEvictionThreshold, "123")
	t.Setenv(EnvCacheTrace, "2")
	m, err := New(ctx, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if m.cfg.inMem || m.cfg.threshold != 123 || !m.traceOn {
		t.Errorf("New did not read the environment: %+v", m.cfg)
	}
	m.Close()
	t.Setenv(EnvEvictionThreshold, "lots")
	_, err = New(ctx, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), EnvEvictionThreshold) {
		t.Errorf("New with %s=lots: %v, want an error naming the variable", EnvEvictionThreshold, err)
	}
	if _, err := New(nil, Options{}); !errors.Is(err, ur.ErrInvalidNullHandle) {
		t.Errorf("New(nil) = %v, want INVALID_NULL_HANDLE", err)
	}
}
