package ur_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gour-dev/gour/internal/harness/testenv"
	"github.com/gour-dev/gour/trace"
	"github.com/gour-dev/gour/ur"
)

const layersKernel = `__kernel void inc(__global int *x) { x[get_global_id(0)] += 1; }`

func layersDevice(t *testing.T) *ur.Device {
	for _, d := range testenv.Devices(t) {
		if d.Backend() == "opencl" {
			return d
		}
	}
	t.Skip("no OpenCL device")
	return nil
}

// startLayersTrace starts tracing into a file of the test's, stopped at
// its end, and returns the file's path.
func startLayersTrace(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "trace.json")
	if err := ur.StartTrace(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ur.StopTrace() })
	return path
}

// layersProgram makes a context of d and builds layersKernel in it, both
// released at the test's end.
func layersProgram(t *testing.T, d *ur.Device) (*ur.Context, *ur.Program) {
	t.Helper()
	ctx, err := ur.NewContext(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Release() })
	prog, err := ctx.NewProgramFromSource(layersKernel)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { prog.Release() })
	if err := prog.Build(""); err != nil {
		t.Fatal(err)
	}
	return ctx, prog
}

// stopLayersTrace stops the trace and reads the file back whole (not
// truncated).
func stopLayersTrace(t *testing.T, path string) ([]byte, []trace.Event) {
	t.Helper()
	if err := ur.StopTrace(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	evs, truncated, _, err := trace.Read(data)
	if err != nil || truncated {
		t.Fatalf("Read: truncated %v, %v", truncated, err)
	}
	return data, evs
}

// leakCheckContext turns the leak check on and makes a context of the
// OpenCL device, released when the test ends.
func leakCheckContext(t *testing.T) *ur.Context {
	t.Helper()
	d := layersDevice(t)
	ur.EnableLayers(ur.LayerOptions{LeakCheck: true})
	ctx, err := ur.NewContext(d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Release() })
	return ctx
}

// leakOf is the leak of a handle of kind made by the test (what names it
// in the failure), the last listed.
func leakOf(t *testing.T, kind, what string) *ur.Leak {
	t.Helper()
	var found *ur.Leak
	for _, l := range ur.Leaks() {
		if l.Kind == kind && strings.Contains(l.Stack, t.Name()) {
			found = &l
		}
	}
	if found == nil {
		t.Fatalf("%s is not among the leaks: %v", what, ur.Leaks())
	}
	return found
}

// checkNoLeak checks the handle of leak, released, is a leak no more.
func checkNoLeak(t *testing.T, leak *ur.Leak, what string) {
	t.Helper()
	for _, l := range ur.Leaks() {
		if l.ID == leak.ID {
			t.Errorf("released, %s is still a leak", what)
		}
	}
}

// TestLeakCheckNamesTheSite: a buffer never released is listed with the
// line that made it; released, it is gone.
func TestLeakCheckNamesTheSite(t *testing.T) {
	ctx := leakCheckContext(t)
	m, err := ctx.NewBuffer(ur.MemReadWrite, 64) // the leak
	if err != nil {
		t.Fatal(err)
	}
	found := leakOf(t, "Mem", "the buffer")
	if !strings.Contains(found.Stack, "layers_test.go:") {
		t.Errorf("the leak's stack does not name this file:\n%s", found.Stack)
	}
	if err := ur.CheckLeaks(); err == nil || !strings.Contains(err.Error(), "Mem #") {
		t.Errorf("CheckLeaks: %v", err)
	}
	m.Release()
	checkNoLeak(t, found, "the buffer")
}

