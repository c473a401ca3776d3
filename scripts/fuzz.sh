#!/usr/bin/env bash
# Builds the libFuzzer executable of Fuzz/ and runs each target, seeded with the committed corpus.
#
#   scripts/fuzz.sh [--seconds N | --runs N] [--max-len BYTES] [--address] [--seed N] [--debug] [TARGET ...]
#
# --seconds N   run each target for N seconds (default 60)
# --runs N      run each target for N executions instead (e.g. 10000000 for the long run)
# --max-len B   the longest input libFuzzer makes (default 65536: TOML nested 30,000 deep is 60 KB;
#               4096 runs several times faster once the corpus has grown)
# --address     also build with AddressSanitizer (slower; a separate build in Fuzz/.build-asan)
# --seed N      libFuzzer's seed (CI uses a fixed one, so a brief run is repeatable)
# --debug       build without optimization: a third less processor time to build, and each input
#               runs slower (README's test command's brief run, where the build is most of it)
# TARGET        request toml config manifest plugin-output session counter history config-cache deep-link
#               web-http web-frames otel-cursor otel-records theme first-frame psplash-fifo uevent first-frame-index
#               (default: all; first-frame-index is splashd-kms-first-frame's index reader, C, built
#               with clang's -fsanitize=fuzzer,address,undefined from helpers/)
#
# The working corpus grows in Fuzz/.build/corpus/TARGET (not committed); an input that crashes,
# leaks or runs too long is written to Fuzz/.build/findings/TARGET/ and makes the script fail: fix
# it and commit the input to Fuzz/regressions/TARGET/, which the ordinary tests replay. Prints one
# line per target: executions, executions per second, corpus size, result.
#
# FUZZ_SCRATCH: the build's directory (default Fuzz/.build; README's test command keeps it in its
# build cache). The corpus, the findings and the logs stay in Fuzz/.build whatever it is.
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$0")/../Fuzz"
export SWIFT_BACKTRACE=enable=no

seconds=60 runs="" address=0 seed="" max_len=65536 configuration=release
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --max-len) max_len="$2"; shift 2 ;;
    --address) address=1; shift ;;
    --seed) seed="$2"; shift 2 ;;
    --debug) configuration=debug; shift ;;
    -h|--help) sed -n '2,25p' "$self"; exit 0 ;;
    -*) echo "fuzz: unknown option $1" >&2; exit 64 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(request toml config manifest plugin-output session counter history config-cache deep-link web-http web-frames otel-cursor otel-records theme first-frame psplash-fifo uevent first-frame-index)
[ "${#targets[@]}" -gt 0 ] || targets=("${all[@]}")

sanitizers=(--sanitize fuzzer) scratch=${FUZZ_SCRATCH:-.build} work=.build
if [ "$address" -eq 1 ]; then sanitizers+=(--sanitize address); scratch=${FUZZ_SCRATCH:-.build}-asan work=.build-asan; fi
echo "fuzz: building ${targets[*]} (${sanitizers[*]}, $configuration)" >&2
swift_targets=0
for target in "${targets[@]}"; do [ "$target" = first-frame-index ] || swift_targets=1; done
# The C target's executable lives apart from SwiftPM's: a first `swift build` makes
# $scratch/release a link, replacing a directory made there before it.
mkdir -p "$scratch" "$work/c"
for target in "${targets[@]}"; do
  [ "$target" = first-frame-index ] || continue
  if ! clang -std=c11 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Wall -Wextra -Werror \
      -I/usr/include/libdrm -o "$work/c/fuzz-first-frame-index" ../helpers/fuzz-first-frame-index.c \
      >"$work/build-c.log" 2>&1; then
    grep -v 'ld.gold: warning' "$work/build-c.log" | tail -30 >&2
    echo "fuzz: building first-frame-index failed" >&2
    exit 1
  fi
done
# One executable for every Swift target, called by the target's name (links in $work/bin).
if [ "$swift_targets" -eq 1 ]; then
  # SwiftPM reuses its cached build description (description.json) when this package's own files
  # keep their structure, without looking at the main package's, a path dependency here: with a
  # scratch that persists (README's test command's), a source file added to one of its modules
  # was left out ("cannot find 'KernelUevent' in scope"), and one removed was still asked for
  # ("missing inputs"). Without the description SwiftPM plans again (seconds); what it compiled
  # stays, and only what changed is compiled.
  rm -f "$scratch"/*/"$configuration"/description.json
  if ! swift build -c "$configuration" "${sanitizers[@]}" --scratch-path "$scratch" --product fuzz >"$work/build.log" 2>&1; then
    grep -v 'ld.gold: warning' "$work/build.log" | tail -30 >&2
    echo "fuzz: building the fuzz targets failed" >&2
    exit 1
  fi
  mkdir -p "$work/bin"
  for target in "${targets[@]}"; do
    [ "$target" = first-frame-index ] || ln -sfn "$(realpath "$scratch/$configuration/fuzz")" "$work/bin/fuzz-$target"
  done
fi

limit=(-max_total_time="$seconds")
[ -n "$runs" ] && limit=(-runs="$runs")
extra=()
[ -n "$seed" ] && extra+=(-seed="$seed")
failed=0
printf '%-14s %12s %10s %8s  %s\n' target executions exec/s corpus result
for target in "${targets[@]}"; do
  corpus="$work/corpus/$target" findings="$work/findings/$target"
  mkdir -p "$corpus" "$findings"
  log="$work/fuzz-$target.log"
  set +e
  executable="$work/bin/fuzz-$target"
  [ "$target" = first-frame-index ] && executable="$work/c/fuzz-$target"
  "$executable" "${limit[@]}" "${extra[@]}" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$findings/" \
    "$corpus" "corpus/$target" >"$log" 2>&1
  status=$?
  set -e
  runs_done=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  per_second=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  size=$(find "$corpus" -type f | wc -l)
  if [ "$status" -eq 0 ]; then
    result=clean
  else
    failed=1
    result="FINDING (exit $status): $(ls -t "$findings" | head -1) — see $PWD/$log"
  fi
  printf '%-14s %12s %10s %8s  %s\n' "$target" "${runs_done:-?}" "${per_second:-?}" "$size" "$result"
done
exit "$failed"
