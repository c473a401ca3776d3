#!/usr/bin/env bash
# Runs a command on a busy machine: stress-ng keeps every core busy beside it (one CPU worker per
# core), for as long as the command runs and at most BUSY_TIMEOUT (default 3h). The command's exit
# status is this script's; the hog is stopped (by its pid) when the command ends.
#
#   scripts/busy.sh COMMAND [ARGUMENT ...]
#   BUSY_WORKERS=4 scripts/busy.sh bash scripts/test.sh
#
# No test may depend on the machine's pace (docs/hardening.md, "A busy machine"): `make test-busy`
# and `make test-vm-busy` run the suites this way.
set -uo pipefail
if [ "$#" -eq 0 ]; then
  echo "usage: scripts/busy.sh COMMAND [ARGUMENT ...]" >&2
  exit 64
fi
if ! command -v stress-ng >/dev/null; then
  echo "busy: installing stress-ng (the CPU hog)" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq stress-ng >/dev/null || exit 1
fi
workers="${BUSY_WORKERS:-$(nproc)}"
stress-ng --cpu "$workers" --cpu-method all --timeout "${BUSY_TIMEOUT:-3h}" --quiet &
hog=$!
trap 'kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null' EXIT
echo "busy: stress-ng --cpu $workers (pid $hog) beside: $*" >&2
started=$(date +%s)
"$@"
status=$?
echo "busy: '$*' exited $status after $(( $(date +%s) - started )) s with the hog beside it" >&2
exit "$status"
