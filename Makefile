# NEE's two entry points for a fresh Debian 12 machine (run as root, or with sudo):
#   make demo   install, build, make a small ONNX model, tune it on this CPU with a short
#               budget, build the bundle, run it with nee-run, check it, print the speed-up
#   make test   install, build (and cross-build the runtime for 64-bit ARM), run the test
#               suite (GoogleTest through CTest)
#   make bench  install, build, compare NEE with OpenBLAS, oneDNN, Adams2019, ONNX Runtime
#               and OpenVINO, kernels and whole models (BENCH_QUICK=1: the short run)
BUILD ?= build
JOBS ?= $(shell nproc)
DEMO_DIR ?= $(BUILD)/demo
DEMO_TIME ?= 3m
BENCH_DIR ?= $(BUILD)/bench-report
BENCH_QUICK ?=

.PHONY: deps build build-arm64 demo test bench clean

deps:
	@bash scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

# nee-run for 64-bit ARM Linux, run by the tests under qemu-user.
build-arm64: deps
	@bash scripts/build-arm64.sh . $(BUILD)/arm64

demo: build
	@bash scripts/demo.sh $(BUILD) $(DEMO_DIR) $(DEMO_TIME)

test: build build-arm64
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	@bash scripts/bench.sh $(BUILD) $(BENCH_DIR) $(if $(BENCH_QUICK),--quick)

clean:
	rm -rf $(BUILD)
