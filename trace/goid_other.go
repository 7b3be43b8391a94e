//go:build !amd64 && !arm64

package trace

func goid() int64 { return slowGoid() }
