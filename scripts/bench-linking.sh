#!/usr/bin/env bash
# The two ways to ship splashd without the Swift toolchain, measured side by side:
#
#   static   `swift build -c release --static-swift-stdlib`: the Swift runtime inside each binary
#   private  `swift build -c release` (dynamic), the runtime libraries it loads copied next to the
#            binaries (lib/splashd/) and the runpath set to `$ORIGIN/../lib/splashd`
#
#   scripts/bench-linking.sh STATIC_DIR DYNAMIC_DIR
#
# Each DIR holds `splashd` and `splashctl` from one build (unstripped). Prints, for each: the
# stripped sizes, what the package would carry (bytes and xz -9, as in a .deb), the libraries
# loaded, cold start (exec -> hello, interleaved batches), and the resident memory of the embedded
# default graph after one launch (peak and idle), and of `splashctl status`. Needs patchelf.
# `make bench-linking` builds both and runs this. Benchmarks measure; nothing here is a test.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { sed -n '2,14p' "$0" >&2; exit 64; }
STATIC=$(realpath "$1") DYNAMIC=$(realpath "$2")
command -v patchelf >/dev/null || { echo "bench-linking: needs patchelf (apt install patchelf)" >&2; exit 1; }
rounds=${BENCH_ROUNDS:-5} per=${BENCH_PER_ROUND:-20}

source scripts/lib/bench.sh
bench_scratch splashd-linking

# Lay out both as they would be installed: usr/bin (+ usr/lib/splashd for the private runtime).
for variant in static private; do mkdir -p "$WORK/$variant/usr/bin"; done
for bin in splashd splashctl; do
  strip -o "$WORK/static/usr/bin/$bin" "$STATIC/$bin"
  strip -o "$WORK/private/usr/bin/$bin" "$DYNAMIC/$bin"
done
mkdir -p "$WORK/private/usr/lib/splashd"
toolchain=$(dirname "$(ldd "$DYNAMIC/splashd" | awk '/libswiftCore/ {print $3}')")
for bin in splashd splashctl; do
  ldd "$DYNAMIC/$bin" | awk -v dir="$toolchain" 'index($3, dir) == 1 {print $3}'
done | sort -u | while read -r lib; do strip -o "$WORK/private/usr/lib/splashd/$(basename "$lib")" "$lib"; done
for bin in splashd splashctl; do patchelf --set-rpath '$ORIGIN/../lib/splashd' "$WORK/private/usr/bin/$bin"; done
for lib in "$WORK"/private/usr/lib/splashd/*.so; do patchelf --set-rpath '$ORIGIN' "$lib"; done

echo "== size (stripped; the package's payload, and xz -9 of it as a .deb carries it)"
for variant in static private; do
  payload=$(du -sb "$WORK/$variant/usr" | cut -f1)
  xz_size=$(tar -C "$WORK/$variant" -cf - usr | xz -9 -T1 | wc -c)
  printf '  %-8s splashd %s B, splashctl %s B' "$variant" \
    "$(stat -c %s "$WORK/$variant/usr/bin/splashd")" "$(stat -c %s "$WORK/$variant/usr/bin/splashctl")"
  [ "$variant" = private ] && printf ', runtime %s B in %d libraries' \
    "$(du -sb "$WORK/private/usr/lib/splashd" | cut -f1)" "$(ls "$WORK/private/usr/lib/splashd" | wc -l)"
  printf '; payload %s B, xz %s B\n' "$payload" "$xz_size"
done
echo "== libraries loaded (ldd, toolchain not on the path)"
for variant in static private; do
  for bin in splashd splashctl; do
    printf '  %-8s %-9s %s\n' "$variant" "$bin" "$(env -u LD_LIBRARY_PATH ldd "$WORK/$variant/usr/bin/$bin" | awk '{print $1}' | sed 's/.*\///' | tr '\n' ' ')"
    if env -u LD_LIBRARY_PATH ldd "$WORK/$variant/usr/bin/$bin" | grep -q "$toolchain\|not found"; then
      echo "bench-linking: $variant $bin still needs the toolchain" >&2; exit 1
    fi
  done
done

cat >"$WORK/cold.toml" <<'TOML'
[[step]]
id = "first-frame"
plugin = "signal"
TOML
echo "== cold start: exec splashd -> hello received (1 signal step); $rounds interleaved rounds of $per"
for round in $(seq "$rounds"); do
  for variant in static private; do
    "$WORK/splashbench" cold "$WORK/cold-$variant.sock" "$per" -- "$WORK/$variant/usr/bin/splashd" \
      --config "$WORK/cold.toml" --socket "$WORK/cold-$variant.sock" --state-dir "$WORK/state-cold-$variant" \
      --log-format text 2>/dev/null | awk -v v="$variant" -v r="$round" '/exec -> hello/ {print v, r, $0}'
  done
done | tee "$WORK/cold.txt" | sed 's/^/  /'
echo "  median of the round medians:"
for variant in static private; do
  grep "^$variant " "$WORK/cold.txt" | sed -n 's/.*median=\([0-9.]*\).*/\1/p' | sort -n |
    awk -v v="$variant" '{m[NR]=$1} END {printf "    %-8s %.2f ms\n", v, m[int((NR+1)/2)]/1000}'
done

echo "== memory: the embedded default graph, one launch to finished (peak VmHWM; idle after the release)"
for variant in static private; do
  sock="$WORK/mem-$variant.sock"
  "$WORK/$variant/usr/bin/splashd" --socket "$sock" --state-dir "$WORK/state-mem-$variant" \
    --log-format text --verbose 2>"$WORK/mem-$variant.log" &
  daemon=$!; PIDS+=("$daemon")
  deadline=$((SECONDS + 20))
  until "$WORK/splashbench" ping "$sock" 1 >/dev/null 2>&1; do
    kill -0 "$daemon" && [ $SECONDS -lt $deadline ] || { echo "bench-linking: $variant did not start" >&2; exit 1; }
  done
  # Until finished: the embedded default graph needs no renderer (its exit animation times out).
  timeout 30 "$WORK/$variant/usr/bin/splashctl" --socket "$sock" wait finished --timeout 20s >/dev/null
  until grep -q "released memory after the launch" "$WORK/mem-$variant.log"; do
    [ $SECONDS -lt $deadline ] || { echo "bench-linking: no memory release logged ($variant)" >&2; exit 1; }
    sleep 0.05
  done
  ctl=$( { /usr/bin/time -f '%M' "$WORK/$variant/usr/bin/splashctl" --socket "$sock" status >/dev/null; } 2>&1 | tail -1)
  printf '  %-8s splashd peak %s kB, idle %s kB (anonymous %s kB, file %s kB); splashctl status max RSS %s kB\n' \
    "$variant" "$(kb "$daemon" VmHWM)" "$(kb "$daemon" VmRSS)" "$(kb "$daemon" RssAnon)" "$(kb "$daemon" RssFile)" "$ctl"
  kill "$daemon"; wait "$daemon" 2>/dev/null || true
done
