package dl

import (
	"testing"
	"unsafe"
)

func TestCStrings(t *testing.T) {
	c := CString("gour")
	if string(c) != "gour\x00" {
		t.Errorf("CString = %q", c)
	}
	if got := GoString(unsafe.Pointer(&c[0])); got != "gour" {
		t.Errorf("GoString = %q", got)
	}
	if GoString(nil) != "" {
		t.Error("GoString(nil) is not empty")
	}
	if got := BufString([]byte("name\x00garbage")); got != "name" {
		t.Errorf("BufString = %q", got)
	}
	if got := BufString([]byte("full")); got != "full" {
		t.Errorf("BufString without NUL = %q", got)
	}
	if First([]int(nil)) != nil || First([]int{1}) == nil {
		t.Error("First of an empty and a full slice")
	}
	if CStringOrNil("") != nil || string(CStringOrNil("x")) != "x\x00" {
		t.Error("CStringOrNil")
	}
	if CStrings(nil) != nil {
		t.Error("CStrings(nil) is not nil")
	}
	arr := CStrings([]string{"-arch=sm_90", ""})
	if len(arr) != 2 || GoString(unsafe.Pointer(arr[0])) != "-arch=sm_90" || GoString(unsafe.Pointer(arr[1])) != "" {
		t.Errorf("CStrings = %v", arr)
	}
}
