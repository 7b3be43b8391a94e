package trace

import "runtime"

// slowGoid parses the goroutine's id from the first line of its stack,
// "goroutine 17 [running]:" (about a microsecond).
func slowGoid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	var id int64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + int64(c-'0')
	}
	return id
}
