package cuda

import (
	ctxpkg "context"
	"errors"
	"math"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/gour-dev/gour/adapters/cuda/internal/cu"
	"github.com/gour-dev/gour/ur/driver"
)

// These tests drive the launch and queue model's driver interfaces
// (ur/driver/launch.go) directly, on the first CUDA device; they skip
// without one. The kernels are CUDA C, built with NVRTC.

const launchTestSource = `
extern "C" __global__ void axpb(float *y, float a, float b, unsigned n) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * (float)i + b;
}

extern "C" __global__ void addc(float *y, float c) {
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	y[i] += c;
}

// sharedsum sums m floats per block through dynamic shared memory
// declared the usual CUDA way, with no parameter for it: each thread sums
// a strided part of the block's slice, then a tree reduction.
extern "C" __global__ void sharedsum(const float *x, float *out, unsigned m) {
	extern __shared__ float s[];
	const float *xb = x + (unsigned long long)blockIdx.x * m;
	unsigned t = threadIdx.x;
	for (unsigned i = t; i < m; i += blockDim.x) s[i] = xb[i];
	__syncthreads();
	float acc = 0;
	for (unsigned i = t; i < m; i += blockDim.x) acc += s[i];
	__syncthreads();
	s[t] = acc;
	__syncthreads();
	for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
		if (t < k) s[t] += s[t + k];
		__syncthreads();
	}
	if (t == 0) out[blockIdx.x] = s[0];
}

// gridwait is a grid-wide barrier by hand: it finishes only if every
// block is resident at once, which a cooperative launch promises.
extern "C" __global__ void gridwait(unsigned *counter, unsigned *out) {
	if (threadIdx.x == 0) {
		atomicAdd(counter, 1);
		while (atomicAdd(counter, 0) < gridDim.x) {}
		out[blockIdx.x] = atomicAdd(counter, 0);
	}
}

extern "C" __global__ void spin(long long cycles) {
	long long t0 = clock64();
	while (clock64() - t0 < cycles) {}
}

__device__ int counter;
__device__ float table[64];

extern "C" __global__ void bump(float scale) {
	counter += 1;
	table[threadIdx.x] *= scale;
}
`

// clusterTestSource reads the cluster size from PTX (sm_90).
const clusterTestSource = `
extern "C" __global__ void clustersize(unsigned *out) {
	unsigned n;
	asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
	if (threadIdx.x == 0) out[blockIdx.x] = n;
}
`

type launchFixture struct {
	*memFixture
	p *program
}

func newLaunchFixture(t *testing.T) *launchFixture {
	t.Helper()
	f := newMemFixture(t)
	return &launchFixture{memFixture: f, p: buildSource(t, f.c, launchTestSource)}
}

func buildSource(t *testing.T, c *context, src string) *program {
	t.Helper()
	dp, err := c.NewProgramFromSource(src)
	if err != nil {
		t.Skipf("CUDA C needs NVRTC: %v", err)
	}
	t.Cleanup(func() { dp.Release() })
	if err := dp.Build(nil, ""); err != nil {
		log, _ := dp.BuildLog(nil)
		t.Fatalf("Build: %v\n%s", err, log)
	}
	return dp.(*program)
}

func (f *launchFixture) kernel(t *testing.T, name string) *kernel {
	t.Helper()
	dk, err := f.p.NewKernel(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dk.Release() })
	return dk.(*kernel)
}

func ptrArg(p uintptr) driver.LaunchArg { return driver.LaunchArg{Kind: driver.ArgMem, Ptr: p} }

func f32Arg(v float32) driver.LaunchArg {
	return driver.LaunchArg{Kind: driver.ArgValue, Size: 4, Bits: uint64(math.Float32bits(v))}
}

func u32Arg(v uint32) driver.LaunchArg {
	return driver.LaunchArg{Kind: driver.ArgValue, Size: 4, Bits: uint64(v)}
}

func u64Arg(v uint64) driver.LaunchArg {
	return driver.LaunchArg{Kind: driver.ArgValue, Size: 8, Bits: v}
}

func range1(global, local uint64) driver.NDRange {
	return driver.NDRange{Dims: 1, Global: [3]uint64{global, 1, 1}, Local: [3]uint64{local, 1, 1}}
}

func floats(t *testing.T, q *queue, p uintptr, n int) []float32 {
	t.Helper()
	b := read(t, q, p, n*4)
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
}

