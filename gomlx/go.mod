module github.com/gour-dev/gour/gomlx

go 1.26.0

require (
	github.com/gomlx/compute v0.1.35
	github.com/gour-dev/gour v0.0.0
	github.com/pkg/errors v0.9.1
)

require (
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/gofrs/flock v0.13.1 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	golang.org/x/exp v0.0.0-20260908205506-85c1c2202aba // indirect
	golang.org/x/sys v0.47.0 // indirect
	gonum.org/v1/gonum v0.16.0 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
)

// The backend is built against the gour of this repository.
replace github.com/gour-dev/gour => ../
