#!/usr/bin/env bash
# Whole-process benchmarks of splashd: gate latency, external-plugin graph vs a shell script,
# cold start, fan-out to 1,000 subscribers, ping round trip, idle RSS, binary size and what each
# dependency costs. `make bench` runs this after the in-process suite (Benchmarks/).
#
#   scripts/bench.sh [SPLASHD]     (default: .build/dist/release/splashd; build it with `make dist`, the build that ships)
#
# Environment: BENCH_QUICK=1 runs fewer iterations. The client (scripts/bench/splashbench.c) blocks
# on reads or epoll until the state it waits for; the only pauses are the cold-start client's
# 100 us connect polls, and the footprint's wait for the release log line (and the same 1.5 s
# settle for the run without release).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:-.build/dist/release/splashd}")
[ -x "$BIN" ] || { echo "bench: $BIN not found; run 'make dist' first" >&2; exit 1; }
quick=${BENCH_QUICK:-0}
n() { if [ "$quick" = 1 ]; then echo "$2"; else echo "$1"; fi; }

source scripts/lib/bench.sh
bench_scratch splashd-bench
mkdir -p "$WORK/plugins"

# Starts splashd with config $1 on socket $2 (under systemd's default soft fd limit, 1024),
# and waits until it answers.
start_daemon() {
  local config=$1 sock=$2 name=$3
  ( ulimit -Sn 1024; exec "$BIN" --config "$config" --socket "$sock" --state-dir "$WORK/state-$name" \
      --plugin-dir "$WORK/plugins" --log-format text 2>"$WORK/$name.log" ) &
  DAEMON=$!
  PIDS+=("$DAEMON")
  local deadline=$((SECONDS + 20))
  until "$CLIENT" ping "$sock" 1 >/dev/null 2>&1; do
    kill -0 "$DAEMON" 2>/dev/null || { echo "bench: splashd ($name) exited; log:" >&2; cat "$WORK/$name.log" >&2; exit 1; }
    [ $SECONDS -lt $deadline ] || { echo "bench: splashd ($name) did not start" >&2; exit 1; }
  done
}
stop_daemon() { kill "$1"; wait "$1" 2>/dev/null || true; }

echo "== machine"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores; kernel $(uname -r)"
echo "swift: $(swift --version 2>/dev/null | head -1)"
echo

# ---- gate latency: a plugin's exit -> a subscriber receives dismissing -------------------------
cat >"$WORK/plugins/gate.sh" <<'SH'
#!/bin/bash
# Writes CLOCK_REALTIME in ns just before exiting (a bash builtin: no fork between it and exit).
t=${EPOCHREALTIME/./}
echo "${t}000" >"$SPLASHD_OPT_FILE"
SH
chmod +x "$WORK/plugins/gate.sh"
printf 'exec = "gate.sh"\n' >"$WORK/plugins/gate.toml"
cat >"$WORK/gate.toml" <<TOML
[splash]
min_display = "0ms"
exit_animation = "0ms"
[daemon]
release_memory_after_launch = false
[[step]]
id = "gate"
plugin = "gate"
[step.options]
file = "$WORK/gate.ts"
TOML
echo "== gate latency (1 external bash plugin; min_display = exit_animation = 0ms)"
start_daemon "$WORK/gate.toml" "$WORK/gate.sock" gate
"$CLIENT" launches "$WORK/gate.sock" "$(n 300 50)" "$WORK/gate.ts"
echo

# ---- round trip, then idle RSS of the same daemon after its launches ---------------------------
echo "== ping round trip (persistent connection)"
"$CLIENT" ping "$WORK/gate.sock" "$(n 20000 2000)"
echo
echo "== footprint"
rss_of() { awk '/^VmRSS|^VmHWM|^RssAnon|^RssFile/ {printf "%s %s kB  ", $1, $2} END {print ""}' "/proc/$1/status"; }
echo "RSS after $(n 300 50) launches of the 1-plugin graph and the pings (release off): $(rss_of "$DAEMON")"
echo "resident memory by mapping (kB; file-backed pages of shared libraries count too):"
awk '/^[0-9a-f]+-[0-9a-f]+ / {name = ($6 == "" ? "[anonymous]" : $6); sub(".*/", "", name)} /^Rss:/ {rss[name] += $2}
     END {for (n in rss) if (rss[n] >= 256) printf "  %6d  %s\n", rss[n], n}' "/proc/$DAEMON/smaps" | sort -rn
