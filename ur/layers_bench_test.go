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
	q, k := nopLaunchHandles("axpy")
	benchLaunchTraced(b, q, k)
}

// BenchmarkLaunchRepeatTraced is BenchmarkLaunchRepeatLayers with the
// tracing layer on.
func BenchmarkLaunchRepeatTraced(b *testing.B) {
	q, k := fakeLaunchHandles(new(preparingQueue), new([2]int))
	benchLaunchTraced(b, q, k)
}

// benchLaunchTraced is benchLaunch with a trace being written.
func benchLaunchTraced(b *testing.B, q *Queue, k *Kernel) {
	if _, err := trace.Start(filepath.Join(b.TempDir(), "t.json"), trace.Options{}); err != nil {
		b.Fatal(err)
	}
	defer trace.Stop()
	benchLaunch(b, q, k)
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
