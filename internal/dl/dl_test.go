package dl

import (
	"strings"
	"testing"
)

func TestOpenMissingLibraryListsEveryName(t *testing.T) {
	_, err := Open("libgour-does-not-exist.so.1", "libgour-nor-this.so")
	if err == nil {
		t.Fatal("Open of missing libraries succeeded")
	}
	for _, want := range []string{"libgour-does-not-exist.so.1", "libgour-nor-this.so"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestOpenNoNames(t *testing.T) {
	if _, err := Open(); err == nil {
		t.Fatal("Open() with no names succeeded")
	}
}

func TestResolveRequiredAndOptional(t *testing.T) {
	lib, err := Open("libc.so.6")
	if err != nil {
		t.Skipf("libc.so.6 not loadable here: %v", err)
	}
	defer lib.Close()
	var strlen, missing uintptr
	missing = 1
	if err := lib.Resolve([]Symbol{
		{Name: "strlen", Addr: &strlen},
		{Name: "gour_no_such_symbol", Addr: &missing, Optional: true},
	}); err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	if strlen == 0 {
		t.Error("strlen resolved to 0")
	}
	if missing != 0 {
		t.Error("missing optional symbol not cleared to 0")
	}
	err = lib.Resolve([]Symbol{{Name: "gour_no_such_symbol", Addr: &missing}})
	if err == nil || !strings.Contains(err.Error(), "gour_no_such_symbol") {
		t.Fatalf("missing required symbol: err = %v, want one naming the symbol", err)
	}
}

func TestResolveAlternates(t *testing.T) {
	lib, err := Open("libc.so.6")
	if err != nil {
		t.Fatalf("libc.so.6 not loadable: %v", err)
	}
	defer lib.Close()
	addr, name, err := lib.LookupFirst("gour_no_such_symbol", "strlen", "strnlen")
	if err != nil || name != "strlen" || addr == 0 {
		t.Errorf("LookupFirst = %#x, %q, %v; want strlen's address", addr, name, err)
	}
	if _, _, err := lib.LookupFirst("gour_a", "gour_b"); err == nil || !strings.Contains(err.Error(), "gour_a") {
		t.Errorf("LookupFirst of missing names: err = %v, want one naming the first", err)
	}
	var fn uintptr
	if err := lib.Resolve([]Symbol{{Name: "gour_no_such_symbol", Alternates: []string{"strlen"}, Addr: &fn}}); err != nil || fn == 0 {
		t.Errorf("Resolve through an alternate: %#x, %v", fn, err)
	}
	alts := []string{"__gour_x_2_0", "__gour_x_1_9", "__gour_x_1_1", "__gour_x_1_0"}
	err = lib.Resolve([]Symbol{{Name: "gour_x", Alternates: alts, Addr: &fn}})
	if err == nil || !strings.Contains(err.Error(), "gour_x not found (nor __gour_x_2_0 ... __gour_x_1_0)") {
		t.Errorf("missing symbol with alternates: err = %v", err)
	}
	if fn != 0 {
		t.Error("a missing symbol's address was left set")
	}
}
