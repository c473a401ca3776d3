# Convenience targets. The Swift package is the source of truth; these only chain its commands.
SWIFT ?= swift
export SWIFT_BACKTRACE ?= enable=no

.PHONY: check unit deps update-dependencies build first-frame release dist install deb deb-arm64 arm64-toolchain check-arm64 test-arm64 man test test-busy test-vm-busy bench bench-inprocess bench-process bench-config bench-linking bench-renderer bench-app bench-draw bench-kms bench-initramfs bench-boot bench-power-on bench-fresh-demo toml-test demo clean fuzz sanitize

# The fast loop: the debug build and every Swift test (units, adapters, the real binaries end to
# end). Installs nothing and starts no VM or browser; what it needs is `make deps tests` once.
check:
	$(SWIFT) build --build-tests
	$(MAKE) --no-print-directory first-frame
	$(SWIFT) test --skip-build

# The pure modules' tests (machines, graph, protocol, JSON, TOML, themes, reports, the renderer's
# scene): 339 tests in about 6 s once built, for the loop of a change to them. SwiftPM links every
# test target into one bundle, so the build is `check`'s (incremental after the first).
UNIT_TESTS = SplashJSONTests SplashProtocolTests SplashCommandLineTests SplashCoreTests SplashReportsTests SplashSceneTests \
	SplashConfigTests SplashThemeTests SplashLinesTests
unit:
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --filter '^($(shell echo $(UNIT_TESTS) | tr ' ' '|'))\.'

# Installs what this machine lacks: `make deps` for everything (README's test command), or for one
# purpose, `make deps PURPOSE="demo"` (build, demo, tests, vm, packages: scripts/setup.sh).
PURPOSE ?= all
deps:
	bash scripts/setup.sh $(PURPOSE)

# Package.resolved (and Fuzz/'s) pin every dependency to a version and commit: two builds of one
# commit ship the same code. Moved on purpose, in a commit of its own, by this target: the newest
# versions Package.swift allows (docs/packaging.md, "Dependencies").
update-dependencies:
	$(SWIFT) package update
	cd Fuzz && $(SWIFT) package update
	git diff --stat -- Package.resolved Fuzz/Package.resolved

build:
	$(SWIFT) build
	$(MAKE) first-frame

# splashd-kms-first-frame (helpers/): C on the C library alone (the kernel's DRM interface, no
# libdrm), so that it starts in milliseconds where the Swift renderer takes a second; it shows the
# first-frame cache and becomes splashd-kms (docs/renderer-kms.md, "From power-on"). Built beside
# the Swift binaries: the debug build's directory, or the one FIRST_FRAME_BUILD names
# ("-c release", or `dist`'s). A C executable target of the package would carry the Swift runtime
# (8.7 MB, statically linked).
FIRST_FRAME_BUILD ?=
FIRST_FRAME_CC ?= $(shell command -v cc >/dev/null 2>&1 && echo cc || echo clang)
FIRST_FRAME_CFLAGS = -std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wconversion -Wno-sign-conversion -I/usr/include/libdrm
first-frame:
	bin=$$($(SWIFT) build --show-bin-path $(FIRST_FRAME_BUILD)) && mkdir -p "$$bin" && \
		$(FIRST_FRAME_CC) $(FIRST_FRAME_CFLAGS) -o "$$bin/splashd-kms-first-frame" helpers/splashd-kms-first-frame.c

# Release binaries of splashd, splashctl, splashd-web, splashd-otel and splashd-kms in .build/release
# (dynamically linked against the Swift runtime): the development release build, which
# bench-draw and bench-kms measure. splashd is splashctl too, when called by that name; the
# separate splashctl is for development.
release:
	$(SWIFT) build -c release --product splashd
	$(SWIFT) build -c release --product splashctl
	$(SWIFT) build -c release --product splashd-web
	$(SWIFT) build -c release --product splashd-otel
	$(SWIFT) build -c release --product splashd-kms
	$(MAKE) first-frame FIRST_FRAME_BUILD="-c release"

