module github.com/gour-dev/gour/examples/adapter

go 1.25.0

require (
	github.com/ebitengine/purego v0.11.3
	github.com/gour-dev/gour v0.0.0
)

// The adapter is built against the gour of this repository.
replace github.com/gour-dev/gour => ../..
