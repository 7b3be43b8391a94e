# gour's entry points. `make demo` shows it working; `make test` is what CI
# runs (.ci/run). Everything assumes Debian or Ubuntu for `deps`; the other
# targets only need Go, and a C compiler for -race and the C benchmark.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO ?= go

# The test run: the OpenCL adapter must load and find a device (PoCL), so
# that the run cannot pass by skipping; PoCL's own kernel cache is off so
# that tests of cold builds measure cold builds. The Level Zero loader must
# load too (there is no Level Zero driver or device: the tests check that
# the adapter says so). redis-server must start too: the remote cache
# tier's tests start their own and would otherwise skip. So must clang-15
# and llvm-spirv-15, which compile OpenCL C to SPIR-V for Level Zero, and
# CLBlast (libclblast1), whose backend of package blas would otherwise go
# untested.
# Leak checking is on: the conformance suite, compute, the examples and
# urdemo fail on a handle never released (their TestMain, ur/leaktest).
TEST_ENV := CGO_ENABLED=1 UR_REQUIRE_ADAPTERS=opencl POCL_KERNEL_CACHE=0 GOUR_REQUIRE_ZE_LOADER=1 GOUR_REQUIRE_REDIS=1 GOUR_REQUIRE_SPIRV_COMPILER=1 GOUR_REQUIRE_CLBLAST=1 GOUR_LEAK_CHECK=1

# An adapter written outside gour's module, against its public driver API,
# in a Go module of its own: `make test` vets, builds and tests it too.
EXAMPLE_ADAPTER := examples/adapter

.PHONY: help
help:
	@echo "make deps                install the OpenCL ICD loader, PoCL, gcc, the Level Zero loader and headers, redis-server, clang-15 and llvm-spirv-15 (Debian/Ubuntu; only what is missing)"
	@echo "make demo                deps, then run cmd/urdemo: list devices, run axpy on the default device"
	@echo "make test                deps, then gofmt, go vet, CGO_ENABLED=0 build, staticcheck if installed, go test -race,"
	@echo "                         the Level Zero struct layouts against ze_api.h (go test -tags zeheaders),"
	@echo "                         and the same checks of examples/adapter, a module of its own"
	@echo "make spirv               regenerate the conformance SPIR-V from the OpenCL C kernels (needs clang-15, llvm-spirv-15)"
	@echo "make bench               the launch benchmark: gour vs C on PoCL (scripts/bench/launch.sh)"
	@echo "make build-device-tests  test binaries and tools in bin/, for a machine without Go"

.PHONY: deps
deps:
	@scripts/deps.sh

.PHONY: demo
demo: deps
	POCL_KERNEL_CACHE=0 $(GO) run ./cmd/urdemo