stop_daemon "$DAEMON"

# The embedded default graph (the four built-ins, no remote endpoints): one launch watched to
# finished by a renderer-like subscriber, which then disconnects. Peak (VmHWM); idle once the
# daemon has released memory after the launch (it logs that, a second after finished); then
# after a new client's first requests, with how long they took. The same graph with
# `release_memory_after_launch = false`, measured 1.5 s after finished, for comparison.
cat >"$WORK/default-norelease.toml" <<'TOML'
[daemon]
release_memory_after_launch = false

[[step]]
id = "auth-refresh"
plugin = "auth-refresh"
label = "Signing in"

[[step]]
id = "config-fetch"
plugin = "config-fetch"
label = "Loading configuration"

[[step]]
id = "launch-counter"
plugin = "launch-counter"
after = ["auth-refresh"]
critical = false

[[step]]
id = "quick-action"
plugin = "quick-action"
critical = false
TOML
default_footprint() {
  local name=$1; shift
  ( ulimit -Sn 1024; exec "$BIN" --socket "$WORK/$name.sock" --state-dir "$WORK/state-$name" \
      --log-format text --verbose "$@" 2>"$WORK/$name.log" ) &
  DAEMON=$!; PIDS+=("$DAEMON")
  until "$CLIENT" ping "$WORK/$name.sock" 1 >/dev/null 2>&1; do kill -0 "$DAEMON"; done
  python3 - "$WORK/$name.sock" <<'PY'
import socket, sys, json
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rwb")
f.readline(); f.write(b'{"cmd":"subscribe"}\n'); f.flush()
while True:
    m = json.loads(f.readline())
    if m.get("type") == "state" and m["phase"] == "finished": break
    if m.get("type") == "state" and m["phase"] == "error": sys.exit("default launch failed: %s" % m)
PY
  local deadline=$((SECONDS + 20))
  if [ "$name" = default ]; then
    until grep -q "released memory after the launch" "$WORK/$name.log"; do
      [ $SECONDS -lt $deadline ] || { echo "bench: no memory release logged" >&2; exit 1; }
      sleep 0.05
    done
  else
    sleep 1.5   # the same moment the release would have come
  fi
  local peak idle after requests
  peak=$(kb "$DAEMON" VmHWM); idle=$(kb "$DAEMON" VmRSS)
  requests=$(python3 - "$WORK/$name.sock" <<'PY'
import socket, sys, time
s = socket.socket(socket.AF_UNIX); t = time.monotonic(); s.connect(sys.argv[1]); f = s.makefile("rwb"); f.readline()
hello = (time.monotonic() - t) * 1000
times = []
for _ in range(3):
    t = time.monotonic(); f.write(b'{"cmd":"ping"}\n'); f.flush(); f.readline(); times.append((time.monotonic() - t) * 1000)
print("connect+hello %.2f ms, pings %s ms" % (hello, " / ".join("%.2f" % x for x in times)))
PY
)
  after=$(kb "$DAEMON" VmRSS)
  echo "  $name: peak ${peak} kB; idle ${idle} kB (anonymous $(kb "$DAEMON" RssAnon) kB); after a new client's requests ${after} kB ($requests)"
  grep "released memory after the launch" "$WORK/$name.log" | sed 's/^/    log: /' || true
  stop_daemon "$DAEMON"
}
echo "embedded default graph, one launch to finished, the subscriber gone:"
default_footprint default
default_footprint norelease --config "$WORK/default-norelease.toml"
strip -o "$WORK/splashd.stripped" "$BIN"
echo "binary: $(stat -c %s "$BIN") B unstripped, $(stat -c %s "$WORK/splashd.stripped") B stripped"
echo "linked against: $(ldd "$BIN" | awk '{print $1}' | tr '\n' ' ')"
size "$WORK/splashd.stripped" | tail -1 | awk '{printf "sections: text %d B, data %d B, bss %d B\n", $1, $2, $3}'
echo "what each module costs (symbol sizes in the unstripped binary):"
python3 scripts/bench/sizes.py "$BIN" | sed 's/^/  /'
echo

