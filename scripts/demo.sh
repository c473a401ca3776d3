#!/usr/bin/env bash
# The main job: builds splashd and runs it on its embedded default configuration (no config file)
# with a fresh state directory, followed by a renderer-like client (`splashctl watch`): a real launch
# from `loading` to `finished` that ends in `onboarding`, as on a new device. A relaunch then shows a
# returning device without a session going to `login`, drawn by the reference renderer
# (splashd-web, in headless Chromium: its URL is printed and a screenshot of each moment of the
# launch is written to $DEMO_SCREENS, default ./demo-screens), and the operators' reports.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh demo
swift build
bin=$(swift build --show-bin-path)
work=$(mktemp -d /tmp/splashd-demo.XXXXXX)
sock="$work/splashd.sock"
ctl() { "$bin/splashctl" --socket "$sock" "$@"; }

screens=${DEMO_SCREENS:-$PWD/demo-screens}
"$bin/splashd" --socket "$sock" --state-dir "$work/state" 2> "$work/splashd.log" &
daemon=$!
"$bin/splashd-web" --socket "$sock" --listen 127.0.0.1:0 --theme renderer/themes/reference \
  --web-root renderer/web --url-file "$work/url" > "$work/web.out" 2> "$work/web.log" &
web=$!
trap 'kill "$web" "$daemon" 2>/dev/null || true; wait "$web" "$daemon" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 200); do ctl ping >/dev/null 2>&1 && break; sleep 0.05; done

echo "== first launch on a fresh device (renderer: splashctl watch) =="
ctl watch
echo; echo "== splashctl status =="
ctl status

echo; echo "== the device comes back without a session: relaunch, drawn by the reference renderer =="
for _ in $(seq 200); do [ -s "$work/url" ] && break; sleep 0.05; done
echo "splash page (open it in a browser while splashd-web runs): $(cat "$work/url")"
python3 scripts/demo-screens.py "$(cat "$work/url")" "$screens" "$work/page-ready" > "$work/screens.out" &
shots=$!
for _ in $(seq 600); do [ -e "$work/page-ready" ] && break; sleep 0.05; done
ctl relaunch
ctl watch
wait "$shots"
echo "screenshots of the launch's moments:"; cat "$work/screens.out"
echo; echo "== splashctl blame =="
ctl blame
echo; echo "== splashctl critical-chain =="
ctl critical-chain
echo; echo "== splashctl history =="
ctl history

echo; echo "== daemon log =="
kill -TERM "$daemon"; wait "$daemon" || true
cat "$work/splashd.log"
