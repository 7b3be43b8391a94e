package cublas

import "testing"

// TestPoolReusesHandlesOfOneContext: a handle given back is the next one
// got in its context without a cublasCreate, another context gets a new
// one, and a context without an id (cuCtxGetId refuses it) has its
// handles destroyed rather than kept.
func TestPoolReusesHandlesOfOneContext(t *testing.T) {
	l, last := standIn(t)
	if id, ok := l.ContextID(0x77); !ok || id != 0x77*10 {
		t.Fatalf("ContextID(0x77) = %d, %v; want the stand-in's %d", id, ok, 0x77*10)
	}
	var p Pool
	h, err := p.Get(l, 0x77)
	if err != nil {
		t.Fatal(err)
	}
	if r := lastCall(t, last); r.name != "cublasCreate_v2" {
		t.Fatalf("the first Get called %s, want cublasCreate_v2", r.name)
	}
	if err := p.Put(h); err != nil {
		t.Fatal(err)
	}
	if r := lastCall(t, last); r.name == "cublasDestroy_v2" {
		t.Fatal("Put destroyed a handle of a context with an id")
	}
	h2, err := p.Get(l, 0x77)
	if err != nil {
		t.Fatal(err)
	}
	if h2 != h {
		t.Errorf("Get after Put in one context = %p, want the handle given back %p", h2, h)
	}
	other, err := p.Get(l, 0x78)
	if err != nil {
		t.Fatal(err)
	}
	if other == h || other.Context() != 0x78 {
		t.Errorf("Get in another context = %p in %#x, want a new handle in 0x78", other, other.Context())
	}
	noID, err := p.Get(l, 0x1d1e55)
	if err != nil {
		t.Fatal(err)
	}
	if r := lastCall(t, last); r.name != "cublasCreate_v2" {
		t.Fatalf("Get in a context without an id called %s, want cublasCreate_v2", r.name)
	}
	if err := p.Put(noID); err != nil {
		t.Fatal(err)
	}
	if r := lastCall(t, last); r.name != "cublasDestroy_v2" {
		t.Errorf("Put of a handle whose context has no id called %s, want cublasDestroy_v2", r.name)
	}
}