.PHONY: test
test: deps
	@echo "== gofmt"
	@unformatted=$$(gofmt -l .); \
	if [[ -n $$unformatted ]]; then echo "gofmt -l lists these files; run gofmt -w:"; echo "$$unformatted"; exit 1; fi
	@echo "== go vet"
	$(GO) vet ./...
	@echo "== internal/harness/testenv only in _test.go files (code that runs outside go test uses internal/harness/devreq)"
	@users=$$($(GO) list -f '{{range .Imports}}{{if eq . "$(MODULE)/internal/harness/testenv"}}{{$$.ImportPath}}{{"\n"}}{{end}}{{end}}' ./...); \
	if [[ -n $$users ]]; then echo "these packages import internal/harness/testenv outside their _test.go files:"; echo "$$users"; exit 1; fi
	@echo "== build without cgo"
	CGO_ENABLED=0 $(GO) build ./...
	@echo "== staticcheck"
	@if command -v staticcheck >/dev/null 2>&1; then staticcheck ./...; \
	else echo "staticcheck not installed: skipped"; fi
	@echo "== go test -race"
	$(TEST_ENV) $(GO) test -race -count=1 ./...
	@echo "== the soak again, with PoCL's kernel cache on (the run above has it off)"
	$(TEST_ENV) POCL_KERNEL_CACHE=1 $(GO) test -race -count=1 -run Soak ./soak/ -soak.duration=15s
	@echo "== Level Zero struct layouts and constants against ze_api.h (cgo, libze-dev)"
	CGO_ENABLED=1 $(GO) test -count=1 -tags zeheaders ./adapters/levelzero/internal/ze/
	@echo "== the conformance suite, and compute, programmgr, gokernel's and GPT-2's OpenCL C through SPIR-V, on Level Zero, through the loader, over the test driver (not hardware: docs/conformance.md)"
	fake=$$(mktemp -d)/libze_gour_fake.so && cc -shared -fPIC -O1 -o $$fake adapters/levelzero/testdata/fakedriver/ze_fake_driver.c && \
	ZE_ENABLE_ALT_DRIVERS=$$fake ONEAPI_DEVICE_SELECTOR='level_zero:*' UR_REQUIRE_ADAPTERS=level_zero GOUR_LEAK_CHECK=1 $(GO) test -race -count=1 ./conformance/ && \
	ZE_ENABLE_ALT_DRIVERS=$$fake ONEAPI_DEVICE_SELECTOR='level_zero:*' UR_REQUIRE_ADAPTERS=level_zero GOUR_REQUIRE_SPIRV_COMPILER=1 GOUR_LEAK_CHECK=1 $(GO) test -race -count=1 -run LevelZero ./compute/ ./programmgr/ ./blas/ && \
	ZE_ENABLE_ALT_DRIVERS=$$fake ONEAPI_DEVICE_SELECTOR='level_zero:*' UR_REQUIRE_ADAPTERS=level_zero GOUR_REQUIRE_SPIRV_COMPILER=1 GOUR_LEAK_CHECK=1 $(GO) test -race -count=1 -run BuildLevelZero ./gokernel/ ./models/gpt2/
	@echo "== examples/adapter, an adapter in a module of its own (go test ./... above does not enter it)"
	cd $(EXAMPLE_ADAPTER) && $(GO) vet ./...
	cd $(EXAMPLE_ADAPTER) && CGO_ENABLED=0 $(GO) build ./...
	@if command -v staticcheck >/dev/null 2>&1; then cd $(EXAMPLE_ADAPTER) && staticcheck ./...; fi
	cd $(EXAMPLE_ADAPTER) && $(TEST_ENV) $(GO) test -race -count=1 ./...
	@echo "== gomlx: gour as a GoMLX backend under GoMLX's own backend suite, a module of its own on Go 1.26 (go test ./... above does not enter it)"
	cd gomlx && $(GO) vet ./...
	cd gomlx && CGO_ENABLED=0 $(GO) build ./...
	@if command -v staticcheck >/dev/null 2>&1; then cd gomlx && staticcheck ./...; fi
	cd gomlx && $(TEST_ENV) $(GO) test -race -count=1 ./...

.PHONY: spirv
spirv:
	scripts/spirv.sh

.PHONY: bench
bench: deps
	scripts/bench/launch.sh

# Test binaries of every package under conformance/, adapters/, examples/,
# blas/, compute/, soak/, gokernel/ and models/ that has tests, named after the package path
# (bin/adapters-opencl.test), the example adapter's (bin/cltrace.test: the
# conformance suite through a proxy of OpenCL), the GoMLX backend's
# (bin/gomlx.test), the commands and the benchmark tools that
# scripts/gpt2/run.sh, scripts/bench/gokernels/run.sh, scripts/gomlx/run.sh
# and scripts/gpu-soak.sh run. Built
# without cgo, so they run on any Linux of the same architecture, from any
# directory (the conformance suite's device code is embedded).
DEVICE_TEST_PKGS = $(shell $(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./conformance/... ./adapters/... ./examples/... ./blas/... ./compute/... ./soak/... ./gokernel/... ./models/...)
# Without symbol tables: bin/ must stay under what travels to a GPU machine.
DEVICE_LDFLAGS := -ldflags='-s -w'
MODULE = $(shell $(GO) list -m)

.PHONY: build-device-tests
build-device-tests:
	@mkdir -p bin
	@for pkg in $(DEVICE_TEST_PKGS); do \
		rel=$${pkg#$(MODULE)/}; out=bin/$${rel//\//-}.test; \
		echo "CGO_ENABLED=0 $(GO) test $(DEVICE_LDFLAGS) -c -o $$out ./$$rel"; \
		CGO_ENABLED=0 $(GO) test $(DEVICE_LDFLAGS) -c -o "$$out" "./$$rel"; \
	done
	cd $(EXAMPLE_ADAPTER) && CGO_ENABLED=0 $(GO) test $(DEVICE_LDFLAGS) -c -o $(CURDIR)/bin/cltrace.test ./cltrace
	CGO_ENABLED=0 $(GO) build $(DEVICE_LDFLAGS) -o bin/ ./cmd/... ./scripts/bench/golaunch ./scripts/bench/gonumsolve
	CGO_ENABLED=0 $(GO) build $(DEVICE_LDFLAGS) -o bin/gokernels-bench ./scripts/bench/gokernels
	cd gomlx && CGO_ENABLED=0 $(GO) test $(DEVICE_LDFLAGS) -c -o $(CURDIR)/bin/gomlx.test .
