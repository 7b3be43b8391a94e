package bundle

import (
	"errors"
	"strings"
	"testing"

	"github.com/gour-dev/gour/ur"
)

// Device descriptions the selection tests run on.
var (
	// PoCL on the CPU, as DescribeInfo reads it: no IL, fp64, 64-bit atomics.
	pocl = DescribeInfo(BackendOpenCL, ur.DeviceInfo{
		Name: "pthread-skylake-avx512-AMD EPYC", FP64: true,
		Extensions: "cl_khr_byte_addressable_store cl_khr_global_int32_base_atomics cl_khr_int64_base_atomics cl_khr_int64_extended_atomics cl_khr_fp64",
	})
	// An OpenCL GPU taking SPIR-V, without fp64.
	openclNoFP64 = DescribeInfo(BackendOpenCL, ur.DeviceInfo{Name: "Some GPU", ILVersions: "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2", Extensions: "cl_khr_subgroups"})
	h100         = DescribeInfo(BackendCUDA, ur.DeviceInfo{LanguageVersion: "sm_90", FP64: true, ILVersions: "PTX"})
	a100         = DescribeInfo(BackendCUDA, ur.DeviceInfo{LanguageVersion: "sm_80", FP64: true, ILVersions: "PTX"})
	rtx3090      = DescribeInfo(BackendCUDA, ur.DeviceInfo{LanguageVersion: "sm_86", FP64: true, ILVersions: "PTX"})
	v100         = DescribeInfo(BackendCUDA, ur.DeviceInfo{LanguageVersion: "sm_70", FP64: true, ILVersions: "PTX"})
	maxwell      = DescribeInfo(BackendCUDA, ur.DeviceInfo{LanguageVersion: "sm_50", FP64: true, ILVersions: "PTX"})
	// Level Zero devices: the one the native binary is for, lacking fp64,
	// and another, with fp64.
	arc = DescribeInfo(BackendLevelZero, ur.DeviceInfo{DeviceVersion: "Level Zero 1.3, device id 0x0BD5", ILVersions: "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2"})
	pvc = DescribeInfo(BackendLevelZero, ur.DeviceInfo{DeviceVersion: "Level Zero 1.3, device id 0x0bda", ILVersions: "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2 SPIR-V_1.3 SPIR-V_1.4", FP64: true})
)

func TestDescribeInfo(t *testing.T) {
	for _, tc := range []struct {
		got, want Device
	}{
		{pocl, Device{Backend: "opencl", Arch: "pthread-skylake-avx512-AMD EPYC", Aspects: AspectFP64 | AspectInt64Atomics}},
		{h100, Device{Backend: "cuda", Arch: "sm_90", IL: []string{"PTX"}, Aspects: AspectFP64 | AspectInt64Atomics | AspectSubGroups, SubGroupSizes: []uint32{32}}},
		{arc, Device{Backend: "level_zero", Arch: "0x0bd5", IL: []string{"SPIR-V_1.0", "SPIR-V_1.1", "SPIR-V_1.2"}, Aspects: AspectInt64Atomics | AspectSubGroups}},
	} {
		if tc.got.String() != tc.want.String() || tc.got.Aspects != tc.want.Aspects || strings.Join(tc.got.IL, ",") != strings.Join(tc.want.IL, ",") || len(tc.got.SubGroupSizes) != len(tc.want.SubGroupSizes) {
			t.Errorf("DescribeInfo = %+v, want %+v", tc.got, tc.want)
		}
	}
	if il := parseIL(openclNoFP64.IL); il.spirv != 0x00010200 || il.ptx {
		t.Errorf("parseIL(%q) = %+v, want SPIR-V 1.2", openclNoFP64.IL, il)
	}
}

