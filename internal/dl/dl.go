package dl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ebitengine/purego"
)

// Library is an opened shared library.
type Library struct {
	// Name is the file name that dlopen accepted.
	Name   string
	handle uintptr
}

// Open tries each name in turn and returns the first library that dlopen
// accepts. When none loads, the error lists every name with dlopen's reason.
func Open(names ...string) (*Library, error) {
	if len(names) == 0 {
		return nil, errors.New("dl: no library names given")
	}
	var reasons []string
	for _, name := range names {
		h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
		if err == nil {
			return &Library{Name: name, handle: h}, nil
		}
		reasons = append(reasons, fmt.Sprintf("%s: %v", name, err))
	}
	return nil, fmt.Errorf("cannot load %s", strings.Join(reasons, "; "))
}

// Lookup returns the address of one exported symbol.
func (l *Library) Lookup(name string) (uintptr, error) {
	addr, err := purego.Dlsym(l.handle, name)
	if err != nil || addr == 0 {
		return 0, fmt.Errorf("%s: symbol %s not found", l.Name, name)
	}
	return addr, nil
}

// LookupFirst returns the address of the first of names that the library
// exports, and that name. The error names the first name.
func (l *Library) LookupFirst(names ...string) (addr uintptr, name string, err error) {
	if len(names) == 0 {
		return 0, "", fmt.Errorf("%s: no symbol names given", l.Name)
	}
	for _, n := range names {
		if addr, err := l.Lookup(n); err == nil {
			return addr, n, nil
		}
	}
	return 0, "", fmt.Errorf("%s: symbol %s not found", l.Name, names[0])
}

// Symbol names one C function and where to store its address.
type Symbol struct {
	Name string
	// Alternates are other names the function may be exported under
	// (versioned or older entry points), tried in order when Name is not.
	Alternates []string
	Addr       *uintptr
	// Optional symbols may be missing (newer entry points); their address
	// is left at zero and callers check it before use.
	Optional bool
}

// Resolve looks up every symbol of the table. It fails on the first
// required symbol that is missing under all its names and leaves optional
// ones at zero.
func (l *Library) Resolve(table []Symbol) error {
	for _, s := range table {
		*s.Addr, _, _ = l.LookupFirst(append([]string{s.Name}, s.Alternates...)...)
		if *s.Addr != 0 || s.Optional {
			continue
		}
		if len(s.Alternates) > 0 {
			return fmt.Errorf("%s: symbol %s not found (nor %s)", l.Name, s.Name, alternatives(s.Alternates))
		}
		return fmt.Errorf("%s: symbol %s not found", l.Name, s.Name)
	}
	return nil
}

// alternatives shortens a long list of names to its ends for a message.
func alternatives(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return names[0] + " ... " + names[len(names)-1]
}

// Close releases the library. Addresses resolved from it must not be used
// afterwards.
func (l *Library) Close() error {
	if l == nil || l.handle == 0 {
		return nil
	}
	err := purego.Dlclose(l.handle)
	l.handle = 0
	return err
}
