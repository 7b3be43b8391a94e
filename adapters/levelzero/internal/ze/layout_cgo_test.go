//go:build cgo && zeheaders

package ze

import (
	"reflect"
	"sort"
	"testing"

	"github.com/gour-dev/gour/adapters/levelzero/internal/ze/internal/cheaders"
)

// TestLayoutMatchesHeader compares every structure gour passes to Level
// Zero with ze_api.h: the size, and the offset and size of every field,
// must be what the C compiler computes from the header, and the two sides
// must list the same fields. Run it with the headers installed (Debian: libze-dev):
//
//	go test -tags zeheaders ./adapters/levelzero/internal/ze/
func TestLayoutMatchesHeader(t *testing.T) {
	type key struct{ typ, field string }
	c := map[key]cheaders.Layout{}
	cFields := map[string]int{}
	for _, l := range cheaders.Layouts() {
		c[key{l.Type, l.Field}] = l
		if l.Field != "" {
			cFields[l.Type]++
		}
	}
	structs, fields := 0, 0
	for _, cname := range sortedKeys(checkedStructs) {
		typ := reflect.TypeOf(checkedStructs[cname])
		whole, ok := c[key{cname, ""}]
		if !ok {
			t.Errorf("%s: not in the C layout table (cheaders/layout.go)", cname)
			continue
		}
		structs++
		if typ.Size() != whole.Size {
			t.Errorf("sizeof(%s) = %d, Go %s is %d bytes", cname, whole.Size, typ.Name(), typ.Size())
		}
		if typ.Align() > 8 {
			t.Errorf("%s: alignment %d", typ.Name(), typ.Align())
		}
		if typ.NumField() != cFields[cname] {
			t.Errorf("%s: Go %s has %d fields, the C table %d", cname, typ.Name(), typ.NumField(), cFields[cname])
		}
		for i := range typ.NumField() {
			f := typ.Field(i)
			cf := f.Tag.Get("c")
			cl, ok := c[key{cname, cf}]
			if !ok {
				t.Errorf("%s.%s (Go %s.%s): no such field in the C table", cname, cf, typ.Name(), f.Name)
				continue
			}
			fields++
			if f.Offset != cl.Offset {
				t.Errorf("offsetof(%s, %s) = %d, Go %s.%s is at %d", cname, cf, cl.Offset, typ.Name(), f.Name, f.Offset)
			}
			if f.Type.Size() != cl.Size {
				t.Errorf("sizeof(%s.%s) = %d, Go %s.%s (%s) is %d bytes", cname, cf, cl.Size, typ.Name(), f.Name, f.Type, f.Type.Size())
			}
		}
	}
	for k := range c {
		if _, ok := checkedStructs[k.typ]; !ok {
			t.Errorf("the C table has %s, which Go does not check", k.typ)
		}
	}
	t.Logf("%d structures, %d fields (offset and size) compared with ze_api.h", structs, fields)
}

// TestConstantsMatchHeader compares the structure types, enumerations,
// flags, array sizes and result codes of package ze with the header.
func TestConstantsMatchHeader(t *testing.T) {
	c := cheaders.Constants()
	for _, name := range sortedKeys(checkedConstants) {
		want, ok := c[name]
		if !ok {
			t.Errorf("%s: not in the C constant table (cheaders/layout.go)", name)
			continue
		}
		if got := checkedConstants[name]; got != want {
			t.Errorf("%s = %#x in ze_api.h, %#x in package ze", name, want, got)
		}
	}
	for name := range c {
		if _, ok := checkedConstants[name]; !ok {
			t.Errorf("the C table has %s, which Go does not check", name)
		}
	}
	t.Logf("%d constants compared with ze_api.h (ZE_API_VERSION_CURRENT %d.%d)", len(c), c["ZE_API_VERSION_CURRENT"]>>16, c["ZE_API_VERSION_CURRENT"]&0xffff)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