// TestTraceOpens traces launches from several goroutines on their own
// queues and checks the file as the trace event format wants it: a JSON
// array, every host call on a host track, every launch on its
// queue's track with device times.
func TestTraceOpens(t *testing.T) {
	d := layersDevice(t)
	path := startLayersTrace(t)
	ctx, prog := layersProgram(t, d)
	const workers, launches = 4, 20
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			q, err := ctx.NewQueue(d, ur.QueueProperties{})
			if err != nil {
				t.Error(err)
				return
			}
			defer q.Release()
			k, err := prog.NewKernel("inc")
			if err != nil {
				t.Error(err)
				return
			}
			defer k.Release()
			m, _ := ctx.NewBuffer(ur.MemReadWrite, 4*256)
			defer m.Release()
			k.SetArgMem(0, m)
			for range launches {
				if err := q.Launch(k, ur.Range1D(256)); err != nil {
					t.Error(err)
				}
			}
			ev, err := q.EnqueueLaunch(k, ur.Range1D(256), ur.LaunchOptions{})
			if err == nil {
				ev.Wait(context.Background())
				ev.Release()
			}
			q.Finish()
		})
	}
	wg.Wait()
	data, evs := stopLayersTrace(t, path)
	var raw []map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("the trace is not a JSON array: %v", err)
	}
	host, device := map[int64]int{}, map[int64]int{}
	named := map[[2]int64]bool{}
	for _, e := range evs {
		switch {
		case e.Ph == "M":
			named[[2]int64{e.Pid, e.Tid}] = true
		case e.Ph == "X" && e.Pid == trace.HostPID && e.Name == "Queue.Launch":
			host[e.Tid]++
		case e.Ph == "X" && e.Pid == trace.DevicePID:
			device[e.Tid]++
			if e.Dur < 0 || e.Ts < 0 {
				t.Errorf("device event at %v for %v", e.Ts, e.Dur)
			}
		}
		if e.Ph != "M" && e.Ph != "X" && e.Ph != "i" {
			t.Errorf("event of phase %q", e.Ph)
		}
	}
	hostLaunches := 0
	for _, n := range host {
		hostLaunches += n
	}
	if hostLaunches != workers*launches {
		t.Errorf("%d launches on host tracks, want %d", hostLaunches, workers*launches)
	}
	if len(device) != workers {
		t.Errorf("commands on %d queue tracks, want %d", len(device), workers)
	}
	for q, n := range device {
		if n != launches+1 {
			t.Errorf("queue %d: %d commands on its track, want %d", q, n, launches+1)
		}
		if !named[[2]int64{trace.DevicePID, q}] {
			t.Errorf("queue track %d has no name", q)
		}
	}
	for g := range host {
		if !named[[2]int64{trace.HostPID, g}] {
			t.Errorf("host track %d has no name", g)
		}
	}
}

// TestTraceUnwritable: a trace that cannot be created is an error, and
// the program goes on untraced.
func TestTraceUnwritable(t *testing.T) {
	err := ur.StartTrace(filepath.Join(t.TempDir(), "no", "such", "dir", "t.json"))
	if err == nil {
		ur.StopTrace()
		t.Fatal("no error")
	}
	if trace.Active() != nil {
		t.Error("a recorder is active")
	}
}

