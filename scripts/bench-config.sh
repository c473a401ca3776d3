#!/usr/bin/env bash
# Config loading: `splashd check` on generated configs of 5,000 to 80,000 steps, in two shapes:
# `flat` (independent steps) and `chain` (each step after the one before). Prints the median wall
# time of BENCH_RUNS runs (default 3) per size; loading should grow linearly with the steps
# (docs/benchmarks.md, "Config loading").
#
#   scripts/bench-config.sh [SPLASHD]     (default: .build/dist/release/splashd; `make dist`)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-.build/dist/release/splashd}")
[ -x "$BIN" ] || { echo "bench-config: $BIN not found; run 'make dist' first" >&2; exit 1; }
runs=${BENCH_RUNS:-3}
sizes=${BENCH_SIZES:-"5000 20000 40000 80000"}
WORK=$(mktemp -d /tmp/splashd-bench-config.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# generate N SHAPE: the config text.
generate() {
  awk -v n="$1" -v shape="$2" 'BEGIN {
    print "[splash]\nmin_display = \"0ms\""
    for (i = 0; i < n; i++) {
      printf "\n[[step]]\nid = \"s%d\"\nplugin = \"signal\"\n", i
      if (shape == "chain" && i > 0) printf "after = [\"s%d\"]\n", i - 1
    }
  }'
}

printf '%-6s %7s %9s %11s\n' shape steps "size (B)" "median (s)"
for shape in flat chain; do
  for n in $sizes; do
    generate "$n" "$shape" >"$WORK/config.toml"
    times=()
    outcome=""
    for ((run = 0; run < runs; run++)); do
      start=$(date +%s%N)
      status=0
      "$BIN" check --config "$WORK/config.toml" >/dev/null 2>"$WORK/err" || status=$?
      end=$(date +%s%N)
      if [ "$status" -ne 0 ]; then outcome="exit $status: $(head -c 80 "$WORK/err")"; break; fi
      times+=($(( (end - start) / 1000000 )))
    done
    if [ -n "$outcome" ]; then
      printf '%-6s %7d %9d %11s\n' "$shape" "$n" "$(stat -c %s "$WORK/config.toml")" "$outcome"
      continue
    fi
    median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
    printf '%-6s %7d %9d %11.3f\n' "$shape" "$n" "$(stat -c %s "$WORK/config.toml")" "$(echo "$median / 1000" | bc -l)"
  done
done
