package ur

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gour-dev/gour/trace"
)

// BenchmarkLaunchTraced is BenchmarkLaunchLayers with the tracing layer
// on: the cost of tracing a call is the difference between the two.
func BenchmarkLaunchTraced(b *testing.B) {
	a := &Adapter{name: "nop"}
	ctx := &Context{object: object{adapter: a}}
	p := &Program{object: object{adapter: a}, ctx: ctx}
	q := &Queue{object: object{adapter: a}, ctx: ctx, drv: nopQueue{}}
	k := &Kernel{object: object{adapter: a}, ctx: ctx, program: p, name: "axpy"}
	if _, err := trace.Start(filepath.Join(b.TempDir(), "t.json"), trace.Options{}); err != nil {
		b.Fatal(err)
	}
	defer trace.Stop()
	r := Range1D(32)
	b.ReportAllocs()
	for b.Loop() {
		if err := q.Launch(k, r); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLaunchRepeatTraced is BenchmarkLaunchRepeatLayers with the
// tracing layer on.
func BenchmarkLaunchRepeatTraced(b *testing.B) {
	q, k := fakeLaunchHandles(new(preparingQueue), new([2]int))
	if _, err := trace.Start(filepath.Join(b.TempDir(), "t.json"), trace.Options{}); err != nil {
		b.Fatal(err)
	}
	defer trace.Stop()
	r := Range1D(32)
	b.ReportAllocs()
	for b.Loop() {
		if err := q.Launch(k, r); err != nil {
			b.Fatal(err)
		}
	}
}

func TestLayersFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	o, err := layersFromEnv(env(map[string]string{"UR_ENABLE_LAYERS": "UR_LAYER_TRACING;UR_LAYER_FULL_VALIDATION"}))
	if err != nil || o.Trace == "" || !o.LeakCheck {
		t.Errorf("tracing and full validation: %+v, %v", o, err)
	}
	o, _ = layersFromEnv(env(map[string]string{"GOUR_TRACE": "x.json", "GOUR_TRACE_DEVICE": "0"}))
	if o.Trace != "x.json" || o.LeakCheck || !o.NoDeviceProfiling {
		t.Errorf("GOUR_TRACE alone: %+v", o)
	}
	if o, _ := layersFromEnv(env(map[string]string{"GOUR_TRACE": "t-%p.json"})); o.Trace != "t-"+strconv.Itoa(os.Getpid())+".json" {
		t.Errorf("GOUR_TRACE=t-%%p.json: %q", o.Trace)
	}
	if _, err := layersFromEnv(env(map[string]string{"UR_ENABLE_LAYERS": "UR_LAYER_NOPE"})); err == nil {
		t.Error("an unknown layer is no error")
	}
	if o, _ := layersFromEnv(env(map[string]string{"GOUR_LEAK_CHECK": "1"})); !o.LeakCheck {
		t.Error("GOUR_LEAK_CHECK=1 is no leak check")
	}
}