func u32s(t *testing.T, q *queue, p uintptr, n int) []uint32 {
	t.Helper()
	b := read(t, q, p, n*4)
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[0])), n)
}

func writeFloats(t *testing.T, q *queue, p uintptr, v []float32) {
	t.Helper()
	write(t, q, p, unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*4))
}

// checkAxpb checks y[i] = a*i + b.
func checkAxpb(t *testing.T, what string, y []float32, a, b float32) {
	t.Helper()
	for i, v := range y {
		if want := a*float32(i) + b; v != want {
			t.Fatalf("%s: y[%d] = %v, want %v", what, i, v, want)
		}
	}
}

// 64 goroutines launch one kernel at once, each with its own buffer and
// arguments that change every launch, on one queue; every buffer ends
// with its goroutine's last launch. Run it under -race too.
func TestLaunchArgsConcurrent(t *testing.T) {
	f := newLaunchFixture(t)
	k := f.kernel(t, "axpb")
	const goroutines, launches, n = 64, 50, 1024
	bufs := make([]uintptr, goroutines)
	for g := range bufs {
		bufs[g] = f.alloc(t, f.c, driver.USMDevice, n*4)
	}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range launches {
				args := []driver.LaunchArg{ptrArg(bufs[g]), f32Arg(float32(g)), f32Arg(float32(i)), u32Arg(n)}
				if _, err := f.q.LaunchWithArgs(k, range1(n, 128), args, driver.LaunchProperties{}, nil, false); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := f.q.Finish(); err != nil {
		t.Fatal(err)
	}
	for g, p := range bufs {
		checkAxpb(t, "goroutine "+strconv.Itoa(g), floats(t, f.q, p, n), float32(g), launches-1)
	}
	if k.nset != 0 {
		t.Errorf("the kernel's own arguments changed: %d set", k.nset)
	}
}

// A launch with arguments, no wait list and no event allocates nothing.
func TestLaunchArgsAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	f := newLaunchFixture(t)
	k := f.kernel(t, "axpb")
	const n = 1024
	y := f.alloc(t, f.c, driver.USMDevice, n*4)
	args := []driver.LaunchArg{ptrArg(y), f32Arg(2), f32Arg(3), u32Arg(n)}
	r := range1(n, 256)
	launch := func() {
		args[2].Bits++
		if _, err := f.q.LaunchWithArgs(k, r, args, driver.LaunchProperties{}, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	launch()
	if allocs := testing.AllocsPerRun(1000, launch); allocs != 0 {
		t.Errorf("LaunchWithArgs allocates %v times per launch, want 0", allocs)
	}
	if err := f.q.Finish(); err != nil {
		t.Fatal(err)
	}
}

// A block reduction through extern __shared__ memory, given as the
// launch's DynamicLocalMem with no parameter for it: 1 KiB, within the
// default limit, and 100 KiB, which needs the function's limit raised.
func TestLaunchArgsDynamicSharedMemory(t *testing.T) {
	f := newLaunchFixture(t)
	k := f.kernel(t, "sharedsum")
	for _, dyn := range []uint64{1 << 10, 100 << 10} {
		m := uint32(dyn / 4)
		const blocks, threads = 8, 256
		x := make([]float32, blocks*int(m))
		want := make([]float32, blocks)
		for i := range x {
			x[i] = float32(i % 7)
			want[i/int(m)] += x[i]
		}
		xp := f.alloc(t, f.c, driver.USMDevice, uint64(len(x)*4))
		out := f.alloc(t, f.c, driver.USMDevice, blocks*4)
		writeFloats(t, f.q, xp, x)
		for range 3 { // launches after the first find the limit raised
			args := []driver.LaunchArg{ptrArg(xp), ptrArg(out), u32Arg(m)}
			if _, err := f.q.LaunchWithArgs(k, range1(blocks*threads, threads), args, driver.LaunchProperties{DynamicLocalMem: dyn}, nil, false); err != nil {
				t.Fatalf("%d bytes of dynamic shared memory: %v", dyn, err)
			}
		}
		got := floats(t, f.q, out, blocks)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%d bytes: block %d sums to %v, want %v", dyn, i, got[i], want[i])
			}
		}
	}
	if lim := k.shared.limit.Load(); lim < 100<<10 {
		t.Errorf("the function's dynamic shared memory limit is %d after a 100 KiB launch", lim)
	}
}