# The shipping binaries, in their own build directory, $(DIST_BIN) (scratch path .build/dist), so
# that no other target overwrites them: the Swift runtime linked in (--static-swift-stdlib), so they
# run on a Debian 12 system without the Swift toolchain (design §11). `install`, `deb` and the
# benchmarks of the shipping build take them from there.
# Four: the package's splashctl is a link to splashd (one executable, called by either name).
# They export no symbols (packaging/executable-symbols.map), and are linked by lld with packed
# relative relocations (RELR, glibc 2.36+): smaller, faster to start, less memory (docs/benchmarks.md,
# "Start-up"); without DWARF unwind tables (packaging/no-unwind-tables.ld: 16 % of the daemon, which
# nothing unwinds with at run time; docs/benchmarks.md, "Package sizes").
DIST_SCRATCH = .build/dist
DIST_BIN = $(DIST_SCRATCH)/release
DIST_FLAGS = --scratch-path $(DIST_SCRATCH) -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
	-Xlinker --version-script=$(CURDIR)/packaging/executable-symbols.map \
	-Xlinker $(CURDIR)/packaging/no-unwind-tables.ld -Xlinker --no-eh-frame-hdr
dist:
	$(SWIFT) build -c release --static-swift-stdlib --product splashd $(DIST_FLAGS)
	$(SWIFT) build -c release --static-swift-stdlib --product splashd-web $(DIST_FLAGS)
	$(SWIFT) build -c release --static-swift-stdlib --product splashd-otel $(DIST_FLAGS)
	$(SWIFT) build -c release --static-swift-stdlib --product splashd-kms $(DIST_FLAGS)
	$(MAKE) first-frame FIRST_FRAME_BUILD="-c release --scratch-path $(DIST_SCRATCH)"

# Installs everything under DESTDIR: binaries (stripped), units, sysusers and tmpfiles snippets,
# journal catalog, shipped plugins, the page and themes, man pages, completions, docs, and
# /etc/splashd/splashd.toml unless one exists (docs/packaging.md has the table). BINARIES=DIR takes
# the prebuilt binaries (splashd, splashd-web, splashd-otel, splashd-kms, splashd-kms-first-frame) from DIR; without it, `dist`
# builds them first.
PREFIX ?= /usr
SYSCONFDIR ?= /etc
DESTDIR ?=
BINARIES ?=
install: $(if $(BINARIES),,dist)
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" SYSCONFDIR="$(SYSCONFDIR)" \
		bash scripts/install.sh "$(or $(BINARIES),$(DIST_BIN))"

# dist/splashd{,-web,-otel,-kms}_VERSION_ARCH.deb and dist/splashd-themes_VERSION_all.deb from
# `make install` into a staging tree (docs/packaging.md).
deb: $(if $(BINARIES),,dist)
	bash scripts/deb.sh "$(or $(BINARIES),$(DIST_BIN))"

# The same packages for arm64, in dist/arm64/ (docs/packaging.md, "arm64"), built here from Debian's
# archive alone: Swift 6.2.3 from Debian sid in a chroot, against Debian 12 for arm64, both made
# once and kept in ARM64_CACHE (`arm64-toolchain`, scripts/arm64/prepare.sh). Needs root and
# `make deps PURPOSE=arm64`. The binaries are in .build/arm64 (scripts/arm64/build.sh).
export ARM64_CACHE ?= /var/cache/splashd-arm64
export ARM64_SCRATCH ?= $(CURDIR)/.build/arm64
ARM64_BIN = $(ARM64_SCRATCH)/aarch64-unknown-linux-gnu/release
arm64-toolchain:
	bash scripts/arm64/prepare.sh
deb-arm64: arm64-toolchain
	bash scripts/arm64/build.sh
	DEB_ARCH=arm64 DEB_OUT=dist/arm64 TARGET_ROOT=$(ARM64_CACHE)/target STRIP=aarch64-linux-gnu-strip \
		TARGET_RUN="qemu-aarch64-static -L $(ARM64_CACHE)/target" bash scripts/deb.sh $(ARM64_BIN)

# The whole Swift test suite built for arm64 by Swift 6.2.3 and run under qemu-user, each
# failure one of Tests/arm64/suite-exceptions.txt's named ones (scripts/arm64/suite.sh).
check-arm64: arm64-toolchain
	bash scripts/arm64/suite.sh

