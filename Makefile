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
# CMake 3.31 and Halide 21 from the project's virtual environment (scripts/install-deps.sh).
VENV ?= .venv
CMAKE := $(VENV)/bin/cmake
CTEST := $(VENV)/bin/ctest
# Where the halide wheel keeps its CMake package, found without loading the module; named
# as Halide_DIR too, so a build folder configured for Debian's Halide 14 moves over.
HALIDE_CMAKE = $(shell $(VENV)/bin/python -c "import importlib.util, os; \
  print(os.path.join(importlib.util.find_spec('halide').submodule_search_locations[0], 'lib64', 'cmake'))")

.PHONY: deps build build-arm64 demo test bench clean

deps:
	@bash scripts/install-deps.sh

build: deps
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$(HALIDE_CMAKE) \
	  -DHalide_DIR=$(HALIDE_CMAKE)/Halide >/dev/null
	@$(CMAKE) --build $(BUILD) -j $(JOBS)

# nee-run and nee-measure for 64-bit ARM Linux, run by the tests under qemu-user.
build-arm64: deps
	@CMAKE=$(CMAKE) bash scripts/build-arm64.sh . $(BUILD)/arm64 $(HALIDE_CMAKE)/../../include/HalideRuntime.h

demo: build
	@bash scripts/demo.sh $(BUILD) $(DEMO_DIR) $(DEMO_TIME)

test: build build-arm64
	@cd $(BUILD) && $(abspath $(CTEST)) --output-on-failure -j $(JOBS)

bench: build
	@bash scripts/bench.sh $(BUILD) $(BENCH_DIR) $(if $(BENCH_QUICK),--quick)

clean:
	rm -rf $(BUILD)
