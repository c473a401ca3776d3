#!/usr/bin/env bash
# The main job: builds splashd and runs it on its embedded default configuration (no config file)
# with a fresh state directory, followed by a renderer-like client (`splashctl watch`): a real launch
# from `loading` to `finished` that ends in `onboarding`, as on a new device. A relaunch then shows a
# returning device without a session going to `login`, and the operators' reports.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build
bin=$(swift build --show-bin-path)
work=$(mktemp -d /tmp/splashd-demo.XXXXXX)
sock="$work/splashd.sock"
ctl() { "$bin/splashctl" --socket "$sock" "$@"; }

"$bin/splashd" --socket "$sock" --state-dir "$work/state" 2> "$work/splashd.log" &
daemon=$!
trap 'kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 200); do ctl ping >/dev/null 2>&1 && break; sleep 0.05; done

echo "== first launch on a fresh device (renderer: splashctl watch) =="
ctl watch
echo; echo "== splashctl status =="
ctl status

echo; echo "== the device comes back without a session: relaunch =="
ctl relaunch
ctl watch
echo; echo "== splashctl blame =="
ctl blame
echo; echo "== splashctl critical-chain =="
ctl critical-chain
echo; echo "== splashctl history =="
ctl history

echo; echo "== daemon log =="
kill -TERM "$daemon"; wait "$daemon" || true
cat "$work/splashd.log"
