# Convenience targets. The Swift package is the source of truth; these only chain its commands.
SWIFT ?= swift
export SWIFT_BACKTRACE ?= enable=no

.PHONY: build release test bench bench-inprocess bench-process demo clean fuzz sanitize

build:
	$(SWIFT) build

# Release binaries of splashd and splashctl in .build/release (dynamically linked against the Swift runtime).
release:
	$(SWIFT) build -c release --product splashd
	$(SWIFT) build -c release --product splashctl

test:
	bash scripts/test.sh

# Every benchmark: the in-process suite (package-benchmark, Benchmarks/) then the whole-process
# script. Results to compare with docs/benchmarks.md. BENCH_QUICK=1 runs fewer iterations.
bench: bench-inprocess bench-process

bench-inprocess:
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark --no-progress

bench-process: release
	bash scripts/bench.sh .build/release/splashd

demo:
	bash scripts/demo.sh

clean:
	rm -rf .build Benchmarks/.build

# libFuzzer: every fuzz target of Fuzz/ for FUZZ_SECONDS each (or FUZZ_RUNS executions each:
# `make fuzz FUZZ_RUNS=10000000` is the long run). FUZZ_ARGS=--address adds AddressSanitizer.
FUZZ_SECONDS ?= 300
FUZZ_RUNS ?=
fuzz:
	bash scripts/fuzz.sh $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS),--seconds $(FUZZ_SECONDS)) $(FUZZ_ARGS)

# The whole test suite under ThreadSanitizer, then under AddressSanitizer (separate builds).
sanitize:
	bash scripts/sanitize.sh thread address