// TestTraceEveryArea runs one call of each area with tracing on and finds
// it in the trace by name, whether the OpenCL device supports the area or
// the call fails typed: a call is traced either way.
func TestTraceEveryArea(t *testing.T) {
	d := layersDevice(t)
	path := startLayersTrace(t)
	ctx, prog := layersProgram(t, d)
	q, err := ctx.NewQueue(d, ur.QueueProperties{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Release()
	m, err := ctx.NewBuffer(ur.MemReadWrite, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	k, err := prog.NewKernel("inc")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Release()
	areas := []struct {
		area string
		want []string
		call func()
	}{
		{"device queries", []string{"Device.Query", "Device.FreeMemory", "Device.PartitionInfo"}, func() {
			d.Query(ur.DeviceInfoName)
			d.FreeMemory()
			d.PartitionInfo()
		}},
		{"timestamps", []string{"Device.GlobalTimestamps", "Queue.EnqueueTimestampRecording"}, func() {
			d.GlobalTimestamps()
			if ev, err := q.EnqueueTimestampRecording(true); err == nil {
				ev.Release()
			}
		}},
		{"command buffers", []string{"CommandBuffer.AppendFill", "CommandBuffer.Finalize"}, func() {
			cb, err := ctx.NewCommandBuffer(d, ur.CommandBufferOptions{})
			if err != nil {
				t.Error(err)
				return
			}
			defer cb.Release()
			cb.AppendFill(m, []byte{1, 2, 3, 4}, 0, 64)
			cb.Finalize()
		}},
		{"pools", []string{"Queue.AllocAsync", "Pool.Usage"}, func() {
			pool, err := ctx.NewPool(d, ur.PoolOptions{})
			if err != nil {
				// No USM: AllocAsync on a nil pool is still a traced call.
				q.AllocAsync(nil, 64)
				(*ur.Pool)(nil).Usage()
				return
			}
			defer pool.Release()
			if u, err := q.AllocAsync(pool, 64); err == nil {
				q.FreeAsync(u)
			}
			pool.Usage()
		}},
		{"peer access", []string{"Device.PeerAccess", "Device.EnablePeerAccess", "Queue.PeerCopyPath"}, func() {
			d.PeerAccess(d)
			d.EnablePeerAccess(d)
			q.PeerCopyPath(ur.Ptr{}, ur.Ptr{})
		}},
		{"pointer arguments", []string{"Kernel.SetArgPtr"}, func() { k.SetArgPtr(0, ur.Ptr{}) }},
		{"images", []string{"Context.SupportedImageFormats", "Context.NewSampler"}, func() {
			ctx.SupportedImageFormats(ur.MemReadOnly, ur.Image2D)
			if s, err := ctx.NewSampler(ur.SamplerDesc{}); err == nil {
				s.Release()
			}
		}},
		{"virtual memory", []string{"Context.VirtualMemGranularity", "Context.ReserveVirtualMem"}, func() {
			ctx.VirtualMemGranularity(d, false)
			if v, err := ctx.ReserveVirtualMem(0, 1<<21); err == nil {
				v.Release()
			}
		}},
		{"IPC", []string{"Context.OpenIPCMemHandle"}, func() { ctx.OpenIPCMemHandle(d, nil) }},
		{"mapped buffers", []string{"Queue.EnqueueMapBuffer", "Queue.EnqueueUnmap"}, func() {
			mp, _, err := q.EnqueueMapBuffer(m, true, ur.MapRead, 0, 64)
			if err != nil {
				t.Error(err)
				return
			}
			if ev, err := q.EnqueueUnmap(mp); err == nil {
				ev.Wait(context.Background())
				ev.Release()
			}
		}},
		{"printf", []string{"Context.PrintfBufferSize"}, func() { ctx.PrintfBufferSize() }},
		{"discovery", []string{"Discover"}, func() { ur.Discover(ur.Config{}) }},
	}
	for _, a := range areas {
		a.call()
	}
	q.Finish()
	_, evs := stopLayersTrace(t, path)
	seen := map[string]bool{}
	for _, e := range evs {
		if e.Ph == "X" && e.Pid == trace.HostPID {
			seen[e.Name] = true
		}
	}
	for _, a := range areas {
		for _, name := range a.want {
			if !seen[name] {
				t.Errorf("%s: %s is not in the trace", a.area, name)
			}
		}
	}
}

// TestLeakCheckSampler: the newer handle kinds are leak-checked too; a
// sampler never released is listed as one, released it is gone.
func TestLeakCheckSampler(t *testing.T) {
	ctx := leakCheckContext(t)
	s, err := ctx.NewSampler(ur.SamplerDesc{}) // the leak
	if err != nil {
		t.Skipf("no samplers: %v", err)
	}
	found := leakOf(t, "Sampler", "the sampler")
	s.Release()
	checkNoLeak(t, found, "the sampler")
}