# Every arm64 test: the Swift suite (check-arm64), the packages' programs under qemu-user (a
# whole launch among them), and the native renderer in an arm64 virtual machine
# (scripts/arm64/vmroot.sh's Debian 12 arm64 root, its kernel, a virtio GPU of two outputs): the
# hand-off, screenshots, the update and shutdown views (docs/benchmarks.md, "arm64"), the
# firmware's logo under AAVMF, and the packages booted with systemd as PID 1, the app watch
# recovering a killed app. README's test command runs the hand-off of these.
test-arm64: deb-arm64 check-arm64
	ARM64_DIST=dist/arm64 ARM64_TARGET=$(ARM64_CACHE)/target python3 -m pytest -q -p no:cacheprovider Tests/arm64
	bash scripts/arm64/vmroot.sh
	ARM64_BIN_DIR=$(ARM64_BIN) python3 -m pytest -q -p no:cacheprovider Tests/vm/test_kms_arm64.py Tests/vm/test_kms_firmware_arm64.py
	ARM64_DIST=dist/arm64 python3 -m pytest -q -p no:cacheprovider Tests/vm/test_kms_systemd_arm64.py

# Regenerates the man pages of the five commands with swift-argument-parser's generate-manual
# plugin (a debug build of the package); PackagingTests say when they are out of date.
man:
	bash scripts/man.sh

test:
	bash scripts/test.sh

# README's test command on a busy machine: stress-ng keeps every core busy beside it (no test may
# depend on the machine's pace; docs/hardening.md, "A busy machine"). Not in CI: it takes about
# twice as long.
test-busy:
	bash scripts/busy.sh bash scripts/test.sh

# The VM tests VM_RUNS times (default 5) with the same hog beside them.
VM_RUNS ?= 5
test-vm-busy:
	bash scripts/busy.sh bash scripts/repeat-vm.sh $(VM_RUNS)

# Every benchmark: the in-process suite (package-benchmark, Benchmarks/) then the whole-process
# script. Results to compare with docs/benchmarks.md. BENCH_QUICK=1 runs fewer iterations.
bench: bench-inprocess bench-process

bench-inprocess:
	cd Benchmarks && $(SWIFT) package --disable-sandbox benchmark --no-progress

bench-process: dist
	bash scripts/bench.sh $(DIST_BIN)/splashd

# The page's smoothness: frames dropped during the indicator, the fade, each entry and the reveal
# at 1920x1080 in headless Chromium, against the debug splashd and splashd-web (docs/benchmarks.md,
# "The page's animations").
bench-renderer: build
	cd Tests/browser && python3 bench_renderer.py

# The app's life (design §14): the daemon's wake-ups and CPU while it watches a healthy app, and the
# time from the app's death to the splash's first state (docs/benchmarks.md, "The app's life").
bench-app: dist
	/usr/bin/python3 scripts/bench-app.py $(DIST_BIN)/splashd

# The native renderer's drawing: one frame of the reference theme drawn in memory at 1920x1080 and
# 3840x2160 (entry, still, slow, error), the development release build in .build/release
# (docs/benchmarks.md, "The native renderer's drawing").
bench-draw:
	$(SWIFT) build -c release --product draw-bench
	.build/release/draw-bench renderer/themes/reference

# The native renderer in a virtual machine (Debian's kernel, QEMU TCG, a two-output virtio GPU): from
# its start to the first frame beside the kernel's boot time, its RSS, and its wake-ups while nothing
# moves (docs/benchmarks.md, "The native renderer in a virtual machine"). The development release
# build in .build/release (the Swift runtime dynamically linked), not the shipping one.
bench-kms:
	$(SWIFT) build -c release --product splashd
	$(SWIFT) build -c release --product splashd-kms
	$(SWIFT) build -c release --product splashctl
	SPLASHD_BIN_DIR=$(CURDIR)/.build/release python3 Tests/vm/bench_kms.py

# What the splash adds to an initramfs (design §16): mkinitramfs with splashd-kms's hook, the shipped
# binary, an SVG-logo theme and a firmware-logo one (docs/benchmarks.md, "The initramfs").
bench-initramfs: dist
	SPLASHD_BIN_DIR=$(CURDIR)/$(DIST_BIN) python3 Tests/vm/bench_initramfs.py

