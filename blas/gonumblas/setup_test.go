package gonumblas_test

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas"

	gourblas "github.com/gour-dev/gour/blas"
	"github.com/gour-dev/gour/blas/gonumblas"
	"github.com/gour-dev/gour/internal/harness/testenv"
)

// hostCalls makes one Sgemm and one Dtrsm call above every threshold
// with impl and with gonum's native implementation, and fails unless
// the results are the same bit for bit: the calls were gonum's.
func hostCalls(t *testing.T, impl *gonumblas.Implementation) {
	t.Helper()
	rnd := rand.New(rand.NewPCG(5, 6))
	a, _ := randMat[float32](rnd, 20, 30, 0)
	b, _ := randMat[float32](rnd, 30, 10, 0)
	c, _ := randMat[float32](rnd, 20, 10, 0)
	want, got := slices.Clone(c), slices.Clone(c)
	native.Sgemm(blas.NoTrans, blas.NoTrans, 20, 10, 30, 2, a, 30, b, 10, 0.5, want, 10)
	impl.Sgemm(blas.NoTrans, blas.NoTrans, 20, 10, 30, 2, a, 30, b, 10, 0.5, got, 10)
	if !slices.Equal(got, want) {
		t.Error("Sgemm computed by another code than gonum's")
	}
	tri, _ := randMat[float64](rnd, 12, 12, 0)
	conditioned(tri, 12, 12)
	x, _ := randMat[float64](rnd, 12, 7, 0)
	wantX, gotX := slices.Clone(x), slices.Clone(x)
	native.Dtrsm(blas.Left, blas.Upper, blas.NoTrans, blas.NonUnit, 12, 7, 1.5, tri, 12, wantX, 7)
	impl.Dtrsm(blas.Left, blas.Upper, blas.NoTrans, blas.NonUnit, 12, 7, 1.5, tri, 12, gotX, 7)
	if !slices.Equal(gotX, wantX) {
		t.Error("Dtrsm computed by another code than gonum's")
	}
}

// New sets the device up in the background: until it is ready, calls
// are gonum's (with gonum's results, counted in Stats.Host and
// Stats.Unready); once it is, they go to the device.
func TestSetUpInBackground(t *testing.T) {
	dev := testenv.Devices(t)[0]
	_, q := testenv.ContextQueue(t, dev)
	impl, release, err := gonumblas.NewHeld(q, forced())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := impl.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}()
	hostCalls(t, impl)
	if s := impl.Stats(); s.Device != 0 || s.Host != 2 || s.Unready != 2 {
		t.Errorf("stats %+v before the device is ready: want 2 calls on the host, both unready", s)
	}
	if impl.Ready() || impl.Backend() != "" {
		t.Errorf("Ready() = %v, Backend() = %q before the set-up ran", impl.Ready(), impl.Backend())
	}
	release()
	if err := impl.WaitReady(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !impl.Ready() || impl.Backend() == "" {
		t.Errorf("Ready() = %v, Backend() = %q after the set-up", impl.Ready(), impl.Backend())
	}
	rnd := rand.New(rand.NewPCG(7, 8))
	a, _ := randMat[float32](rnd, 20, 30, 0)
	c, _ := randMat[float32](rnd, 20, 20, 0)
	want := slices.Clone(c)
	native.Sgemm(blas.NoTrans, blas.Trans, 20, 20, 30, 1, a, 30, a, 30, 0, want, 20)
	impl.Sgemm(blas.NoTrans, blas.Trans, 20, 20, 30, 1, a, 30, a, 30, 0, c, 20)
	same(t, "Sgemm", c, want, 30)
	if s := impl.Stats(); s.Device != 1 || s.Host != 2 || s.Unready != 2 || s.Fallbacks != 0 {
		t.Errorf("stats %+v once ready: want the third call on the device", s)
	}
}

// A device that cannot be set up (here a backend that does not exist)
// leaves every call to gonum: WaitReady says why, a warning is logged,
// and Close has nothing to release.
func TestSetUpFailure(t *testing.T) {
	dev := testenv.Devices(t)[0]
	_, q := testenv.ContextQueue(t, dev)
	rec := &testenv.LogRecorder{}
	opts := forced()
	opts.BLAS.Backend = "nosuch"
	opts.Logger = slog.New(rec)
	impl, err := gonumblas.New(q, opts)
	if err != nil {
		t.Fatal(err)
	}
	err = impl.WaitReady(context.Background())
	var ae *gourblas.ArgError
	if !errors.As(err, &ae) || ae.Arg != "Options.Backend" {
		t.Fatalf("WaitReady = %v, want the device BLAS's *ArgError for Options.Backend", err)
	}
	hostCalls(t, impl)
	if s := impl.Stats(); s.Device != 0 || s.Host != 2 || s.Unready != 2 || s.Fallbacks != 0 {
		t.Errorf("stats %+v: want 2 calls on the host, both unready", s)
	}
	if w := rec.Messages(slog.LevelWarn); len(w) != 1 || !strings.Contains(w[0], "could not be set up") {
		t.Errorf("warnings %q: want one, of the set-up", w)
	}
	if err := impl.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// WaitReady gives up with its context.
func TestWaitReadyContext(t *testing.T) {
	dev := testenv.Devices(t)[0]
	_, q := testenv.ContextQueue(t, dev)
	impl, release, err := gonumblas.NewHeld(q, forced())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := impl.WaitReady(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitReady with a cancelled context = %v", err)
	}
	release()
	if err := impl.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}
