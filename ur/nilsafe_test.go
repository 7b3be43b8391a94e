package ur

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// handles is every handle type the package gives out, as a nil pointer.
// TestHandleListIsComplete keeps it complete.
var handles = []any{
	(*Adapter)(nil), (*Platform)(nil), (*Device)(nil), (*Context)(nil), (*Queue)(nil),
	(*Mem)(nil), (*Program)(nil), (*Kernel)(nil), (*Event)(nil), (*PreparedLaunch)(nil), (*ArgLaunch)(nil),
	(*System)(nil), (*USM)(nil), (*Pool)(nil), (*HostRegistration)(nil), (*CommandBuffer)(nil),
	(*VirtualMem)(nil), (*PhysicalMem)(nil), (*Sampler)(nil), (*IPCEvent)(nil),
}

// TestHandleListIsComplete fails when a type of the package that embeds
// object, the part every handle shares, is missing from handles: the
// walks below would not cover its methods.
func TestHandleListIsComplete(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, h := range handles {
		listed = append(listed, reflect.TypeOf(h).Elem().Name())
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok || !ts.Name.IsExported() {
				return true
			}
			for _, field := range st.Fields.List {
				if id, ok := field.Type.(*ast.Ident); ok && len(field.Names) == 0 && id.Name == "object" && !slices.Contains(listed, ts.Name.Name) {
					t.Errorf("handle type %s is not in handles: add it, so that its methods are checked on nil and released handles", ts.Name.Name)
				}
			}
			return true
		})
	}
}

// callZero calls method m of recv with the zero value of every argument
// (and no variadic ones), returning its results or what it panicked with.
func callZero(recv reflect.Value, m reflect.Method) (out []reflect.Value, panicked any) {
	defer func() { panicked = recover() }()
	ft := m.Type // receiver first
	args := []reflect.Value{recv}
	for i := 1; i < ft.NumIn(); i++ {
		args = append(args, reflect.Zero(ft.In(i)))
	}
	if ft.IsVariadic() {
		return m.Func.CallSlice(args), nil
	}
	return m.Func.Call(args), nil
}

var errorType = reflect.TypeFor[error]()

// lastError returns a method's error result, if its last result is one.
func lastError(out []reflect.Value) (err error, has bool) {
	if len(out) == 0 || out[len(out)-1].Type() != errorType {
		return nil, false
	}
	err, _ = out[len(out)-1].Interface().(error)
	return err, true
}

// walkMethods calls every exported method of h with zero arguments and
// hands each result to check; a panic fails the test.
func walkMethods(t *testing.T, h any, check func(t *testing.T, name string, out []reflect.Value)) {
	v := reflect.ValueOf(h)
	typ := v.Type()
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		name := typ.Elem().Name() + "." + m.Name
		t.Run(name, func(t *testing.T) {
			out, p := callZero(v, m)
			if p != nil {
				t.Fatalf("%s panicked: %v", name, p)
			}
			check(t, name, out)
		})
	}
}

// Every exported method of every handle type is safe on a nil receiver:
// a method that can fail says ErrInvalidNullHandle, Native gives 0, the
// others a zero value.
func TestNilHandlesNeverPanic(t *testing.T) {
	for _, h := range handles {
		walkMethods(t, h, func(t *testing.T, name string, out []reflect.Value) {
			if err, has := lastError(out); has && !errors.Is(err, ErrInvalidNullHandle) {
				t.Errorf("%s on nil = %v, want ErrInvalidNullHandle", name, err)
			}
			if strings.HasSuffix(name, ".Native") && out[0].Uint() != 0 {
				t.Errorf("%s on nil = %#x, want 0", name, out[0].Uint())
			}
		})
	}
}

