package dl

import "sync"

// stdioLib is the C library, opened once for FlushStdio.
var stdioLib struct {
	once   sync.Once
	fflush uintptr
	err    error
}

// FlushStdio calls the C library's fflush(NULL): output that drivers
// wrote through C's stdio (kernel printf on CUDA) and that sits in its
// buffers, as it does when standard output is a pipe or a file, reaches
// the file descriptors before anything the Go program writes afterwards.
func FlushStdio() error {
	stdioLib.once.Do(func() {
		var l *Library
		l, stdioLib.err = Open("libc.so.6", "libc.so", "libSystem.B.dylib")
		if stdioLib.err != nil {
			return
		}
		stdioLib.fflush, stdioLib.err = l.Lookup("fflush")
	})
	if stdioLib.err != nil {
		return stdioLib.err
	}
	var args Args // fflush(NULL) flushes every stream
	Call(stdioLib.fflush, &args)
	return nil
}