// Local memory arguments and DynamicLocalMem together: the locals come
// after the dynamic bytes, and the launch has the sum.
func TestLaunchArgsLocalLayout(t *testing.T) {
	k := &kernel{name: "k", params: []cu.ParamInfo{{Size: 8}, {Size: 4}, {Size: 8}, {Size: 4}}}
	var tab argTable
	args := []driver.LaunchArg{
		{Kind: driver.ArgMem, Ptr: 0x1000},
		{Kind: driver.ArgLocal, Size: 100},
		{Kind: driver.ArgLocal, Size: 64},
		{Kind: driver.ArgValue, Size: 4, Bits: 7},
	}
	shared, err := tab.fill(k, args, 40)
	if err != nil {
		t.Fatal(err)
	}
	if got := *(*uint64)(tab.ptrs[0]); got != 0x1000 {
		t.Errorf("pointer argument = %#x", got)
	}
	if got := *(*uint32)(tab.ptrs[1]); got != 48 {
		t.Errorf("first local at %d, want 48 (after 40 dynamic bytes, 16-aligned)", got)
	}
	if got := *(*uint64)(tab.ptrs[2]); got != 160 {
		t.Errorf("second local at %d, want 160", got)
	}
	if got := *(*uint32)(tab.ptrs[3]); got != 7 {
		t.Errorf("value = %d", got)
	}
	if shared != 224 {
		t.Errorf("dynamic shared memory %d, want 224", shared)
	}
	if _, err := tab.fill(k, args[:3], 0); !errors.Is(err, driver.ResultInvalidKernelArgs) {
		t.Errorf("three arguments for four: %v", err)
	}
	bad := []driver.LaunchArg{args[0], {Kind: driver.ArgValue, Size: 8, Bits: 1}, args[2], args[3]}
	if _, err := tab.fill(k, bad, 0); !errors.Is(err, driver.ResultInvalidKernelArgumentSize) {
		t.Errorf("an 8-byte value for a 4-byte parameter: %v", err)
	}
	big := make([]byte, 24)
	big[23] = 9
	k2 := &kernel{name: "k2"}
	if _, err := tab.fill(k2, []driver.LaunchArg{{Kind: driver.ArgValue, Size: 24, Bytes: big}, {Kind: driver.ArgLocal, Size: 8}}, 0); err != nil {
		t.Fatal(err)
	}
	if got := (*[24]byte)(tab.ptrs[0])[23]; got != 9 || len(tab.arena) != 4 {
		t.Errorf("24-byte value: last byte %d, %d words", got, len(tab.arena))
	}
}

func TestStreamPriority(t *testing.T) {
	for _, c := range []struct {
		p               int
		least, greatest int32
		want            int32
	}{
		{0, 0, -5, 0}, {1, 0, -5, -1}, {5, 0, -5, -5}, {100, 0, -5, -5}, {-3, 0, -5, 0}, {2, 3, -2, -2}, {-9, 3, -2, 3},
	} {
		if got := streamPriority(c.p, c.least, c.greatest); got != c.want {
			t.Errorf("streamPriority(%d, [%d, %d]) = %d, want %d", c.p, c.least, c.greatest, got, c.want)
		}
	}
}

func TestShapeBlock(t *testing.T) {
	lim := [3]uint32{1024, 1024, 64}
	for _, c := range []struct {
		total uint64
		r     driver.NDRange
		want  [3]uint64
	}{
		{768, driver.NDRange{Dims: 1, Global: [3]uint64{1 << 20}}, [3]uint64{512, 1, 1}},
		{768, driver.NDRange{Dims: 1, Global: [3]uint64{768 * 5}}, [3]uint64{768, 1, 1}},
		{1024, driver.NDRange{Dims: 1, Global: [3]uint64{1000003}}, [3]uint64{1, 1, 1}}, // prime
		{1024, driver.NDRange{Dims: 2, Global: [3]uint64{100, 64}}, [3]uint64{100, 8, 1}},
		{256, driver.NDRange{Dims: 3, Global: [3]uint64{8, 8, 8}}, [3]uint64{8, 8, 4}},
	} {
		if got := shapeBlock(c.total, &c.r, lim); got != c.want {
			t.Errorf("shapeBlock(%d, %v) = %v, want %v", c.total, c.r.Global, got, c.want)
		}
	}
}

