#!/usr/bin/env bash
# Times README's demo command on a fresh machine: a Debian 12 root made with debootstrap, given the
# packages of the project's machine image (PACKAGES, a list of `apt NAME VERSION` lines as in the
# tool library's env/packages/installed-swift.txt; names the mirror lacks are left out) and the
# host's CA certificates, git and pip settings. Each revision then runs in its own overlay of that
# root, in a systemd-nspawn container with the host's Swift toolchain and package mirror bound in
# read-only: a clone of REV, its setup (`scripts/setup.sh PURPOSE`), `swift build`, then
# `bash scripts/demo.sh`, each timed.
#
#   scripts/bench-fresh-demo.sh PACKAGES REV[:SETUP-ARGS] ...
#   e.g.  scripts/bench-fresh-demo.sh installed-swift.txt HEAD:demo ea3a953:
#
# Needs root, debootstrap, systemd-nspawn and the network's Debian mirror. Everything it makes is
# under one scratch directory in /var/tmp, removed at the end (FRESH_KEEP=1 keeps it); its mounts
# are in a private mount namespace.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench-fresh-demo: needs root (debootstrap, mounts, nspawn)" >&2; exit 2; }
for tool in debootstrap systemd-nspawn unshare; do
  command -v "$tool" >/dev/null || { echo "bench-fresh-demo: $tool is missing" >&2; exit 2; }
done
[ $# -ge 2 ] && [ -f "$1" ] || { sed -n '2,14p' "$0" >&2; exit 2; }
packages=$1; shift
if [ -z "${FRESH_INNER:-}" ]; then
  exec unshare -m --propagation private env FRESH_INNER=1 bash "$0" "$packages" "$@"
fi

scratch=$(mktemp -d /var/tmp/splashd-fresh.XXXXXX)
[ -n "${FRESH_KEEP:-}" ] || trap 'umount -R "$scratch"/*/merged 2>/dev/null || true; rm -rf "$scratch"' EXIT
trap 'exit 143' TERM INT
root=$scratch/base
repo=$PWD

start=$(date +%s)
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian > "$scratch/debootstrap.log"
rm -f "$root/etc/apt/sources.list"
cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/"
awk '$1 == "apt" {sub(/:.*/, "", $2); print $2}' "$packages" > "$root/tmp/wanted"
for fs in proc dev sys; do mount --bind "/$fs" "$root/$fs"; done
chroot "$root" apt-get update -qq
chroot "$root" bash -c 'apt-cache pkgnames | sort -u > /tmp/known; sort -u /tmp/wanted | comm -12 - /tmp/known > /tmp/there'
chroot "$root" bash -c 'DEBIAN_FRONTEND=noninteractive xargs apt-get install -y -qq --no-install-recommends < /tmp/there' \
  > "$scratch/image.log" 2>&1
chroot "$root" apt-get clean
for fs in proc dev sys; do umount "$root/$fs"; done
echo "fresh root: $(chroot "$root" dpkg-query -f '.\n' -W | wc -l) packages ($(wc -l < "$root/tmp/there") of the image's" \
  "$(sort -u "$root/tmp/wanted" | wc -l) that the mirror has), made in $(( $(date +%s) - start )) s"
mkdir -p "$root/etc/ssl/certs"
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"   # with a proxy's CA, where there is one
for file in /root/.gitconfig /etc/gitconfig /etc/gitignore; do [ -f "$file" ] && cp "$file" "$root$file"; done

for spec in "$@"; do
  rev=${spec%%:*}; purpose=${spec#*:}; [ "$spec" = "$rev" ] && purpose=""
  commit=$(git rev-parse --short "$rev")
  run=$scratch/$commit
  mkdir -p "$run"/{upper,work,merged}
  mount -t overlay overlay -o "lowerdir=$root,upperdir=$run/upper,workdir=$run/work" "$run/merged"
  cat > "$run/merged/root/run.sh" <<EOF
set -uo pipefail
export PATH=$(dirname "$(command -v swift)"):/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export DEBIAN_FRONTEND=noninteractive PIP_BREAK_SYSTEM_PACKAGES=1 PIP_CERT=/etc/ssl/certs/ca-certificates.crt
export PIP_FIND_LINKS=${PIP_FIND_LINKS:-} PIP_DEFAULT_TIMEOUT=180
cd /root && git clone -q /src splashd && cd splashd && git checkout -q $commit
t0=\$(date +%s); bash scripts/setup.sh $purpose > /root/setup.log 2>&1 || echo "setup failed"
t1=\$(date +%s); swift build > /root/build.log 2>&1 || echo "build failed"
t2=\$(date +%s); bash scripts/demo.sh > /root/demo.log 2>&1 || echo "demo failed"
t3=\$(date +%s)
grep -q -- '-> login' /root/demo.log || echo "the demo did not end in login"
echo "$commit (setup.sh ${purpose:-with no purpose}): setup \$((t1 - t0)) s, swift build \$((t2 - t1)) s," \
  "the demo \$((t3 - t2)) s; total \$((t3 - t0)) s; \$(dpkg-query -f '.\n' -W | wc -l) packages then"
EOF
  binds=(--bind-ro="$(dirname "$(dirname "$(dirname "$(command -v swift)")")")" --bind-ro="$repo:/src")
  [ -d /opt/swift-packages ] && binds+=(--bind-ro=/opt/swift-packages)
  [ -n "${PIP_FIND_LINKS:-}" ] && [ -d "$PIP_FIND_LINKS" ] && binds+=(--bind-ro="$PIP_FIND_LINKS")
  systemd-nspawn -q --register=no --keep-unit --machine="fresh-$commit" -D "$run/merged" "${binds[@]}" bash /root/run.sh \
    2> >(grep -v "propagate" >&2)
  umount "$run/merged"
  rm -rf "$run"
done