# splashd-kms against Debian 12's Plymouth (DRM renderer, two-step) on the same virtual GPU, a
# fresh VM per run, three runs each alternating (BENCH_BOOT_RUNS=N for more): program start to the
# first frame on every output, to the splash drawn in full, resident memory while showing, CPU and
# wake-ups once shown (docs/benchmarks.md, "From power-on, against Plymouth"). Plymouth's packages
# are downloaded and unpacked under .build/bench-boot, never installed. The shipping build.
bench-boot: dist
	SPLASHD_BIN_DIR=$(CURDIR)/$(DIST_BIN) python3 Tests/vm/bench_boot.py

# From power-on to the app as a person sees it (design §16): a filmstrip of the VM's two outputs
# from QEMU's start (UEFI firmware, its logo) to the app's first frame, for Plymouth from Debian's
# initramfs, splashd with the splashd-kms initramfs hook, and splashd with its units alone (a first
# boot and one with the first-frame cache); the packages installed in an image, systemd as PID 1.
# Three boots each (POWER_ON_RUNS=N), a table; the strips in .build/power-on (docs/power-on.md).
bench-power-on: deb
	SPLASHD_DIST=$(CURDIR)/dist python3 Tests/vm/power_on.py

# Config loading time against the number of steps (5,000 to 80,000): `splashd check`, release build.
bench-config: dist
	bash scripts/bench-config.sh $(DIST_BIN)/splashd

# The two ways to ship without the toolchain, side by side: the Swift runtime linked statically
# (what ships) or private libraries with a relative runpath. Sizes, package size, cold start, RSS.
# The static build has its own scratch path, so `release`'s binaries are not overwritten.
bench-linking:
	$(SWIFT) build -c release --product splashd
	$(SWIFT) build -c release --product splashctl
	mkdir -p .build/linking/dynamic .build/linking/static
	cp .build/release/splashd .build/release/splashctl .build/linking/dynamic/
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/linking/build --product splashd
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/linking/build --product splashctl
	cp .build/linking/build/release/splashd .build/linking/build/release/splashctl .build/linking/static/
	bash scripts/bench-linking.sh .build/linking/static .build/linking/dynamic

# README's demo on a fresh Debian 12 (debootstrap, then one overlay and container per revision):
# root. PACKAGES is the machine image's package list (`apt NAME VERSION` lines); REVS what to time,
# each REV:PURPOSE (setup.sh's), default the working tree's HEAD with `demo`.
REVS ?= HEAD:demo
bench-fresh-demo:
	@test -n "$(PACKAGES)" || { echo "make bench-fresh-demo: set PACKAGES to the image's package list" >&2; exit 2; }
	bash scripts/bench-fresh-demo.sh $(PACKAGES) $(REVS)

# The TOML reader against the official conformance suite (https://github.com/toml-lang/toml-test)
# through its decoder interface. Needs the `toml-test` runner on PATH, a Go program (see
# docs/configuration.md); its 1.x releases test TOML 1.0 by default.
toml-test:
	$(SWIFT) build --product toml-test-decoder
	@command -v toml-test >/dev/null || { echo "make toml-test: the toml-test runner is not installed (docs/configuration.md)" >&2; exit 1; }
	toml-test ./.build/debug/toml-test-decoder

demo:
	bash scripts/demo.sh

clean:
	rm -rf .build Benchmarks/.build dist

# libFuzzer: every fuzz target of Fuzz/ for FUZZ_SECONDS each (or FUZZ_RUNS executions each:
# `make fuzz FUZZ_RUNS=10000000` is the long run). FUZZ_ARGS=--address adds AddressSanitizer.
FUZZ_SECONDS ?= 300
FUZZ_RUNS ?=
fuzz:
	bash scripts/fuzz.sh $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS),--seconds $(FUZZ_SECONDS)) $(FUZZ_ARGS)

# The whole test suite under ThreadSanitizer, then under AddressSanitizer (separate builds;
# README's test command only builds the ThreadSanitizer one).
sanitize:
	bash scripts/sanitize.sh thread address