// releasedHandles returns one handle of each releasable type, each
// released. Their adapter objects are nil interfaces: a method that
// reaches the adapter after a release panics, and fails the walk.
func releasedHandles(t *testing.T) []any {
	d := fakeDevices()[0]
	p, a := d.platform, d.platform.adapter
	ctx := &Context{object: object{adapter: a}, devices: []*Device{d}}
	q := &Queue{object: object{adapter: a}, ctx: ctx, device: d}
	m := &Mem{object: object{adapter: a}, ctx: ctx, size: 64}
	prog := &Program{object: object{adapter: a}, ctx: ctx}
	k := &Kernel{object: object{adapter: a}, ctx: ctx, program: prog, name: "k"}
	ev := &Event{object: object{adapter: a}, queue: q}
	pl, err := q.PrepareLaunch(k, Range1D(64))
	if err != nil {
		t.Fatal(err)
	}
	pool := &Pool{object: object{adapter: a}, ctx: ctx, dev: d}
	usm := &USM{object: object{adapter: a}, ctx: ctx, kind: USMDevice, dev: d, addr: 0x1000, size: 64, owned: true}
	reg := &HostRegistration{object: object{adapter: a}, ctx: ctx}
	cb := &CommandBuffer{object: object{adapter: a}, ctx: ctx, dev: d}
	al, err := q.PrepareLaunchArgs(k, Range1D(64), LaunchProperties{})
	if err != nil {
		t.Fatal(err)
	}
	vm := &VirtualMem{object: object{adapter: a}, ctx: ctx, base: 0x2000, size: 64, gran: 64}
	pm := &PhysicalMem{object: object{adapter: a}, ctx: ctx, dev: d, size: 64}
	smp := &Sampler{object: object{adapter: a}, ctx: ctx}
	ipcEv := &IPCEvent{object: object{adapter: a}, ctx: ctx, dev: d}
	all := []any{pl, ev, k, prog, m, q, ctx, d, p, a, pool, usm, reg, cb, al, vm, pm, smp, ipcEv}
	for _, h := range all {
		var err error
		switch h := h.(type) {
		case interface{ Release() error }:
			err = h.Release()
		case *USM:
			err = h.Free()
		}
		if err != nil {
			t.Fatalf("releasing %T: %v", h, err)
		}
	}
	return all
}

// Every exported method of a released handle gives a typed error, or for
// Native 0, and never reaches the adapter's freed object.
func TestReleasedHandlesGiveTypedErrors(t *testing.T) {
	released := releasedHandles(t)
	for _, h := range handles {
		i := slices.IndexFunc(released, func(r any) bool { return reflect.TypeOf(r) == reflect.TypeOf(h) })
		if i < 0 {
			if _, ok := h.(interface{ Release() error }); ok {
				t.Errorf("%T has a Release method but releasedHandles makes none", h)
			}
			continue
		}
		walkMethods(t, released[i], func(t *testing.T, name string, out []reflect.Value) {
			if err, has := lastError(out); has {
				var e *Error
				if !errors.As(err, &e) || e.Result == ErrUnknown {
					t.Errorf("%s on a released handle = %v, want a typed error", name, err)
				}
			}
			if strings.HasSuffix(name, ".Native") && out[0].Uint() != 0 {
				t.Errorf("%s on a released handle = %#x, want 0", name, out[0].Uint())
			}
		})
	}
}

// The released walk sees the handle's own error, not one of its zero
// arguments: check a few by name.
func TestReleasedHandleErrorsNameTheHandle(t *testing.T) {
	released := releasedHandles(t)
	pl, ev, k, prog, m, q, ctx := released[0].(*PreparedLaunch), released[1].(*Event), released[2].(*Kernel),
		released[3].(*Program), released[4].(*Mem), released[5].(*Queue), released[6].(*Context)
	for _, tt := range []struct {
		err  error
		want Result
	}{
		{pl.Launch(), ErrInvalidValue},
		{func() error { _, err := ev.Status(); return err }(), ErrInvalidEvent},
		{k.SetArgUint32(0, 1), ErrInvalidKernel},
		{func() error { _, err := prog.NewKernel("k"); return err }(), ErrInvalidProgram},
		{q.WriteBuffer(m, 0, []byte{1}), ErrInvalidQueue},
		{func() error { _, err := ctx.NewBuffer(MemReadWrite, 64); return err }(), ErrInvalidContext},
	} {
		if !errors.Is(tt.err, tt.want) || !strings.Contains(tt.err.Error(), "released") {
			t.Errorf("%v, want %v saying the handle was released", tt.err, tt.want)
		}
	}
}

// TestHandlesAreLeakChecked fails when a handle's release function is set
// without its creation recorded (object.created) just before: the leak
// check would not see that kind of handle. A free that wraps another
// (inner := x.life.free) or follows newUSM, which records the USM, is
// covered already.
func TestHandlesAreLeakChecked(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	// Sub-devices of Device.Partition are released by Device.Release but
	// not leak-checked yet.
	exempt := map[string]bool{"multidevice.go": true}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || exempt[name] {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			if !strings.Contains(line, ".life.free = ") {
				continue
			}
			ok := false
			for j := max(i-4, 0); j < i; j++ {
				if strings.Contains(lines[j], ".created(\"") || strings.Contains(lines[j], "newUSM(") || strings.Contains(lines[j], "inner := ") {
					ok = true
				}
			}
			if !ok {
				t.Errorf("%s:%d: a handle's free is set without created(\"Kind\") beside it: the leak check does not see it", name, i+1)
			}
		}
	}
}
