#!/usr/bin/env bash
# Installs, reinstalls, removes and purges the Debian package in a Debian 12 container booted with
# systemd as PID 1 (systemd-nspawn), and checks what SPEC §11 and docs/packaging.md promise:
# the socket and the finished unit enabled, the socket listening, the daemon started by its first
# client and at boot, nothing restarted by an upgrade, everything but the state directory gone on
# remove, everything but the user and the group gone on purge.
#
#   scripts/deb-nspawn-test.sh [dist/splashd_VERSION_ARCH.deb]
#
# Needs root, systemd-container and debootstrap. The first run downloads a minimal bookworm
# (about 250 MB) into $NSPAWN_BASE (default /var/tmp/splashd-nspawn-bookworm); every run works on
# a copy of it, removed at the end. Nothing on the host is installed or started.
set -euo pipefail
cd "$(dirname "$0")/.."

deb=${1:-$(ls dist/splashd_*.deb 2>/dev/null | tail -n 1)}
[[ -f $deb ]] || { echo "deb-nspawn-test: no package (make deb)" >&2; exit 1; }
base=${NSPAWN_BASE:-/var/tmp/splashd-nspawn-bookworm}

if [[ ! -d $base ]]; then
    echo "deb-nspawn-test: bootstrapping Debian 12 into $base" >&2
    debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus bookworm "$base.partial" \
        http://deb.debian.org/debian >/dev/null
    mv "$base.partial" "$base"
fi

work=$(mktemp -d /var/tmp/splashd-nspawn.XXXXXX)
nspawn=
cleanup() {
    [[ -n $nspawn ]] && kill "$nspawn" 2>/dev/null && wait "$nspawn" 2>/dev/null
    rm -rf "$work" "$work.log"
}
trap cleanup EXIT
cp -a "$base/." "$work/"
cp "$deb" "$work/root/splashd.deb"

failures=0
# Runs a shell command line in the booted container.
run() {
    nsenter -t "$leader" -a -- /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        /bin/sh -c "$1"
}
# check DESCRIPTION COMMAND: runs COMMAND in the container; reports and counts a failure.
check() {
    if output=$(run "$2" 2>&1); then
        echo "ok   $1"
    else
        echo "FAIL $1"
        [[ -z $output ]] || printf '%s\n' "$output" | sed 's/^/     /'
        failures=$((failures + 1))
    fi
}
boot() {
    setsid systemd-nspawn -D "$work" -b --register=no --keep-unit --console=passive -M splashd-test \
        >"$work.log" 2>&1 &
    nspawn=$!
    leader=
    for _ in $(seq 1 100); do
        leader=$(pgrep -P "$nspawn" || true)
        [[ -n $leader ]] && run 'systemctl is-system-running --wait' >/dev/null 2>&1 && return
        sleep 0.2
    done
    echo "deb-nspawn-test: the container did not boot:" >&2
    cat "$work.log" >&2
    exit 1
}
poweroff() {
    run 'systemctl poweroff' >/dev/null 2>&1 || true
    wait "$nspawn" 2>/dev/null || true
    nspawn=
}

boot
check "install" 'apt-get install -y -q /root/splashd.deb >/dev/null'
check "splashd.socket and splashd-finished.service enabled" \
    'systemctl is-enabled -q splashd.socket && systemctl is-enabled -q splashd-finished.service'
check "the socket listens, the daemon waits for a client" \
    'systemctl is-active -q splashd.socket && ! systemctl is-active -q splashd.service'
check "user splashd, in group splash" 'id -nG splashd | grep -qw splash'
check "directories with their owners and modes" \
    '[ "$(stat -c "%U:%G %a" /var/lib/splashd /run/splashd /etc/splashd/plugins.d)" = "splashd:splashd 700
splashd:splashd 755
root:root 755" ]'
check "socket root:splash 0660" '[ "$(stat -c "%U:%G %a" /run/splashd/splashd.sock)" = "root:splash 660" ]'
check "the journal catalog has the five entries" '[ "$(journalctl --list-catalog | grep -c " splashd: ")" = 5 ]'
check "/etc/splashd/splashd.toml passes check" 'splashd check'
check "the first client starts the daemon, the launch finishes" \
    'splashctl wait finished --timeout 30s && systemctl is-active -q splashd.service'
check "reinstalling does not restart the daemon" \
    'before=$(systemctl show -p MainPID --value splashd) && apt-get install -y -q --reinstall /root/splashd.deb >/dev/null &&
     [ "$(systemctl show -p MainPID --value splashd)" = "$before" ]'
poweroff

boot
check "at boot: the finished unit pulled the daemon in, the launch finished" \
    'systemctl is-active -q splashd-finished.service && systemctl is-active -q splashd.service &&
     splashctl status | grep -q "^phase: finished"'
check "remove" 'dpkg -L splashd >/root/files && apt-get remove -y -q splashd >/dev/null'
check "remove stops the units" \
    '! systemctl is-active -q splashd.service && ! systemctl is-active -q splashd.socket &&
     ! systemctl is-active -q splashd-finished.service'
check "remove keeps the state and the configuration, takes /run/splashd" \
    '[ -d /var/lib/splashd ] && [ -f /etc/splashd/splashd.toml ] && [ ! -e /run/splashd ]'
check "remove takes the catalog entries" '[ "$(journalctl --list-catalog | grep -c " splashd: ")" = 0 ]'
check "purge" 'apt-get purge -y -q splashd >/dev/null'
check "purge leaves none of the package's paths" \
    'while read -r path; do [ ! -e "$path" ] || dpkg -S "$path" >/dev/null 2>&1 || [ "$path" = "/." ] || { echo "$path"; exit 1; }; done </root/files'
check "purge takes the state, the configuration and the units' state" \
    '[ ! -e /var/lib/splashd ] && [ ! -e /etc/splashd ] && [ ! -e /run/splashd ] &&
     [ -z "$(find /etc/systemd /var/lib/systemd -name "*splashd*")" ]'
check "purge keeps the user and the group" 'getent passwd splashd >/dev/null && getent group splash >/dev/null'
check "the system is still running cleanly" '[ "$(systemctl is-system-running)" = running ]'
poweroff

if [[ $failures -gt 0 ]]; then
    echo "deb-nspawn-test: $failures check(s) failed" >&2
    exit 1
fi
echo "deb-nspawn-test: all checks passed"