func TestSelect(t *testing.T) {
	b := sampleBundle(t)
	// The sample's images, by index.
	const (
		cubin80 = iota
		cubin90
		ptx52
		spirv
		spirvF64
		openclDefault
		openclF64
		cudaC
		zeNative
	)
	for _, tc := range []struct {
		name    string
		dev     Device
		kernels []string
		spec    map[uint32][]byte
		want    int
		rank    Rank
	}{
		{"H100 gets its cubin", h100, []string{"axpy"}, nil, cubin90, RankExact},
		{"A100 gets its cubin", a100, []string{"axpy_f64"}, nil, cubin80, RankExact},
		{"sm_86 runs the sm_80 cubin", rtx3090, []string{"axpy"}, nil, cubin80, RankCompatible},
		{"V100 JIT-compiles the PTX", v100, []string{"iota"}, nil, ptx52, RankIL},
		{"V100 builds the CUDA C for a kernel the PTX lacks", v100, []string{"axpy"}, nil, cudaC, RankSource},
		{"Maxwell sm_50 is older than the PTX", maxwell, []string{"iota"}, nil, cudaC, RankSource},
		{"PoCL takes no IL: OpenCL C", pocl, []string{"axpy"}, nil, openclDefault, RankSource},
		{"PoCL, fp64 kernel", pocl, []string{"axpy_f64"}, nil, openclF64, RankSource},
		{"an OpenCL GPU without fp64 takes the SPIR-V without Float64", openclNoFP64, []string{"axpy"}, nil, spirv, RankIL},
		{"Level Zero device 0x0bd5 gets its binary", arc, []string{"axpy"}, nil, zeNative, RankExact},
		{"Level Zero binary lacks the kernel: SPIR-V", arc, []string{"fill_u32"}, nil, spirv, RankIL},
		{"another Level Zero device: SPIR-V", pvc, []string{"axpy"}, nil, spirv, RankIL},
		{"fp64 kernel on a Level Zero device with fp64", pvc, []string{"axpy_f64"}, nil, spirvF64, RankIL},
		{"no kernel asked for: the best image", h100, nil, nil, cubin90, RankExact},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := b.Select(tc.dev, Request{Kernels: tc.kernels, SpecValues: tc.spec})
			if err != nil {
				t.Fatalf("Select(%s, %q) = %v", tc.dev, tc.kernels, err)
			}
			if s.Index != tc.want || s.Rank != tc.rank {
				t.Errorf("Select(%s, %q) = %s, want image %d (%s)\n%s", tc.dev, tc.kernels, s, tc.want, tc.rank, explain(s))
			}
			if len(s.Rejected) != len(b.Images)-1 {
				t.Errorf("%d rejections for %d other images", len(s.Rejected), len(b.Images)-1)
			}
			for i, r := range s.Rejected {
				if r.Index == s.Index || (i > 0 && s.Rejected[i-1].Index >= r.Index) || r.String() == "" {
					t.Errorf("rejections not one per other image in order: %s", explain(s))
				}
			}
		})
	}
}

func explain(s *Selection) string {
	var lines []string
	for _, r := range s.Rejected {
		lines = append(lines, "  "+r.String())
	}
	return strings.Join(lines, "\n")
}

