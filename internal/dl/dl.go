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

// Symbol names one C function and where to store its address.
type Symbol struct {
	Name string
	Addr *uintptr
	// Optional symbols may be missing (newer entry points); their address
	// is left at zero and callers check it before use.
	Optional bool
}

// Resolve looks up every symbol of the table. It fails on the first
// required symbol that is missing and leaves optional ones at zero.
func (l *Library) Resolve(table []Symbol) error {
	for _, s := range table {
		addr, err := l.Lookup(s.Name)
		if err != nil {
			if s.Optional {
				*s.Addr = 0
				continue
			}
			return err
		}
		*s.Addr = addr
	}
	return nil
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
