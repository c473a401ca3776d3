#!/usr/bin/env bash
# The main job: builds splashd and runs one real launch from `loading` to `finished`, followed by a
# renderer-like client (`splashctl watch`). The demo graph waits for a display device that appears
# late and for the kiosk app's first frame, the way a kiosk boots.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build
bin=$(swift build --show-bin-path)
work=$(mktemp -d /tmp/splashd-demo.XXXXXX)
sock="$work/splashd.sock"
ctl() { "$bin/splashctl" --socket "$sock" "$@"; }

sed "s|@WORK@|$work|g" examples/demo.toml > "$work/splashd.toml"
"$bin/splashd" --config "$work/splashd.toml" --socket "$sock" --plugin-dir plugins --state-dir "$work/state" 2> "$work/splashd.log" &
daemon=$!
trap 'kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; rm -rf "$work"' EXIT

for _ in $(seq 200); do ctl ping >/dev/null 2>&1 && break; sleep 0.05; done
echo "== renderer (splashctl watch) =="
ctl watch &
renderer=$!

# The world outside the daemon: the GPU appears after a while, then the app draws its first frame.
sleep 1.5; touch "$work/card0"
ctl wait loading --timeout 5s
sleep 0.5; ctl complete first-frame
# The renderer plays its exit animation, then says so.
ctl wait dismissing --timeout 10s
sleep 0.2; ctl dismissed
wait "$renderer"

echo; echo "== splashctl status =="
ctl status
echo; echo "== daemon log =="
kill -TERM "$daemon"; wait "$daemon" || true
cat "$work/splashd.log"