// TestSelectReasons checks the explanation of each kind of rejection.
func TestSelectReasons(t *testing.T) {
	b := sampleBundle(t)
	s, err := b.Select(rtx3090, Request{Kernels: []string{"axpy"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{
		1: "image 1 (native cuda:sm_90): a cubin for sm_90 does not run on sm_86 (another major architecture)",
		2: `image 2 (ptx cuda:compute_52): does not define kernel "axpy"`,
		3: "image 3 (spir-v any): the device takes no SPIR-V",
		5: "image 5 (opencl-c opencl): for opencl, the device is cuda",
		7: "image 7 (cuda-c cuda): usable (source compiled at run time), another image ranks higher",
		8: "image 8 (native level_zero:0x0bd5): for level_zero, the device is cuda",
	}
	for _, r := range s.Rejected {
		if w, ok := want[r.Index]; ok && r.String() != w {
			t.Errorf("rejection:\n got %s\nwant %s", r, w)
		}
	}

	s, err = b.Select(a100, Request{Kernels: []string{"axpy"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Rejected[0]; r.Index != 1 || r.String() != "image 1 (native cuda:sm_90): a cubin for sm_90 does not run on sm_80 (another major architecture)" {
		t.Errorf("sm_90 cubin on sm_80: %s", r)
	}

	s, err = b.Select(arc, Request{Kernels: []string{"axpy"}})
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Rejected[4]; r.Reason != ReasonAspects || r.Missing != AspectFP64 || !strings.Contains(r.String(), "needs fp64, which the device lacks") {
		t.Errorf("SPIR-V with Float64 on a device without fp64: %s", r)
	}
}

func TestSelectArchitectureRules(t *testing.T) {
	img := func(format Format, arch string) Image {
		return mustImage(t, Image{Target: Target{BackendCUDA, arch}, Format: format, Kernels: []string{"k"}, Code: []byte(arch)})
	}
	for _, tc := range []struct {
		images []Image
		dev    string
		want   int // -1: none
	}{
		{[]Image{img(FormatNative, "sm_80"), img(FormatNative, "sm_86")}, "sm_89", 1}, // the closest older minor
		{[]Image{img(FormatNative, "sm_86"), img(FormatNative, "sm_80")}, "sm_89", 0},
		{[]Image{img(FormatNative, "sm_86")}, "sm_80", -1},                                // newer minor
		{[]Image{img(FormatNative, "sm_90a")}, "sm_90", 0},                                // architecture-specific, exact
		{[]Image{img(FormatNative, "sm_90a")}, "sm_100", -1},                              // architecture-specific, elsewhere
		{[]Image{img(FormatPTX, "compute_80"), img(FormatPTX, "compute_90")}, "sm_90", 1}, // the newest PTX the device takes
		{[]Image{img(FormatPTX, "compute_90")}, "sm_89", -1},
		{[]Image{img(FormatPTX, "compute_90a")}, "sm_100", -1},
		{[]Image{img(FormatPTX, "compute_70"), img(FormatNative, "sm_70")}, "sm_75", 1}, // a compatible binary before PTX
	} {
		dev := DescribeInfo(BackendCUDA, ur.DeviceInfo{LanguageVersion: tc.dev, ILVersions: "PTX"})
		s, err := Select(tc.images, dev, Request{})
		got := -1
		if err == nil {
			got = s.Index
		} else if !errors.Is(err, ur.ErrInvalidBinary) {
			t.Errorf("no image for %s: %v, want ur.ErrInvalidBinary", tc.dev, err)
		}
		if got != tc.want {
			var targets []string
			for _, im := range tc.images {
				targets = append(targets, im.Target.String())
			}
			t.Errorf("Select(%s) on %s = %d (%v), want %d", targets, tc.dev, got, err, tc.want)
		}
	}
}

func TestSelectSPIRVVersion(t *testing.T) {
	code := readFile(t, spirvKernels)
	newer := append([]byte(nil), code...)
	newer[5] = 4 // version 1.4: the header's version word, 0x00010400, is little-endian here
	images := []Image{
		mustImage(t, Image{Format: FormatSPIRV, Kernels: []string{"axpy"}, Code: newer}),
		mustImage(t, Image{Format: FormatSPIRV, Kernels: []string{"axpy"}, Code: code}),
	}
	s, err := Select(images, openclNoFP64, Request{})
	if err != nil || s.Index != 1 {
		t.Fatalf("Select = %v, %v; want the SPIR-V 1.0 image", s, err)
	}
	if got, want := s.Rejected[0].String(), "image 0 (spir-v any): SPIR-V 1.4, the device takes up to 1.2"; got != want {
		t.Errorf("rejection %q, want %q", got, want)
	}
}

func TestSelectSpecConstants(t *testing.T) {
	spec := Properties{SpecConstants: []SpecConstant{{ID: 7, Name: "BLOCK", Kind: SpecUint, Default: []byte{64, 0, 0, 0}}}}
	images := []Image{
		mustImage(t, Image{Target: Target{BackendCUDA, "sm_90"}, Format: FormatNative, Kernels: []string{"k"}, Properties: spec, Code: []byte("cubin")}),
		mustImage(t, Image{Target: Target{BackendCUDA, "compute_90"}, Format: FormatPTX, Kernels: []string{"k"}, Properties: spec, Code: []byte("ptx")}),
		mustImage(t, Image{Target: Target{Backend: BackendCUDA}, Format: FormatCUDAC, Kernels: []string{"k"}, Properties: spec, Code: []byte("src")}),
	}
	for _, tc := range []struct {
		values map[uint32][]byte
		want   int
	}{
		{nil, 0},
		{map[uint32][]byte{7: {64, 0, 0, 0}}, 0}, // the default, given explicitly
		{map[uint32][]byte{9: {1}}, 0},           // a constant the image does not have
		{map[uint32][]byte{7: {128, 0, 0, 0}}, 2},
	} {
		s, err := Select(images, h100, Request{SpecValues: tc.values})
		if err != nil || s.Index != tc.want {
			t.Errorf("Select with %v = %v, %v; want image %d", tc.values, s, err, tc.want)
			continue
		}
		if tc.want == 2 && !strings.Contains(s.Rejected[0].String(), "built ahead of time for the default of specialization constant 7") {
			t.Errorf("rejection: %s", s.Rejected[0])
		}
	}
}

func TestSelectErrors(t *testing.T) {
	b := sampleBundle(t)
	noFP64 := pocl
	noFP64.Aspects &^= AspectFP64
	for _, tc := range []struct {
		dev     Device
		kernel  string
		code    ur.Result
		message string
	}{
		{noFP64, "axpy_f64", ur.ErrUnsupportedFeature, `kernel "axpy_f64" needs fp64, which device opencl:pthread-skylake-avx512-AMD EPYC lacks`},
		{arc, "axpy_f64", ur.ErrUnsupportedFeature, `kernel "axpy_f64" needs fp64`},
		{h100, "nope", ur.ErrInvalidKernelName, `no image defines kernel "nope"; the bundle defines add_one, axpy, axpy_f64,`},
		{Device{Backend: "hip", Arch: "gfx90a"}, "axpy", ur.ErrInvalidBinary, `no image of kernel "axpy" runs on device hip:gfx90a: image 0 (native cuda:sm_80): for cuda, the device is hip`},
	} {
		_, err := b.Select(tc.dev, Request{Kernels: []string{tc.kernel}})
		var ue *ur.Error
		if !errors.As(err, &ue) || ue.Result != tc.code || !strings.Contains(err.Error(), tc.message) {
			t.Errorf("Select(%s, %q) = %v, want %v saying %q", tc.dev, tc.kernel, err, tc.code, tc.message)
		}
	}
}

// BenchmarkSelect selects among ten images: the sample bundle and one
// more cubin, for the device that looks at them all.
func BenchmarkSelect(b *testing.B) {
	bun := sampleBundle(b)
	bun.Images = append(bun.Images, mustImage(b, Image{Target: Target{BackendCUDA, "sm_86"}, Format: FormatNative, Kernels: []string{"axpy"}, Code: fakeCubin("sm_86")}))
	if len(bun.Images) != 10 {
		b.Fatalf("%d images, want 10", len(bun.Images))
	}
	req := Request{Kernels: []string{"axpy"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bun.Select(rtx3090, req); err != nil {
			b.Fatal(err)
		}
	}
}
