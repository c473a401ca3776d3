# What scripts/bench.sh and scripts/bench-linking.sh share (sourced): a scratch directory and the
# processes started into PIDS, both gone when the script exits; the C client built into it; and
# procfs's figures of a process.
#
#   bench_scratch PREFIX     WORK=a fresh directory /tmp/PREFIX.XXXXXX, CLIENT=its splashbench
#   kb PID FIELD             a field of /proc/PID/status in kB (VmRSS, VmHWM, RssAnon, RssFile)

bench_scratch() {
  WORK=$(mktemp -d "/tmp/$1.XXXXXX")
  PIDS=()
  trap bench_cleanup EXIT
  cc -O2 -Wall -o "$WORK/splashbench" scripts/bench/splashbench.c
  CLIENT="$WORK/splashbench"
}

# (A killed process's `wait` fails: under `set -e` that ended the trap before the directory went,
# when each script had its own copy of this.)
bench_cleanup() {
  for pid in "${PIDS[@]:-}"; do
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; fi
  done
  rm -rf "$WORK"
}

kb() { awk -v key="$2:" '$1 == key {print $2}' "/proc/$1/status"; }