# ---- cold start ---------------------------------------------------------------------------------
cat >"$WORK/cold.toml" <<TOML
[[step]]
id = "first-frame"
plugin = "signal"
TOML
echo "== cold start (exec splashd -> hello received, and -> the first state after subscribe; 1 signal step)"
"$CLIENT" cold "$WORK/cold.sock" "$(n 50 10)" -- "$BIN" --config "$WORK/cold.toml" --socket "$WORK/cold.sock" \
  --state-dir "$WORK/state-cold" --log-format text
# References measured in the same minute, since this machine's speed drifts by the hour: a process
# that does nothing, and a Swift program that prints one line (linked like any Swift program).
"$CLIENT" exec "reference: /bin/true (fork + exec -> exit)" "$(n 50 10)" -- /bin/true
printf '@main struct Hello { static func main() { print("hello") } }\n' >"$WORK/hello.swift"
if swiftc -O -parse-as-library "$WORK/hello.swift" -o "$WORK/hello" 2>/dev/null; then
  "$CLIENT" exec "reference: a Swift hello world (fork + exec -> exit)" "$(n 50 10)" -- "$WORK/hello"
fi
echo

# ---- external plugins: 200-step graph of /bin/true vs a shell doing the same spawns -------------
printf 'exec = "/bin/true"\n' >"$WORK/plugins/true.toml"
{
  printf '[splash]\nmin_display = "0ms"\nexit_animation = "0ms"\n'
  for layer in $(seq 0 19); do
    for i in $(seq 0 9); do
      printf '[[step]]\nid = "s%d-%d"\nplugin = "true"\n' "$layer" "$i"
      if [ "$layer" -gt 0 ]; then
        printf 'after = [%s]\n' "$(for j in $(seq 0 9); do printf '"s%d-%d",' $((layer - 1)) "$j"; done | sed 's/,$//')"
      fi
    done
  done
} >"$WORK/spawn200.toml"
shell_spawns() {  # the same 200 spawns, 20 layers of 10 in parallel
  for _ in $(seq 20); do
    for _ in 1 2 3 4 5 6 7 8 9 10; do /bin/true & done
    wait
  done
}
time_shell() {
  local runs=$1 t0 t1
  for _ in $(seq "$runs"); do
    t0=${EPOCHREALTIME/./}; shell_spawns; t1=${EPOCHREALTIME/./}
    echo $((t1 - t0))
  done | sort -n | awk '{v[NR]=$1} END {printf "shell script, same 200 spawns (20 layers x 10 with wait): median=%.1f min=%.1f max=%.1f n=%d (us)\n", v[int((NR+1)/2)], v[1], v[NR], NR}'
}
echo "== external plugins: 200 steps of /bin/true (20 layers x 10), relaunch -> dismissing"
# The daemon's own CPU time per launch (utime / stime, the plugins' time not included).
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{printf "%d %d\n", $14 * 1000 / hz, $15 * 1000 / hz}' "/proc/$1/stat"; }
start_daemon "$WORK/spawn200.toml" "$WORK/spawn200.sock" spawn200
"$CLIENT" launches "$WORK/spawn200.sock" 1 >/dev/null   # the first launch and one relaunch, unmeasured
time_shell "$(n 30 5)"
read -r user0 system0 < <(cpu_ms "$DAEMON")
"$CLIENT" launches "$WORK/spawn200.sock" "$(n 30 5)"
read -r user1 system1 < <(cpu_ms "$DAEMON")
echo "splashd's own CPU time per launch: user $(( (user1 - user0) / $(n 30 5) )) ms, system $(( (system1 - system0) / $(n 30 5) )) ms"
time_shell "$(n 30 5)"
stop_daemon "$DAEMON"
echo

# ---- fan-out ------------------------------------------------------------------------------------
cat >"$WORK/fanout.toml" <<TOML
[splash]
min_display = "0ms"
exit_animation = "0ms"
[[step]]
id = "go"
plugin = "signal"
TOML
subscribers=${BENCH_SUBSCRIBERS:-1000}
echo "== fan-out: $subscribers subscribers, one state change (relaunch / complete) -> each receives it"
start_daemon "$WORK/fanout.toml" "$WORK/fanout.sock" fanout
( ulimit -n $((subscribers + 64)); "$CLIENT" fanout "$WORK/fanout.sock" "$subscribers" "$(n 100 10)" go )
echo "daemon RSS with $subscribers subscribers: $(rss_of "$DAEMON")"
stop_daemon "$DAEMON"