// A cooperative launch of as many groups as MaxCooperativeGroups allows
// (at most a few per multiprocessor) passes a grid-wide barrier.
func TestLaunchArgsCooperative(t *testing.T) {
	f := newLaunchFixture(t)
	if v, _ := f.a.cu.DeviceGetAttribute(cu.DeviceAttributeCooperativeLaunch, f.d.ordinal); v == 0 {
		t.Skip("no cooperative launch")
	}
	k := f.kernel(t, "gridwait")
	const threads = 64
	maxGroups, err := k.MaxCooperativeGroups(f.d, [3]uint64{threads, 1, 1}, 0)
	if err != nil || maxGroups == 0 {
		t.Fatalf("MaxCooperativeGroups = %d, %v", maxGroups, err)
	}
	groups := min(maxGroups, 2*uint64(f.d.info.ComputeUnits))
	counter := f.alloc(t, f.c, driver.USMDevice, 4)
	out := f.alloc(t, f.c, driver.USMDevice, groups*4)
	if _, err := f.q.USMFill(counter, []byte{0, 0, 0, 0}, 4, nil, false); err != nil {
		t.Fatal(err)
	}
	ev, err := f.q.LaunchWithArgs(k, range1(groups*threads, threads), []driver.LaunchArg{ptrArg(counter), ptrArg(out)}, driver.LaunchProperties{Cooperative: true}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	ev.Wait(ctxpkg.Background())
	ev.Release()
	for i, v := range u32s(t, f.q, out, int(groups)) {
		if v != uint32(groups) {
			t.Fatalf("group %d saw %d groups arrive, want %d", i, v, groups)
		}
	}
	_, err = f.q.LaunchWithArgs(k, range1((maxGroups+1)*threads, threads), []driver.LaunchArg{ptrArg(counter), ptrArg(out)}, driver.LaunchProperties{Cooperative: true}, nil, false)
	if err == nil {
		f.q.Finish()
		t.Errorf("a cooperative launch of %d groups, one more than the device holds, succeeded", maxGroups+1)
	}
}

// Thread block clusters (sm_90): each block sees the cluster size.
func TestLaunchArgsClusterDims(t *testing.T) {
	f := newMemFixture(t)
	if v, _ := f.a.cu.DeviceGetAttribute(cu.DeviceAttributeClusterLaunch, f.d.ordinal); v == 0 {
		t.Skip("no thread block clusters (sm_90)")
	}
	p := buildSource(t, f.c, clusterTestSource)
	dk, err := p.NewKernel("clustersize")
	if err != nil {
		t.Fatal(err)
	}
	defer dk.Release()
	const blocks = 16
	out := f.alloc(t, f.c, driver.USMDevice, blocks*4)
	for _, cl := range []uint32{1, 2, 4} {
		props := driver.LaunchProperties{ClusterDims: [3]uint32{cl, 1, 1}}
		if _, err := f.q.LaunchWithArgs(dk, range1(blocks*32, 32), []driver.LaunchArg{ptrArg(out)}, props, nil, false); err != nil {
			t.Fatalf("cluster of %d: %v", cl, err)
		}
		for i, v := range u32s(t, f.q, out, blocks) {
			if v != cl {
				t.Fatalf("cluster of %d: block %d sees %d", cl, i, v)
			}
		}
	}
}

// A graph of a fill, 300 small launches with their own arguments and a
// copy, replayed several times; then a USM fill of an 8-byte pattern.
func TestCommandBufferGraph(t *testing.T) {
	f := newLaunchFixture(t)
	add := f.kernel(t, "addc")
	const n, launches = 1024, 300
	a := f.alloc(t, f.c, driver.USMDevice, n*4)
	bm, err := f.c.NewBuffer(driver.MemReadWrite, n*4, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bm.Release()
	am := &mem{dev: f.d, ptr: cu.DevicePtr(a), size: n * 4, borrowed: true}
	dcb, err := f.c.NewCommandBuffer(f.d, driver.CommandBufferProperties{})
	if err != nil {
		t.Fatal(err)
	}
	defer dcb.Release()
	cb := dcb.(*cmdbuf)
	if _, err := cb.AppendFill(am, []byte{0, 0, 0x80, 0x3f}, 0, n*4); err != nil { // 1.0f
		t.Fatal(err)
	}
	var want float32 = 1
	for i := range launches {
		c := float32(i%5 + 1)
		want += c
		if _, err := cb.AppendLaunch(add, range1(n, 128), []driver.LaunchArg{ptrArg(a), f32Arg(c)}, driver.LaunchProperties{}); err != nil {
			t.Fatalf("launch %d: %v", i, err)
		}
	}
	if _, err := cb.AppendCopy(am, bm, 0, 0, n*4); err != nil {
		t.Fatal(err)
	}
	if cb.Emulated() {
		t.Error("a CUDA graph reports Emulated")
	}
	if err := cb.Finalize(); err != nil {
		t.Fatal(err)
	}
	for replay := range 4 {
		ev, err := cb.Enqueue(f.q, nil, replay%2 == 0)
		if err != nil {
			t.Fatalf("replay %d: %v", replay, err)
		}
		if ev != nil {
			ev.Wait(ctxpkg.Background())
			ev.Release()
		}
		got := floats(t, f.q, uintptr(bm.(*mem).ptr), n)
		for i, v := range got {
			if v != want {
				t.Fatalf("replay %d: b[%d] = %v, want %v", replay, i, v, want)
			}
		}
	}

	// An 8-byte pattern: strided memset nodes, or UNSUPPORTED_FEATURE.
	dcb2, err := f.c.NewCommandBuffer(f.d, driver.CommandBufferProperties{})
	if err != nil {
		t.Fatal(err)
	}
	defer dcb2.Release()
	pat := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	if _, err := dcb2.AppendUSMFill(a, pat, n*4); err != nil {
		if !errors.Is(err, driver.ResultUnsupportedFeature) {
			t.Fatalf("8-byte fill: %v, want success or UNSUPPORTED_FEATURE", err)
		}
		t.Logf("8-byte fill in a graph: %v", err)
		return
	}
	if err := dcb2.Finalize(); err != nil {
		t.Fatal(err)
	}
	if _, err := dcb2.Enqueue(f.q, nil, false); err != nil {
		t.Fatal(err)
	}
	got := read(t, f.q, a, n*4)
	for i := range got {
		if got[i] != pat[i%8] {
			t.Fatalf("8-byte fill: byte %d = %d, want %d", i, got[i], pat[i%8])
		}
	}
}

// UpdateLaunch changes a recorded launch's arguments and range; a second
// update of the range alone keeps the new arguments.
func TestCommandBufferUpdateLaunch(t *testing.T) {
	f := newLaunchFixture(t)
	k := f.kernel(t, "axpb")
	const n = 1024
	y1, y2 := f.alloc(t, f.c, driver.USMDevice, n*4), f.alloc(t, f.c, driver.USMDevice, 4*n*4)
	dcb, err := f.c.NewCommandBuffer(f.d, driver.CommandBufferProperties{Updatable: true})
	if err != nil {
		t.Fatal(err)
	}
	defer dcb.Release()
	cmd, err := dcb.AppendLaunch(k, range1(n, 128), []driver.LaunchArg{ptrArg(y1), f32Arg(2), f32Arg(1), u32Arg(n)}, driver.LaunchProperties{})
	if err != nil {
		t.Fatal(err)
	}
	if err := dcb.Finalize(); err != nil {
		t.Fatal(err)
	}
	if _, err := dcb.Enqueue(f.q, nil, false); err != nil {
		t.Fatal(err)
	}
	checkAxpb(t, "before the update", floats(t, f.q, y1, n), 2, 1)
	r2 := range1(2*n, 256)
	if err := dcb.UpdateLaunch(cmd, []driver.LaunchArg{ptrArg(y2), f32Arg(3), f32Arg(5), u32Arg(4 * n)}, &r2); err != nil {
		t.Fatal(err)
	}
	if _, err := dcb.Enqueue(f.q, nil, false); err != nil {
		t.Fatal(err)
	}
	got := floats(t, f.q, y2, 4*n)
	checkAxpb(t, "after the update", got[:2*n], 3, 5)
	r4 := range1(4*n, 256)
	if err := dcb.UpdateLaunch(cmd, nil, &r4); err != nil {
		t.Fatal(err)
	}
	if _, err := dcb.Enqueue(f.q, nil, false); err != nil {
		t.Fatal(err)
	}
	checkAxpb(t, "after the range update", floats(t, f.q, y2, 4*n), 3, 5)
	checkAxpb(t, "y1 after the updates", floats(t, f.q, y1, n), 2, 1)
}

// A capture records launches of both kinds and a fill without running
// them; its command buffer replays them.
func TestCaptureQueue(t *testing.T) {
	f := newLaunchFixture(t)
	add := f.kernel(t, "addc")
	const n = 1024
	y := f.alloc(t, f.c, driver.USMDevice, n*4)
	if _, err := f.q.USMFill(y, []byte{0, 0, 0, 0}, n*4, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := f.q.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := f.q.BeginCapture(); err != nil {
		t.Fatal(err)
	}
	if err := add.SetArgPointer(0, y); err != nil {
		t.Fatal(err)
	}
	if err := add.SetArgValue(1, []byte{0, 0, 0x80, 0x3f}); err != nil { // 1.0f
		t.Fatal(err)
	}
	for range 2 {
		if _, err := f.q.Launch(add, range1(n, 128), nil, false); err != nil {
			t.Fatal(err)
		}
		if _, err := f.q.LaunchWithArgs(add, range1(n, 128), []driver.LaunchArg{ptrArg(y), f32Arg(2)}, driver.LaunchProperties{}, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	dcb, err := f.q.EndCapture()
	if err != nil {
		t.Fatal(err)
	}
	defer dcb.Release()
	if v := floats(t, f.q, y, n)[0]; v != 0 {
		t.Fatalf("captured commands ran: y[0] = %v", v)
	}
	if err := dcb.Finalize(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := dcb.Enqueue(f.q, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	for i, v := range floats(t, f.q, y, n) {
		if v != 12 {
			t.Fatalf("y[%d] = %v after two replays, want 12", i, v)
		}
	}
}

func newQueue(t *testing.T, c *context, props driver.QueueProperties) *queue {
	t.Helper()
	dq, err := c.NewQueue(c.dev, props)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dq.Release() })
	return dq.(*queue)
}

// An out-of-order queue spreads launches over its streams; a marker
// completes after all of them; a barrier orders a copy after a slow
// launch that another stream ran.
func TestOutOfOrderQueue(t *testing.T) {
	f := newLaunchFixture(t)
	q := newQueue(t, f.c, driver.QueueProperties{OutOfOrder: true})
	if q.ooo == nil || len(q.ooo.streams) != oooStreams {
		t.Fatal("an out-of-order queue without its streams")
	}
	k := f.kernel(t, "axpb")
	spin := f.kernel(t, "spin")
	const n, bufs = 4096, 8
	ys := make([]uintptr, bufs)
	for i := range ys {
		ys[i] = f.alloc(t, f.c, driver.USMDevice, n*4)
		if _, err := q.LaunchWithArgs(k, range1(n, 256), []driver.LaunchArg{ptrArg(ys[i]), f32Arg(float32(i)), f32Arg(1), u32Arg(n)}, driver.LaunchProperties{}, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	m, err := q.Marker(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Wait(ctxpkg.Background()); err != nil {
		t.Fatal(err)
	}
	m.Release()
	for i, y := range ys {
		checkAxpb(t, "buffer "+strconv.Itoa(i), floats(t, f.q, y, n), float32(i), 1)
	}

	// A slow launch that sets ys[0], a barrier, then a copy from ys[0] on
	// whatever stream comes next.
	z := f.alloc(t, f.c, driver.USMDevice, n*4)
	if _, err := q.LaunchWithArgs(spin, range1(1, 1), []driver.LaunchArg{u64Arg(50_000_000)}, driver.LaunchProperties{}, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := q.LaunchWithArgs(k, range1(n, 256), []driver.LaunchArg{ptrArg(ys[0]), f32Arg(7), f32Arg(7), u32Arg(n)}, driver.LaunchProperties{}, nil, false); err != nil {
		t.Fatal(err)
	}
	b, err := q.Marker(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	b.Release()
	for range oooStreams { // land on every stream, one of them other than the spin's
		if _, err := q.USMCopy(z, ys[0], n*4, false, nil, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.Finish(); err != nil {
		t.Fatal(err)
	}
	checkAxpb(t, "copy after the barrier", floats(t, f.q, z, n), 7, 7)
	if empty, err := q.Empty(); err != nil || !empty {
		t.Errorf("Empty after Finish = %v, %v", empty, err)
	}
}

// Queues of every priority run; the in-order queue's Empty follows a
// slow kernel.
func TestQueuePrioritiesAndEmpty(t *testing.T) {
	f := newLaunchFixture(t)
	spin := f.kernel(t, "spin")
	for _, p := range []int{-5, 0, 1, 100} {
		for _, ooo := range []bool{false, true} {
			q := newQueue(t, f.c, driver.QueueProperties{Priority: p, OutOfOrder: ooo})
			if _, err := q.LaunchWithArgs(spin, range1(1, 1), []driver.LaunchArg{u64Arg(100_000_000)}, driver.LaunchProperties{}, nil, false); err != nil {
				t.Fatal(err)
			}
			empty, err := q.Empty()
			if err != nil || empty {
				t.Errorf("priority %d (out of order %v): Empty with a slow kernel = %v, %v", p, ooo, empty, err)
			}
			if err := q.Finish(); err != nil {
				t.Fatal(err)
			}
			if empty, err := q.Empty(); err != nil || !empty {
				t.Errorf("priority %d: Empty after Finish = %v, %v", p, empty, err)
			}
		}
	}
}

// OnComplete calls back on a goroutine after the command, with the event
// released right after the call.
func TestEventOnComplete(t *testing.T) {
	f := newLaunchFixture(t)
	spin := f.kernel(t, "spin")
	ev, err := f.q.LaunchWithArgs(spin, range1(1, 1), []driver.LaunchArg{u64Arg(50_000_000)}, driver.LaunchProperties{}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var status driver.EventStatus
	if err := ev.(driver.EventCallbacks).OnComplete(func(st driver.EventStatus, err error) {
		status = st
		// The callback may call CUDA: it runs on a goroutine.
		if s, err2 := ev.Status(); err2 != nil || s != driver.EventComplete {
			err = errors.Join(err, err2, errors.New("the event is not complete in its callback"))
		}
		done <- err
	}); err != nil {
		t.Fatal(err)
	}
	if err := ev.Release(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil || status != driver.EventComplete {
			t.Errorf("callback: %v, %v", status, err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no callback in 30 s")
	}
	if err := ev.(driver.EventCallbacks).OnComplete(func(driver.EventStatus, error) {}); err == nil {
		t.Error("OnComplete on a released event succeeded")
	}
	runtime.Gosched()
}

// Attributes, the suggested size and the cooperative limit.
func TestKernelAttributesAndSuggestedSize(t *testing.T) {
	f := newLaunchFixture(t)
	k := f.kernel(t, "sharedsum")
	a, err := k.Attributes(f.d)
	if err != nil {
		t.Fatal(err)
	}
	optin, _ := f.a.cu.DeviceGetAttribute(cu.DeviceAttributeMaxSharedMemoryPerBlockOptin, f.d.ordinal)
	if a.Registers == 0 || a.MaxWorkGroupSize == 0 || a.PreferredGroupMultiple != 32 || len(a.SubGroupSizes) != 1 || a.SubGroupSizes[0] != 32 ||
		a.MaxDynamicLocalMem != uint64(optin)-a.StaticLocalMemSize {
		t.Errorf("Attributes = %+v (opt-in shared memory %d)", a, optin)
	}
	for _, c := range []driver.NDRange{
		{Dims: 1, Global: [3]uint64{1 << 20, 1, 1}},
		{Dims: 1, Global: [3]uint64{1000003, 1, 1}},
		{Dims: 2, Global: [3]uint64{1920, 1080, 1}},
		{Dims: 3, Global: [3]uint64{64, 64, 64}},
	} {
		local, err := k.SuggestLocalSize(f.d, c, 4096)
		if err != nil {
			t.Fatal(err)
		}
		items := uint64(1)
		for i := range 3 {
			if local[i] == 0 || (i < int(c.Dims) && c.Global[i]%local[i] != 0) || (i >= int(c.Dims) && local[i] != 1) {
				t.Errorf("SuggestLocalSize(%v) = %v: not a divisor", c.Global, local)
			}
			items *= local[i]
		}
		if items > a.MaxWorkGroupSize {
			t.Errorf("SuggestLocalSize(%v) = %v, more than %d items", c.Global, local, a.MaxWorkGroupSize)
		}
		t.Logf("SuggestLocalSize(%v) = %v", c.Global[:c.Dims], local)
	}
	n, err := k.MaxCooperativeGroups(f.d, [3]uint64{256, 1, 1}, 1024)
	if err != nil || n < uint64(f.d.info.ComputeUnits) {
		t.Errorf("MaxCooperativeGroups = %d, %v; want at least one per multiprocessor (%d)", n, err, f.d.info.ComputeUnits)
	}
}

// A __device__ global read and written through USM copies, and by a
// kernel.
func TestProgramGlobal(t *testing.T) {
	f := newLaunchFixture(t)
	tp, tsize, err := f.p.Global(f.d, "table")
	if err != nil {
		t.Fatal(err)
	}
	cp, csize, err := f.p.Global(f.d, "counter")
	if err != nil {
		t.Fatal(err)
	}
	if tsize != 64*4 || csize != 4 {
		t.Fatalf("sizes %d, %d; want 256, 4", tsize, csize)
	}
	if _, _, err := f.p.Global(f.d, "nothing"); err == nil {
		t.Error("Global of a name the program lacks succeeded")
	}
	v := make([]float32, 64)
	for i := range v {
		v[i] = float32(i)
	}
	writeFloats(t, f.q, tp, v)
	write(t, f.q, cp, []byte{5, 0, 0, 0})
	bump := f.kernel(t, "bump")
	if _, err := f.q.LaunchWithArgs(bump, range1(64, 64), []driver.LaunchArg{f32Arg(2)}, driver.LaunchProperties{}, nil, false); err != nil {
		t.Fatal(err)
	}
	got := floats(t, f.q, tp, 64)
	for i := range got {
		if got[i] != 2*float32(i) {
			t.Fatalf("table[%d] = %v, want %v", i, got[i], 2*float32(i))
		}
	}
	if c := u32s(t, f.q, cp, 1)[0]; c < 6 || c > 5+64 {
		t.Errorf("counter = %d after one launch of 64 racing increments from 5", c)
	}
}

// A prepared launch with arguments takes new values in place and launches
// them as one native call, allocating nothing; SetArg refuses an index,
// size or local size it was not prepared with.
func TestPreparedArgLaunch(t *testing.T) {
	f := newLaunchFixture(t)
	k := f.kernel(t, "axpb")
	const n = 1024
	y, z := f.alloc(t, f.c, driver.USMDevice, n*4), f.alloc(t, f.c, driver.USMDevice, n*4)
	pl, err := f.q.PrepareArgLaunch(k, range1(n, 128), []driver.LaunchArg{ptrArg(y), f32Arg(0), f32Arg(0), u32Arg(n)}, driver.LaunchProperties{})
	if err != nil {
		t.Fatal(err)
	}
	call := pl.Native()
	if call == nil {
		t.Fatal("a launch without attributes is not a native call")
	}
	i := 0
	launch := func() {
		i++
		if err := pl.SetArg(2, f32Arg(float32(i))); err != nil {
			t.Fatal(err)
		}
		if st := call.Launch(); st != driver.Launched {
			if st = pl.Launch(); st != driver.Launched {
				t.Fatalf("launch %d: %v", i, st)
			}
		}
	}
	launch()
	if allocs := testing.AllocsPerRun(200, launch); allocs != 0 && !raceEnabled {
		t.Errorf("SetArg and the native launch allocate %v times, want 0", allocs)
	}
	if err := pl.SetArg(0, ptrArg(z)); err != nil {
		t.Fatal(err)
	}
	if err := pl.SetArg(1, f32Arg(3)); err != nil {
		t.Fatal(err)
	}
	if st := pl.Launch(); st != driver.Launched {
		t.Fatalf("Launch: %v", st)
	}
	if err := f.q.Finish(); err != nil {
		t.Fatal(err)
	}
	checkAxpb(t, "the first pointer", floats(t, f.q, y, n), 0, float32(i))
	checkAxpb(t, "the pointer set after", floats(t, f.q, z, n), 3, float32(i))
	for _, bad := range []struct {
		i int
		a driver.LaunchArg
	}{{4, u32Arg(1)}, {-1, u32Arg(1)}, {3, driver.LaunchArg{Kind: driver.ArgValue, Size: 8, Bits: 1}}} {
		if err := pl.SetArg(bad.i, bad.a); err == nil {
			t.Errorf("SetArg(%d, %d bytes) succeeded", bad.i, bad.a.Size)
		}
	}
	if k.nset != 0 {
		t.Errorf("the kernel's own arguments changed: %d set", k.nset)
	}
}
