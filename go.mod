module github.com/gour-dev/gour

go 1.25.0

require (
	github.com/ebitengine/purego v0.11.3
	github.com/gofrs/flock v0.13.1
)

require golang.org/x/sys v0.47.0 // indirect
