# Convenience targets. The Swift package is the source of truth; these only chain its commands.
SWIFT ?= swift
export SWIFT_BACKTRACE ?= enable=no

.PHONY: build release test bench bench-inprocess bench-process bench-config demo clean

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

# Config loading time against the number of steps (5,000 to 80,000): `splashd check`, release build.
bench-config: release
	bash scripts/bench-config.sh .build/release/splashd

demo:
	bash scripts/demo.sh

clean:
	rm -rf .build Benchmarks/.build
