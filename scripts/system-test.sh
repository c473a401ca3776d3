#!/usr/bin/env bash
# System tests of splashd under real systemd as PID 1 (docs/system-tests.md).
#
#   scripts/system-test.sh path/to/splashd_VERSION_ARCH.deb   # its sibling packages beside it
#   scripts/system-test.sh --bin-dir DIR      # no package yet: DIR/splashd, DIR/splashctl + this repo's files
#
# Boots a systemd-nspawn container from the host's own root file system under a throwaway
# overlay (upper layer on a tmpfs, in a private mount namespace: nothing on the host changes),
# with the toolchain and the work trees hidden, installs splashd in it, reboots it so the units
# start the way they do on a device, and checks the units, the journal, the watchdog, reload,
# restarts, the sandbox and permissions; then upgrades, removes and purges the package (checks
# 12-15, a package only), and upgrades the single 0.1.0-1 package to the split ones (check 17:
# splashd-web, splashd-otel and splashd-themes are found beside splashd's package). One line per check (PASS/FAIL); exit 1 if any failed,
# 2 if the container could not be set up. Needs root, systemd-nspawn (systemd-container),
# nsenter, openssl, jq. Bounded: every wait has a timeout, the whole run is killed after
# SYSTEST_DEADLINE seconds (default 420).
set -uo pipefail

usage() {
    echo "usage: $0 PACKAGE.deb | --bin-dir DIR   [--log FILE]" >&2
    exit 64
}

if [ -z "${SPLASHD_SYSTEST_NS:-}" ]; then
    [ "$(id -u)" -eq 0 ] || { echo "system-test: needs root (systemd-nspawn, mounts)" >&2; exit 2; }
    for tool in systemd-nspawn nsenter unshare openssl jq; do
        command -v "$tool" >/dev/null || { echo "system-test: $tool is missing (scripts/setup.sh installs it)" >&2; exit 2; }
    done
    # A private mount namespace: the overlay, its tmpfs and nspawn's bookkeeping under /run/systemd
    # exist only in it and vanish with it. `timeout` bounds the whole run.
    export SPLASHD_SYSTEST_NS=1 SYSTEST_STARTED_NS=$(date +%s%N)
    exec timeout --foreground --kill-after=90s "${SYSTEST_DEADLINE:-420}" unshare --mount --propagation private -- "$BASH" "$0" "$@"
fi

REPO=$(cd "$(dirname "$0")/.." && pwd)
DEB="" BIN_DIR="" LOG_FILE=""
while [ $# -gt 0 ]; do
    case $1 in
        --bin-dir) BIN_DIR=$(realpath "$2"); shift 2 ;;
        --log) LOG_FILE=$2; shift 2 ;;
        -h | --help) usage ;;
        -*) usage ;;
        *) DEB=$(realpath "$1"); shift ;;
    esac
done
if [ -n "$DEB" ]; then
    [ -f "$DEB" ] || { echo "system-test: no such package: $DEB" >&2; exit 2; }
elif [ -n "$BIN_DIR" ]; then
    [ -x "$BIN_DIR/splashd" ] && [ -x "$BIN_DIR/splashctl" ] || { echo "system-test: $BIN_DIR lacks splashd or splashctl" >&2; exit 2; }
else
    usage
fi

SIBLINGS=() SPLIT_VERSION="" # the other packages' file names (in $WORK/files), and their version
MACHINE=splashd-systest-$$
WORK=$(mktemp -d /tmp/splashd-systest.XXXXXX)
mount -t tmpfs -o mode=0700,size=2g splashd-systest "$WORK"
mkdir -p "$WORK"/{upper,ovlwork,root,files}
ROOT=$WORK/root              # the container's root as the host sees it (the merged overlay)
LOG=$WORK/log                # everything the checks ran and saw
CONSOLE=$WORK/console        # the container's console
NSPAWN_PID="" LEADER=""
: >"$LOG"

say() { echo "$*" | tee -a "$LOG"; }
log() { echo "$*" >>"$LOG"; }
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
        # An orderly poweroff (SIGRTMIN+4 to the container's systemd), then SIGKILL to our own
        # nspawn and container init if it hangs.
        [ -n "$LEADER" ] && kill -RTMIN+4 "$LEADER" 2>/dev/null
        timeout 20 tail --pid="$NSPAWN_PID" -f /dev/null
        if kill -0 "$NSPAWN_PID" 2>/dev/null; then
            say "teardown: the container did not power off within 20s; killing nspawn $NSPAWN_PID"
            [ -n "$LEADER" ] && kill -KILL "$LEADER" 2>/dev/null
            kill -KILL "$NSPAWN_PID" 2>/dev/null
            timeout 10 tail --pid="$NSPAWN_PID" -f /dev/null
        fi
    fi
    [ -n "$LOG_FILE" ] && cp "$LOG" "$LOG_FILE" 2>/dev/null
    umount "$ROOT" 2>/dev/null
    umount "$WORK" 2>/dev/null && rmdir "$WORK"
    exit "$status"
}
trap cleanup EXIT
trap 'echo "system-test: interrupted (deadline or signal)" | tee -a "$LOG" >&2; exit 2' INT TERM

# ---------------------------------------------------------------------------------------------
# Running things in the container

# Runs a command inside the container (all its namespaces) with a clean environment.
c() {
    nsenter --target "$LEADER" --all -- env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 TERM=dumb SYSTEMD_COLORS=0 SYSTEMD_PAGER= SYSTEMD_LESS= "$@"
}
# The same, with the command and its output in the log only.
cl() {
    log "# $*"
    c "$@" >>"$LOG" 2>&1
}
# Runs a command as USER inside the container, with USER's groups and no PAM session.
as_user() {
    local user=$1
    shift
    c setpriv --reuid="$user" --regid="$(c id -g "$user")" --init-groups -- "$@"
}
prop() { c systemctl show -p "$2" --value "$1"; }
# The cursor of the journal's newest entry: later waits look only at what comes after it.
cursor() { c journalctl -n 1 -o json --no-pager | jq -r .__CURSOR; }
# jq helpers for the conditions below: an entry's message (a string even when the journal holds
# bytes), the daemon's own records, and systemd's (PID 1) records about a unit.
JQ_DEFS='def msg: (.MESSAGE | if type == "string" then . else "" end);
def daemon: ._SYSTEMD_UNIT == "splashd.service";
def about($unit): ._PID == "1" and .UNIT == $unit;'
# Prints the first journal entry (JSON) after CURSOR for which the jq CONDITION holds, waiting
# at most SECONDS for it (journalctl --follow). Matching is done by jq, not by journalctl field
# matches: journalctl 252 with --after-cursor and a match skips the first matching entry when
# the cursor's own entry does not match (it skips two entries, assuming the first is the cursor's).
jwait() {
    local seconds=$1 after=$2 condition=$3 rc=0
    c timeout "$seconds" sh -c 'journalctl --follow --lines=all --after-cursor="$1" -o json | jq -n -c "$2 first(inputs | select($3))"' \
        sh "$after" "$JQ_DEFS" "$condition" || rc=$?
    [ "$rc" = 0 ] || log "  jwait: exit $rc waiting ${seconds}s after $after for $condition"
    return "$rc"
}
# The entries after CURSOR for which the jq CONDITION holds (JSON lines), without waiting.
since() {
    c journalctl --after-cursor="$1" -o json --no-pager | jq -c "$JQ_DEFS select($2)"
}
# The messages of `since`, joined with |.
since_messages() { since "$@" | jq -r '.MESSAGE | strings' | paste -sd'|'; }
# Waits for the next start job of UNIT after CURSOR to end; prints its result (done, failed, …).
wait_start_job() {
    jwait "$1" "$2" "about(\"$3\") and .JOB_TYPE == \"start\" and .JOB_RESULT != null" | jq -r '.JOB_RESULT // empty'
}
# Waits for the daemon's answer to a reload; prints its message.
wait_reload() {
    jwait 15 "$1" 'daemon and (msg | test("configuration reloaded|reload failed"))' | jq -r .MESSAGE
}
# How many of the five splashd MESSAGE_IDs `journalctl --list-catalog` lists.
catalog_entries() {
    c journalctl --list-catalog --no-pager | grep -cE '^(76bc5e5d|2fada256|02735621|e926d20f|f0d9320a)'
}
state() { c splashctl status --json; }
steps_of() { jq -r '[.steps[].id] | join(",")'; }

# ---------------------------------------------------------------------------------------------
# Results

declare -a RESULTS=()
FAILED=0
# pass|fail ID NAME EVIDENCE
record() {
    local verdict=$1 id=$2 name=$3 evidence=$4 line
    if [ "$verdict" = pass ]; then line="PASS $id $name: $evidence"; else line="FAIL $id $name: $evidence"; FAILED=$((FAILED + 1)); fi
    RESULTS+=("$line")
    say "$line"
}
# Runs check function FN; it appends evidence with `ev` and a failure reason with `bad`.
EVIDENCE="" REASONS=""
ev() { EVIDENCE+="${EVIDENCE:+; }$*"; log "  evidence: $*"; }
bad() { REASONS+="${REASONS:+; }$*"; log "  FAILED: $*"; }
run_check() {
    local id=$1 name=$2 fn=$3 started
    EVIDENCE="" REASONS=""
    started=$(date +%s%N)
    log "=== check $id $name"
    "$fn"
    local took
    took=$(ms_since "$started")
    if [ -z "$REASONS" ]; then
        record pass "$id" "$name" "$EVIDENCE (${took} ms)"
    else
        record fail "$id" "$name" "$REASONS | seen: $EVIDENCE (${took} ms)"
    fi
}
# ---------------------------------------------------------------------------------------------
# The container

# Finds the container's init (nspawn's child whose pid in its own namespace is 1).
find_leader() {
    local deadline=$((SECONDS + 30)) pid
    while [ $SECONDS -lt $deadline ]; do
        kill -0 "$NSPAWN_PID" 2>/dev/null || return 1
        for pid in $(pgrep -P "$NSPAWN_PID"); do
            if grep -qE '^NSpid:.*[[:space:]]1$' "/proc/$pid/status" 2>/dev/null; then
                LEADER=$pid
                return 0
            fi
        done
        sleep 0.05 # polling for a pid: there is no event to wait for
    done
    return 1
}
# Waits until the container's systemd answers on its private socket.
wait_manager() {
    local deadline=$((SECONDS + 30))
    while [ $SECONDS -lt $deadline ]; do
        c systemctl show -p Version --value >/dev/null 2>&1 && return 0
        kill -0 "$NSPAWN_PID" 2>/dev/null || return 1
        sleep 0.05 # polling for the manager's socket to appear
    done
    return 1
}

# Host units that would start in the container and slow its boot (or touch the network).
MASKS=(postgresql.service apt-daily.service apt-daily-upgrade.service man-db.service
    e2scrub_all.service e2scrub_reap.service fstrim.service dpkg-db-backup.service
    console-getty.service)

setup_overlay() {
    # The host's root file system (not its other mounts) as the lower layer, a tmpfs as the
    # upper one. nspawn 252 refuses --volatile=overlay for "/" ("Spawning container on root
    # directory is not supported"); this upper layer also survives the container's reboot.
    mount -t overlay splashd-systest -o "lowerdir=/,upperdir=$WORK/upper,workdir=$WORK/ovlwork" "$ROOT" || return 1
    # nspawn keeps state under /run/systemd on the host (a plain directory here, no systemd as
    # PID 1): give it a tmpfs that only this namespace sees.
    mount -t tmpfs -o mode=0755 splashd-systest-run /run/systemd
}

start_container() {
    local args=() unit
    for unit in "${MASKS[@]}"; do args+=("systemd.mask=$unit"); done
    # The host is cgroup v1+v2 hybrid; a Debian 12 device is unified: give the container that.
    # setpriv --pdeathsig: should this script be killed outright, nspawn (and with it the
    # container) goes too.
    SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1 setpriv --pdeathsig KILL -- systemd-nspawn --quiet --boot --directory="$ROOT" \
        --machine="$MACHINE" --register=no --keep-unit --link-journal=no --console=read-only \
        --tmpfs=/opt/swift --tmpfs=/opt/swift-packages --tmpfs=/work --tmpfs=/tmp \
        "${args[@]}" systemd.log_color=0 >>"$CONSOLE" 2>&1 </dev/null &
    NSPAWN_PID=$!
    find_leader && wait_manager
}

# `systemctl reboot` in the container: nspawn exits with 133 (systemd-nspawn@.service restarts
# it with RestartForceExitStatus=133); start it again on the same overlay.
reboot_container() {
    local status=0
    # The manager may go down before it answers ("Call to Reboot failed: Connection reset by peer").
    cl systemctl reboot
    timeout 60 tail --pid="$NSPAWN_PID" -f /dev/null
    wait "$NSPAWN_PID" || status=$?
    log "nspawn exited with $status after the reboot"
    [ "$status" = 133 ] || { say "system-test: nspawn exited with $status after reboot, want 133"; return 1; }
    LEADER="" NSPAWN_PID=""
    start_container
}

# ---------------------------------------------------------------------------------------------
# Test fixtures

write_file() { # PATH-IN-CONTAINER MODE, content on stdin; atomic (rename)
    local path=$ROOT$1 mode=$2
    mkdir -p "$(dirname "$path")"
    cat >"$path.systest-tmp" && chmod "$mode" "$path.systest-tmp" && mv -f "$path.systest-tmp" "$path"
}

# The embedded default's four built-ins, with control_group. With PORT, auth-refresh and
# config-fetch talk to the test's HTTPS server on 127.0.0.1:PORT (check 10).
common_steps() {
    local port=${1:-}
    cat <<'EOF'

[socket]
control_group = "splash"

[[step]]
id = "auth"
plugin = "auth-refresh"
label = "Signing in"
EOF
    [ -z "$port" ] || printf '[step.options]\ntoken_url = "https://127.0.0.1:%s/token"\nclient_id = "splashd-systest"\n' "$port"
    cat <<'EOF'

[[step]]
id = "config"
plugin = "config-fetch"
label = "Loading configuration"
EOF
    [ -z "$port" ] || printf '[step.options]\nurl = "https://127.0.0.1:%s/config.json"\n' "$port"
    cat <<'EOF'

[[step]]
id = "counter"
plugin = "launch-counter"
after = ["auth"]
critical = false
[step.options]
count_when = "always"

[[step]]
id = "quick"
plugin = "quick-action"
critical = false
EOF
}

# The boot launch: the embedded default's four built-ins plus a signal step, and an exit
# animation long enough that only the renderer's `dismissed` ends it (the test is the renderer).
config_boot() {
    cat <<'EOF'
# splashd system test, boot: the test completes first-frame and sends dismissed.
[splash]
min_display = "200ms"
timeout = "5m"
exit_animation = "5m"
EOF
    common_steps
    cat <<'EOF'

[[step]]
id = "first-frame"
plugin = "signal"
label = "Starting the app"
EOF
}

# After the reload: launches finish by themselves; a new step shows the reload took effect.
config_auto() {
    cat <<'EOF'
# splashd system test, after reload: launches finish by themselves.
[splash]
min_display = "0ms"
timeout = "1m"
exit_animation = "0ms"
EOF
    common_steps
    cat <<'EOF'

[[step]]
id = "reloaded"
plugin = "config-fetch"
critical = false
label = "Step added by the reload"
[step.options]
cache = "reloaded.json"
EOF
}

# Check 10: HTTPS for auth-refresh and config-fetch, an operator plugin, the shipped wait-device.
config_plugins() {
    cat <<'EOF'
# splashd system test, plugins and HTTPS.
[splash]
min_display = "0ms"
timeout = "1m"
exit_animation = "0ms"
EOF
    common_steps "$1"
    cat <<'EOF'

[[step]]
id = "probe"
plugin = "systest-probe"
after = ["config"]
retry = { attempts = 2, backoff = "100ms" }
label = "Probing the sandbox"
[step.options]
greeting = "hello"

[[step]]
id = "display"
plugin = "wait-device"
label = "Waiting for the display"
[step.options]
path = "/run/systest-display"
EOF
}

# Check 8: a plugin that is running (with a process that left its group) when the daemon stops.
config_sleeper() {
    cat <<'EOF'
# splashd system test, stop: a plugin is running, one of its processes left its group.
[splash]
min_display = "0ms"
timeout = "5m"
exit_animation = "0ms"

[socket]
control_group = "splash"

[[step]]
id = "sleeper"
plugin = "systest-sleeper"
timeout = "5m"
label = "Sleeping"
EOF
}

write_plugins() {
    write_file /etc/splashd/plugins.d/systest-probe.toml 0644 <<'EOF'
exec = "systest-probe.sh"
description = "System test: reports who it runs as; its first attempt fails on purpose (exit 75)"
timeout = "10s"
EOF
    write_file /etc/splashd/plugins.d/systest-probe.sh 0755 <<'EOF'
#!/bin/sh
echo "probe attempt $SPLASHD_ATTEMPT of step $SPLASHD_STEP as $(id -un), greeting=$SPLASHD_OPT_GREETING" >&2
if [ "$SPLASHD_ATTEMPT" = 1 ]; then
    echo "first attempt fails on purpose (exit 75)" >&2
    exit 75
fi
echo '{"progress":0.5}'
echo '{"message":"Probing the sandbox"}'
printf '{"facts":{"probe":"ok","user":"%s"}}\n' "$(id -un)"
EOF
    write_file /etc/splashd/plugins.d/systest-sleeper.toml 0644 <<'EOF'
exec = "systest-sleeper.sh"
description = "System test: sleeps, with a child that left the process group (setsid)"
timeout = "5m"
EOF
    write_file /etc/splashd/plugins.d/systest-sleeper.sh 0755 <<'EOF'
#!/bin/sh
setsid sleep 301 </dev/null >/dev/null 2>&1 &
echo '{"message":"Sleeping"}'
exec sleep 302
EOF
}

write_app_unit() {
    write_file /etc/systemd/system/systest-app.service 0644 <<'EOF'
# The example app of docs/systemd.md: starts only once the splash is finished.
[Unit]
Description=Example kiosk app (splashd system test)
Wants=splashd-finished.service
After=splashd-finished.service

[Service]
Type=exec
ExecStart=/bin/sleep infinity

[Install]
WantedBy=multi-user.target
EOF
}

make_certificates() {
    local d=$WORK/files
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
        -subj "/CN=splashd system test CA" -keyout "$d/ca.key" -out "$d/ca.crt" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>>"$LOG" &&
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
            -keyout "$d/server.key" -out "$d/server.csr" 2>>"$LOG" &&
        openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial -days 2 \
            -out "$d/server.crt" -extfile <(printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" \
                "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth") 2>>"$LOG"
}

write_https_server() {
    write_file /srv/systest/https-server.py 0755 <<'EOF'
#!/usr/bin/python3
"""A tiny HTTPS server for the built-in plugins: a token endpoint and a config document."""
import http.server, json, os, socket, ssl, sys, urllib.parse

CERT, KEY = sys.argv[1], sys.argv[2]
CONFIG = json.dumps({"systest": True, "greeting": "hello from the system test"}).encode()
ETAG = '"systest-1"'

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def reply(self, code, body, headers=()):
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path != "/config.json":
            return self.reply(404, b"{}")
        if self.headers.get("If-None-Match") == ETAG:
            self.send_response(304)
            self.send_header("ETag", ETAG)
            self.send_header("Content-Length", "0")
            return self.end_headers()
        self.reply(200, CONFIG, [("ETag", ETAG)])

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        ok = (self.path == "/token" and form.get("grant_type") == ["refresh_token"]
              and form.get("refresh_token") == ["systest-refresh-1"]
              and form.get("client_id") == ["splashd-systest"])
        sys.stderr.write("token request: grant_type=%s client_id=%s accepted=%s\n"
                         % (form.get("grant_type"), form.get("client_id"), ok))
        if not ok:
            return self.reply(400, b'{"error":"invalid_grant"}')
        self.reply(200, json.dumps({"access_token": "systest-access-2", "refresh_token": "systest-refresh-2",
                                    "token_type": "Bearer", "expires_in": 3600}).encode())

    def log_message(self, fmt, *args):
        sys.stderr.write("request: " + (fmt % args) + "\n")
        sys.stderr.flush()

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(CERT, KEY)
server.socket = context.wrap_socket(server.socket, server_side=True)
port = server.server_address[1]
with open("/run/systest-https.port", "w") as f:
    f.write("%d\n" % port)
address = os.environ.get("NOTIFY_SOCKET", "")
if address:
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.sendto(("READY=1\nSTATUS=listening on 127.0.0.1:%d" % port).encode(),
                  "\0" + address[1:] if address.startswith("@") else address)
server.serve_forever()
EOF
}

# ---------------------------------------------------------------------------------------------
# Installing

install_package() {
    mkdir -p "$ROOT/srv/systest"
    if [ -n "$DEB" ]; then
        local name
        name=$(basename "$DEB")
        cp "$WORK/files/$name" "$ROOT/srv/systest/"
        # The host is a container image whose /usr/sbin/policy-rc.d (exit 101) stops maintainer
        # scripts from starting services; a device has none. Removed in the overlay only.
        if [ -e "$ROOT/usr/sbin/policy-rc.d" ]; then
            rm -f "$ROOT/usr/sbin/policy-rc.d"
            say "install: removed the host image's /usr/sbin/policy-rc.d in the container (it denies starts in postinst)"
        fi
        # man-db's trigger rebuilds the host's manual index after every install and remove (a
        # second or so each, four times); the test does not read manual pages.
        if [ -e "$ROOT/var/lib/man-db/auto-update" ]; then
            rm -f "$ROOT/var/lib/man-db/auto-update"
            say "install: man-db's index updates turned off in the container (/var/lib/man-db/auto-update)"
        fi
        say "install: apt-get install ./$name (in the running container)"
        cl timeout 180 env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "/srv/systest/$name"
    else
        say "install: from $BIN_DIR and this repo's systemd/ and plugins/ (docs/systemd.md, 'Installing in an image')"
        install -Dm755 "$BIN_DIR/splashd" "$ROOT/usr/bin/splashd"
        install -Dm755 "$BIN_DIR/splashctl" "$ROOT/usr/bin/splashctl"
        install -Dm644 "$REPO/systemd/splashd.service" "$ROOT/usr/lib/systemd/system/splashd.service"
        install -Dm644 "$REPO/systemd/splashd.socket" "$ROOT/usr/lib/systemd/system/splashd.socket"
        install -Dm644 "$REPO/systemd/splashd-finished.service" "$ROOT/usr/lib/systemd/system/splashd-finished.service"
        install -Dm644 "$REPO/systemd/sysusers.d/splashd.conf" "$ROOT/usr/lib/sysusers.d/splashd.conf"
        install -Dm644 "$REPO/systemd/tmpfiles.d/splashd.conf" "$ROOT/usr/lib/tmpfiles.d/splashd.conf"
        install -Dm644 "$REPO/systemd/splashd.catalog" "$ROOT/usr/lib/systemd/catalog/splashd.catalog"
        install -Dm644 "$REPO/packaging/polkit/50-splashd.rules" "$ROOT/usr/share/polkit-1/rules.d/50-splashd.rules"
        mkdir -p "$ROOT/usr/lib/splashd/plugins"
        cp -r "$REPO"/plugins/*.toml "$REPO"/plugins/wait-device "$REPO"/plugins/wait-network "$ROOT/usr/lib/splashd/plugins/"
        cl systemd-sysusers /usr/lib/sysusers.d/splashd.conf &&
            cl systemd-tmpfiles --create /usr/lib/tmpfiles.d/splashd.conf &&
            cl journalctl --update-catalog &&
            cl systemctl daemon-reload &&
            cl systemctl enable --now splashd.service
    fi
}

# ---------------------------------------------------------------------------------------------
# The checks

BOOT_CURSOR=""     # the journal before the reboot
BOOT_INVOCATION="" # splashd.service's invocation at boot
BOOT_WARNINGS=""   # what `journalctl -u splashd -p warning` showed after the boot launch

# Check 0: what installing did on the running system. The package (SPEC §11) enables the socket
# and the finished unit and starts the socket; --bin-dir follows docs/systemd.md (enable --now
# splashd.service, which also enables the socket).
check_install() {
    local enabled active libs dirs groups out rc=0
    enabled=$(c systemctl is-enabled splashd.socket splashd.service splashd-finished.service 2>&1 | paste -sd/)
    active=$(c systemctl is-active splashd.socket splashd.service splashd-finished.service | paste -sd/)
    libs=$(c ldd /usr/bin/splashd /usr/bin/splashctl 2>&1 | awk '/=>|ld-linux/ {print $1}' | sort -u | paste -sd' ')
    ev "splashd --version: $(c splashd --version 2>&1); is-enabled socket/service/finished: $enabled; is-active: $active"
    ev "libraries: $libs"
    if c ldd /usr/bin/splashd /usr/bin/splashctl | grep -qE 'not found|/opt/swift|libswift|libFoundation|libdispatch'; then
        bad "the binaries need the Swift toolchain's libraries"
    fi
    # The sysusers and tmpfiles snippets.
    dirs=$(c stat -c '%n %U:%G %a' /var/lib/splashd /run/splashd /etc/splashd/plugins.d 2>&1 | paste -sd,)
    groups=$(c id -nG splashd 2>&1)
    ev "directories: $dirs; splashd's groups: $groups"
    [ "$dirs" = "/var/lib/splashd splashd:splashd 700,/run/splashd splashd:splashd 755,/etc/splashd/plugins.d root:root 755" ] ||
        bad "directories' owners and modes: $dirs"
    in_list splash "$groups" || bad "the user splashd is not in the group splash"
    if [ -n "$DEB" ]; then
        ev "dpkg: $(c dpkg-query -W -f '${Status} ${Version}' splashd); conffiles: $(c dpkg-query -W -f '${Conffiles}' splashd | awk 'NF {print $1}' | paste -sd' ')"
        [ "$enabled" = enabled/disabled/enabled ] || bad "is-enabled socket/service/finished is $enabled, want enabled/disabled/enabled (SPEC §11)"
        [ "${active%%/*}" = active ] || bad "postinst did not start splashd.socket"
        [ "$active" = active/inactive/inactive ] || bad "is-active socket/service/finished is $active: installing should start only the socket"
        out=$(c splashd check --config /etc/splashd/splashd.toml 2>&1) || rc=$?
        ev "the shipped configuration: $out"
        [ "$rc" = 0 ] || bad "the shipped /etc/splashd/splashd.toml does not pass splashd check"
        [ "$(c splashctl ping 2>&1)" = "pong (splashd $(c splashd --version 2>&1))" ] || bad "splashctl ping through the new socket failed"
        ev "splashctl ping right after install (socket activation): $(c splashctl ping 2>&1)"
    else
        # The finished unit has an [Install] section (for the package); systemd.md's commands
        # leave it disabled.
        [ "$enabled" = enabled/enabled/disabled ] || bad "is-enabled socket/service/finished is $enabled, want enabled/enabled/disabled (docs/systemd.md)"
    fi
}

in_list() { [[ " $2 " == *" $1 "* ]]; }

# Check 1. The test connects only after the boot's start job of splashd.service is done, and
# splashd-finished.service (the one client at boot) is ordered after it: what started the
# service is the boot transaction, never a connection. Which unit pulled it in is reported.
check_socket_at_boot() {
    local socket_state service_state socket_at service_at service_exit stat listen
    local svc_enabled svc_wanted svc_required triggered sock_wanted fin_wanted
    socket_state=$(prop splashd.socket ActiveState)/$(prop splashd.socket SubState)
    service_state=$(prop splashd.service ActiveState)/$(prop splashd.service SubState)
    socket_at=$(prop splashd.socket ActiveEnterTimestampMonotonic)
    service_exit=$(prop splashd.service InactiveExitTimestampMonotonic)
    service_at=$(prop splashd.service ActiveEnterTimestampMonotonic)
    svc_enabled=$(c systemctl is-enabled splashd.service)
    svc_wanted=$(prop splashd.service WantedBy)
    svc_required=$(prop splashd.service RequiredBy)
    triggered=$(prop splashd.service TriggeredBy)
    sock_wanted=$(prop splashd.socket WantedBy)
    fin_wanted=$(prop splashd-finished.service WantedBy)
    stat=$(c stat -c '%F %U:%G %a' /run/splashd/splashd.sock 2>&1)
    # The container shares the host's network namespace, so ss lists every listening Unix socket
    # on the machine (other containers' too): ours is the one this container's PID 1 holds.
    listen=$(c ss -xlnp 2>/dev/null | grep -F /run/splashd/splashd.sock | grep -F '"systemd",pid=1,' | tr -s ' ')
    ev "splashd.socket $socket_state since +$((socket_at / 1000))ms (container clock), WantedBy=$sock_wanted"
    ev "socket file: $stat; ss: ${listen:-nothing}"
    ev "splashd.service $service_state, started +$((service_exit / 1000))ms, ready +$((service_at / 1000))ms, TriggeredBy=$triggered"
    [ "$socket_state" = active/running ] || [ "$socket_state" = active/listening ] || bad "splashd.socket is $socket_state"
    in_list sockets.target "$sock_wanted" || bad "splashd.socket is not enabled in sockets.target"
    [ "$stat" = "socket root:splash 660" ] || bad "socket file is '$stat', want 'socket root:splash 660'"
    [[ $listen == *LISTEN* ]] || bad "nothing listens on /run/splashd/splashd.sock"
    [ "$service_state" = active/running ] || bad "splashd.service is $service_state"
    [ "$BOOT_INVOCATION" = "$(prop splashd.service InvocationID)" ] || bad "splashd.service was restarted since boot"
    in_list splashd.socket "$triggered" || bad "splashd.service is not triggered by splashd.socket"
    [ "$socket_at" -gt 0 ] && [ "$socket_at" -le "$service_exit" ] || bad "the socket did not listen before the service started"
    # docs/systemd.md: splashd.service is enabled (WantedBy=multi-user.target) and starts at boot.
    # The package (SPEC §11) enables splashd-finished.service instead, which Requires= it.
    if in_list multi-user.target "$svc_wanted"; then
        ev "started at boot: multi-user.target wants splashd.service (is-enabled: $svc_enabled), as docs/systemd.md says"
    elif in_list splashd-finished.service "$svc_required" && in_list multi-user.target "$fin_wanted"; then
        ev "started at boot: multi-user.target wants splashd-finished.service, which Requires= splashd.service (splashd.service is-enabled: $svc_enabled; docs/systemd.md says it is enabled itself)"
    else
        bad "nothing at boot pulls in splashd.service (WantedBy=$svc_wanted RequiredBy=$svc_required)"
    fi
}

check_status_text() {
    local status_line text
    status_line=$(c systemctl status splashd.service --no-pager 2>&1 | grep -E '^ *Status: ' | sed 's/^ *//')
    text=$(prop splashd.service StatusText)
    ev "systemctl status: ${status_line:-no Status: line}"
    [[ $text =~ ^loading\ [0-9]+%:\ Starting\ the\ app$ ]] || bad "StatusText is '$text', want 'loading N%: Starting the app' (the boot launch waits for first-frame)"
    [ "$status_line" = "Status: \"$text\"" ] || bad "systemctl status does not show the STATUS= text"
}

# Check 3 at boot: the launch waits in first-frame; the test completes it and sends dismissed.
check_finished_ordering() {
    local finished_state app_state jobs launch launch_mono finished_exit finished_at app_exit app_at rc st
    finished_state=$(prop splashd-finished.service ActiveState)/$(prop splashd-finished.service SubState)
    app_state=$(prop systest-app.service ActiveState)
    jobs=$(c systemctl list-jobs --no-legend --no-pager | awk '{print $2 "/" $3 "/" $4}' | paste -sd' ')
    ev "while loading: splashd-finished $finished_state, systest-app $app_state, jobs: ${jobs:-none}"
    [ "$finished_state" = activating/start ] || bad "splashd-finished.service is $finished_state while the splash is loading"
    [ "$app_state" = inactive ] || bad "systest-app.service is $app_state while the splash is loading"

    cl splashctl complete first-frame || bad "splashctl complete first-frame failed"
    cl splashctl wait dismissing --timeout 20s || bad "no dismissing after first-frame"
    st=$(state)
    finished_state=$(prop splashd-finished.service ActiveState)
    ev "in $(jq -r .phase <<<"$st"): splashd-finished $finished_state"
    [ "$(jq -r .phase <<<"$st")" = dismissing ] || bad "phase is $(jq -r .phase <<<"$st"), want dismissing (exit_animation 5m)"
    [ "$finished_state" = activating ] || bad "splashd-finished.service is $finished_state in phase dismissing"

    local before
    before=$(cursor)
    cl splashctl dismissed || bad "splashctl dismissed failed"
    c splashctl wait finished --timeout 10s || bad "no finished after dismissed"
    st=$(state)
    launch=$(jq -r .launch <<<"$st")
    ev "launch $launch finished, destination $(jq -c .destination <<<"$st")"
    rc=$(wait_start_job 30 "$before" systest-app.service)
    [ "$rc" = done ] || bad "systest-app.service start job: '${rc:-no job}'"
    # When the daemon sent the launch-finished record: journald stamps __MONOTONIC_TIMESTAMP when
    # it gets to the record, which can be a few ms after splashd-finished.service is already
    # active; _SOURCE_REALTIME_TIMESTAMP is the socket's receive time (SO_TIMESTAMP), and the
    # daemon sends the record (synchronously) before it publishes the state. Mapped onto the
    # monotonic clock with the record's own realtime/monotonic pair.
    local record stored_mono
    record=$(c journalctl -o json MESSAGE_ID=f0d9320a7af2417aa3e2dba4301af87c SPLASHD_LAUNCH="$launch" | head -n 1)
    stored_mono=$(jq -r '.__MONOTONIC_TIMESTAMP // empty' <<<"$record")
    launch_mono=$(jq -r '(.__MONOTONIC_TIMESTAMP | tonumber) - ((.__REALTIME_TIMESTAMP | tonumber) - ((._SOURCE_REALTIME_TIMESTAMP // .__REALTIME_TIMESTAMP) | tonumber))' <<<"$record")
    [ -n "$stored_mono" ] && ev "launch-finished record sent at $launch_mono, stored by journald at $stored_mono (+$(((stored_mono - launch_mono) / 1000))ms; _SOURCE_REALTIME_TIMESTAMP $(jq -r '._SOURCE_REALTIME_TIMESTAMP // "missing"' <<<"$record"))"
    finished_exit=$(prop splashd-finished.service InactiveExitTimestampMonotonic)
    finished_at=$(prop splashd-finished.service ActiveEnterTimestampMonotonic)
    app_exit=$(prop systest-app.service InactiveExitTimestampMonotonic)
    app_at=$(prop systest-app.service ActiveEnterTimestampMonotonic)
    if [ -z "$stored_mono" ]; then
        bad "no launch-finished record (MESSAGE_ID f0d9…) for launch $launch"
        return
    fi
    ev "monotonic µs: splashd-finished started $finished_exit; launch-finished record $launch_mono; splashd-finished active $finished_at (+$(((finished_at - launch_mono) / 1000))ms); systest-app started $app_exit, active $app_at (+$(((app_at - launch_mono) / 1000))ms)"
    [ "$finished_exit" -lt "$launch_mono" ] || bad "splashd-finished.service did not wait (started after the launch finished)"
    [ "$launch_mono" -le "$finished_at" ] || bad "splashd-finished.service became active before the launch finished"
    [ "$finished_at" -le "$app_exit" ] || bad "systest-app.service started before splashd-finished.service was active"
}

check_journal() {
    local json fields ids missing=() f id catalog listed
    json=$(c journalctl -o json -u splashd.service --no-pager)
    fields=$(jq -r 'keys[]' <<<"$json" | sort -u)
    for f in SPLASHD_LAUNCH SPLASHD_STEP SPLASHD_PHASE SPLASHD_ATTEMPT SPLASHD_DURATION_MS CODE_FILE CODE_LINE MESSAGE_ID; do
        grep -qx "$f" <<<"$fields" || missing+=("$f")
    done
    ids=$(jq -r 'select(._SYSTEMD_UNIT == "splashd.service") | .MESSAGE_ID // empty' <<<"$json" | sort | uniq -c | awk '{print $2 "×" $1}' | paste -sd' ')
    ev "$(jq -s 'length' <<<"$json") entries; SPLASHD_* fields: $(grep '^SPLASHD_' <<<"$fields" | paste -sd,); MESSAGE_IDs: $ids"
    [ ${#missing[@]} -eq 0 ] || bad "fields missing: ${missing[*]}"
    for id in 76bc5e5dee6741ef924f31ac5e522255 2fada2569d0c4ec18c2ed58c92bdb5ca 02735621af554ba9a64591fdb7ce0bc1 e926d20f31694d59abb8d172b1b2931e f0d9320a7af2417aa3e2dba4301af87c; do
        [[ $ids == *"$id"* ]] || bad "no record with MESSAGE_ID=$id"
    done
    catalog=$(c journalctl -x -u splashd.service MESSAGE_ID=f0d9320a7af2417aa3e2dba4301af87c -n 1 --no-pager)
    log "$catalog"
    ev "journalctl -x: $(grep -m1 -F '░░ Subject:' <<<"$catalog" | sed 's/^ *//')"
    grep -qF 'Units ordered after splashd-finished.service start now.' <<<"$catalog" || bad "journalctl -x shows no catalog text for launch finished"
    listed=$(catalog_entries)
    ev "journalctl --list-catalog: $listed splashd entries"
    [ "$listed" -eq 5 ] || bad "journalctl --list-catalog lists $listed of the 5 splashd MESSAGE_IDs"
}

# splashctl logs reads a launch back from the system journal through sd-journal: check 10's
# launch, in which the operator's probe failed its first attempt and succeeded with its second.
PLUGINS_LAUNCH=""
check_logs() {
    local json table events rc=0 out
    [ -n "$PLUGINS_LAUNCH" ] || { bad "check 10 recorded no launch"; return; }
    json=$(c splashctl logs last --json) || { bad "splashctl logs last --json failed"; return; }
    log "$json"
    events=$(jq -r '"\(.event)/\(.step // "-")#\(.attempt // "-")"' <<<"$json" | paste -sd' ')
    ev "splashctl logs last --json: $(wc -l <<<"$json") records, launch $(jq -r .launch <<<"$json" | sort -u | paste -sd,); events: $(cut -c1-300 <<<"$events")"
    [ "$(jq -r .launch <<<"$json" | sort -u)" = "$PLUGINS_LAUNCH" ] || bad "'last' is not check 10's launch $PLUGINS_LAUNCH"
    [ "$(jq -r .event <<<"$json" | head -n 1)" = launch-started ] || bad "the first record is not launch-started"
    [ "$(jq -r .event <<<"$json" | tail -n 1)" = launch-finished ] || bad "the last record is not launch-finished"
    jq -s -e 'any(.[]; .event == "step-failed" and .step == "probe" and (.attempt | tostring) == "1")' <<<"$json" >/dev/null ||
        bad "no step-failed record of the probe's first attempt"
    jq -s -e 'any(.[]; .event == "step-finished" and .step == "probe" and (.attempt | tostring) == "2")' <<<"$json" >/dev/null ||
        bad "no step-finished record of the probe's second attempt"
    table=$(c splashctl logs "$PLUGINS_LAUNCH") || bad "splashctl logs LAUNCH failed"
    log "$table"
    ev "table: $(head -n 1 <<<"$table" | tr -s ' '); $(wc -l <<<"$table") lines; probe rows: $(grep -c ' probe ' <<<"$table")"
    grep -q 'attempt 2 of step probe as splashd' <<<"$table" || bad "the table lacks the probe's stderr line"
    out=$(c splashctl logs 00000000-0000-0000-0000-000000000000 2>&1) || rc=$?
    ev "an unknown launch: exit $rc '$out'"
    [ "$rc" = 1 ] || bad "an unknown launch did not exit 1"
}

check_watchdog() {
    local inode socket_since socket_left pid restarts launch before after watchdog st killed_how result
    write_file /etc/systemd/system/splashd.service.d/50-systest-watchdog.conf 0644 <<'EOF'
[Service]
WatchdogSec=3s
EOF
    cl systemctl daemon-reload
    before=$(cursor)
    cl systemctl restart splashd.service || bad "restart with the watchdog drop-in failed"
    c splashctl wait finished --timeout 30s || bad "no launch finished after the restart"
    inode=$(c stat -c %i /run/splashd/splashd.sock)
    socket_since=$(prop splashd.socket ActiveEnterTimestampMonotonic)
    socket_left=$(prop splashd.socket InactiveEnterTimestampMonotonic)
    pid=$(prop splashd.service MainPID)
    restarts=$(prop splashd.service NRestarts)
    launch=$(state | jq -r .launch)
    watchdog=$(c cat "/proc/$pid/environ" | tr '\0' '\n' | grep '^WATCHDOG_USEC=')
    ev "test drop-in WatchdogSec=3s (the unit ships 30s): daemon $pid has $watchdog"
    [ "$watchdog" = WATCHDOG_USEC=3000000 ] || bad "the daemon got $watchdog"

    before=$(cursor)
    local stopped_ns
    stopped_ns=$(date +%s%N)
    c kill -STOP "$pid" || bad "could not SIGSTOP the daemon"
    if jwait 20 "$before" 'about("splashd.service") and (msg | test("Watchdog timeout"))' >/dev/null; then
        ev "systemd: 'Watchdog timeout' $(ms_since "$stopped_ns") ms after SIGSTOP"
    else
        bad "no watchdog timeout within 20s of SIGSTOP"
    fi
    result=$(wait_start_job 45 "$before" splashd.service)
    ev "restarted ($(ms_since "$stopped_ns") ms after SIGSTOP): start job $result"
    [ "$result" = done ] || bad "restart job: '${result:-none within 45s}'"
    killed_how=$(since "$before" 'about("splashd.service") and (msg | test("Watchdog timeout|Killing process|Main process exited|Failed with result|Scheduled restart|Started"))' |
        jq -s -r '(.[0].__MONOTONIC_TIMESTAMP | tonumber) as $t0 | map("+\(((.__MONOTONIC_TIMESTAMP | tonumber) - $t0) / 1000 | floor)ms \(.MESSAGE)") | join("|")')
    ev "journal: $killed_how"
    c splashctl wait finished --timeout 30s || bad "no launch finished after the watchdog restart"
    st=$(state)
    after=$(prop splashd.service MainPID)
    ev "new daemon $after, launch $(jq -r .launch <<<"$st") $(jq -r .phase <<<"$st"); NRestarts $restarts -> $(prop splashd.service NRestarts)"
    [ "$after" != "$pid" ] && [ "$after" != 0 ] || bad "no new main process"
    [ "$(jq -r .launch <<<"$st")" != "$launch" ] || bad "no new launch"
    [ "$(prop splashd.service NRestarts)" -eq $((restarts + 1)) ] || bad "NRestarts did not go up by one"
    local inode2
    inode2=$(c stat -c %i /run/splashd/splashd.sock)
    ev "socket inode $inode -> $inode2; splashd.socket active since $socket_since -> $(prop splashd.socket ActiveEnterTimestampMonotonic), state $(prop splashd.socket ActiveState)"
    [ "$inode" = "$inode2" ] || bad "the socket file changed"
    [ "$socket_since" = "$(prop splashd.socket ActiveEnterTimestampMonotonic)" ] && [ "$socket_left" = "$(prop splashd.socket InactiveEnterTimestampMonotonic)" ] ||
        bad "splashd.socket was deactivated"
    rm -f "$ROOT/etc/systemd/system/splashd.service.d/50-systest-watchdog.conf"
    rmdir "$ROOT/etc/systemd/system/splashd.service.d" # the purge check looks for anything named splashd there
    cl systemctl daemon-reload
}

check_reload() {
    local before pid msg st steps rc
    pid=$(prop splashd.service MainPID)
    config_auto | write_file /etc/splashd/splashd.toml 0644
    before=$(cursor)
    cl systemctl reload splashd.service || bad "systemctl reload failed"
    msg=$(wait_reload "$before")
    ev "good config: '$msg'"
    [[ $msg == *"configuration reloaded"* ]] || bad "no 'configuration reloaded' in the journal"
    cl splashctl relaunch || bad "relaunch after the reload failed"
    c splashctl wait finished --timeout 20s || bad "the launch after the reload did not finish"
    st=$(state)
    steps=$(steps_of <<<"$st")
    ev "next launch's steps: $steps"
    [[ ,$steps, == *,reloaded,* && ,$steps, != *,first-frame,* ]] || bad "the reloaded graph did not take effect"

    write_file /etc/splashd/splashd.toml 0644 <<<'this is = = not toml'
    rc=0
    msg=$(c splashd check --config /etc/splashd/splashd.toml 2>&1) || rc=$?
    ev "splashd check on the bad config: exit $rc, '$(head -n 1 <<<"$msg")'"
    [ "$rc" = 78 ] || bad "splashd check exited $rc, want 78"
    before=$(cursor)
    cl systemctl reload splashd.service || bad "systemctl reload (bad config) failed"
    msg=$(wait_reload "$before")
    local priority
    priority=$(since "$before" 'daemon and (msg | test("reload failed"))' | jq -r .PRIORITY | head -n 1)
    ev "bad config: '$msg' (priority $priority)"
    [[ $msg == *"reload failed"* ]] || bad "no 'reload failed' in the journal"
    [ "$(prop splashd.service MainPID)" = "$pid" ] && [ "$(prop splashd.service ActiveState)" = active ] || bad "the daemon did not keep running"
    cl splashctl relaunch || bad "relaunch after the bad reload failed"
    c splashctl wait finished --timeout 20s || bad "the launch after the bad reload did not finish"
    steps=$(state | steps_of)
    ev "still running (pid $pid, $(prop splashd.service ActiveState)); next launch's steps: $steps"
    [ "$steps" = "$(steps_of <<<"$st")" ] || bad "the graph changed after a bad reload"
    config_auto | write_file /etc/splashd/splashd.toml 0644 # the next starts read a good file again
}

check_sigkill_restart() {
    local count history pid restarts before result count2 history2 listed
    count=$(c jq -r .count /var/lib/splashd/launch-counter.json)
    history=$(c wc -l /var/lib/splashd/history.jsonl | awk '{print $1}')
    pid=$(prop splashd.service MainPID)
    restarts=$(prop splashd.service NRestarts)
    before=$(cursor)
    local out rc=0 how
    out=$(c systemctl kill -s KILL splashd.service 2>&1) || rc=$?
    # systemd 252 sometimes reports "Failed to send signal SIGKILL to auxiliary processes:
    # Input/output error" (exit 1) although the main process was killed: what counts is the
    # journal's "status=9/KILL" below.
    [ "$rc" = 0 ] || ev "systemctl kill exited $rc: $out"
    result=$(wait_start_job 30 "$before" splashd.service)
    [ "$result" = done ] || bad "restart job: '${result:-none within 30s}'"
    how=$(since_messages "$before" 'about("splashd.service") and (msg | test("Main process exited|Failed with result|Scheduled restart"))')
    ev "$how"
    [[ $how == *"status=9/KILL"* ]] || bad "the main process was not killed by SIGKILL"
    c splashctl wait finished --timeout 20s || bad "no launch finished after the restart"
    count2=$(c jq -r .count /var/lib/splashd/launch-counter.json)
    history2=$(c wc -l /var/lib/splashd/history.jsonl | awk '{print $1}')
    listed=$(c splashctl history | wc -l)
    ev "daemon $pid -> $(prop splashd.service MainPID), NRestarts $restarts -> $(prop splashd.service NRestarts); launch counter $count -> $count2; history.jsonl $history -> $history2 lines; splashctl history: $listed lines; launched marker: $(c test -e /var/lib/splashd/launched && echo present || echo missing)"
    [ "$(prop splashd.service MainPID)" != "$pid" ] || bad "no new main process"
    [ "$count2" = $((count + 1)) ] || bad "the launch counter went $count -> $count2, want $((count + 1))"
    [ "$history2" = $((history + 1)) ] || bad "history.jsonl went $history -> $history2 lines"
    [ "$listed" -gt "$history" ] || bad "splashctl history shows $listed lines"
    c test -e /var/lib/splashd/launched || bad "the launched marker is gone"
}

check_groups() {
    local out rc member_gid
    cl useradd --system --no-create-home --shell /usr/sbin/nologin --groups splash systest-kiosk
    cl useradd --system --no-create-home --shell /usr/sbin/nologin --gid splash systest-renderer
    cl useradd --system --no-create-home --shell /usr/sbin/nologin systest-outsider
    member_gid=$(c id systest-kiosk)
    ev "systest-kiosk: $member_gid"
    rc=0
    out=$(as_user systest-kiosk splashctl relaunch 2>&1) || rc=$?
    ev "systest-kiosk (splash as a supplementary group) relaunch: exit $rc ${out:+'$out'}"
    [ "$rc" = 0 ] || bad "a member of splash could not relaunch"
    as_user systest-renderer splashctl wait finished --timeout 20s >/dev/null || bad "systest-renderer could not wait"
    rc=0
    out=$(as_user systest-renderer splashctl relaunch 2>&1) || rc=$?
    ev "systest-renderer (primary group splash) relaunch: exit $rc ${out:+'$out'}"
    [ "$rc" = 0 ] || bad "a user whose primary group is splash could not relaunch"
    c splashctl wait finished --timeout 20s >/dev/null || bad "the relaunched launch did not finish"
    rc=0
    out=$(as_user systest-outsider splashctl relaunch 2>&1) || rc=$?
    ev "systest-outsider relaunch: exit $rc '$out'"
    [ "$rc" = 77 ] || bad "a user outside splash got exit $rc, want 77"
    rc=0
    out=$(as_user systest-outsider splashctl status 2>&1) || rc=$?
    ev "systest-outsider status: exit $rc"
    [ "$rc" = 77 ] || bad "a user outside splash could read the state (exit $rc)"
}

check_plugins_https() {
    local port out before st launch expires session rc
    mkdir -p "$ROOT/usr/local/share/ca-certificates"
    cp "$WORK/files/ca.crt" "$ROOT/usr/local/share/ca-certificates/splashd-systest.crt"
    mkdir -p "$ROOT/srv/systest"
    cp "$WORK/files/server.crt" "$WORK/files/server.key" "$ROOT/srv/systest/"
    cl update-ca-certificates || bad "update-ca-certificates failed"
    write_https_server
    cl systemd-run --unit=systest-https -p Type=notify --quiet /usr/bin/python3 /srv/systest/https-server.py \
        /srv/systest/server.crt /srv/systest/server.key || { bad "the HTTPS server did not start"; return; }
    port=$(c cat /run/systest-https.port)
    out=$(c curl -sS --max-time 5 "https://127.0.0.1:$port/config.json" 2>&1)
    ev "HTTPS server on 127.0.0.1:$port (container loopback = host's), curl with the system CA store: $out"
    # An expired session: auth-refresh must POST the refresh grant.
    expires=$(($(date +%s) - 600))
    session=$(printf '{"access_token":"systest-access-1","refresh_token":"systest-refresh-1","expires_at":%d,"user":"Ada"}' "$expires")
    c sh -c 'umask 077; cat >/var/lib/splashd/session.json && chown splashd:splashd /var/lib/splashd/session.json' <<<"$session"
    write_plugins
    config_plugins "$port" | write_file /etc/splashd/splashd.toml 0644
    rc=0
    out=$(c splashd check --config /etc/splashd/splashd.toml 2>&1) || rc=$?
    ev "splashd check: $out"
    [ "$rc" = 0 ] || bad "splashd check refused the plugins config"
    before=$(cursor)
    cl systemctl reload splashd.service
    wait_reload "$before" | grep -q 'configuration reloaded' || bad "the plugins config was not reloaded"
    cl splashctl relaunch || bad "relaunch failed"
    # The display step waits for a path: once a renderer sees it running, the "display" appears.
    if c timeout 20 sh -c 'splashctl watch --json | jq -c --unbuffered "select(any(.steps[]; .id == \"display\" and .status == \"running\"))" | head -n 1' | grep -q display; then
        ev "wait-device (shipped plugin) running, waiting for /run/systest-display"
    else
        bad "the display step never ran"
    fi
    c touch /run/systest-display
    c splashctl wait finished --timeout 30s || bad "the launch did not finish"
    st=$(state)
    launch=$(jq -r .launch <<<"$st")
    PLUGINS_LAUNCH=$launch   # check 16 reads this launch back with splashctl logs
    log "$st"
    ev "steps: $(jq -r '[.steps[] | "\(.id)=\(.status)#\(.attempt)"] | join(" ")' <<<"$st"); destination $(jq -c .destination <<<"$st")"
    jq -e '[.steps[] | select(.status != "succeeded")] | length == 0' <<<"$st" >/dev/null || bad "not every step succeeded"
    [ "$(jq -r '.steps[] | select(.id == "probe") | .attempt' <<<"$st")" = 2 ] || bad "the probe did not need its second attempt"
    [ "$(jq -r .destination.screen <<<"$st")" = home ] || bad "destination is not home (auth-refresh did not sign in)"
    out=$(c journalctl -u splashd.service SPLASHD_LAUNCH="$launch" SPLASHD_STEP=probe -o cat --no-pager | grep -m1 'attempt 2')
    ev "probe's stderr in the journal: '$out'"
    [[ $out == *"as splashd"* ]] || bad "the probe did not run as splashd"
    out=$(c jq -r .access_token /var/lib/splashd/session.json)
    ev "session.json access_token after the refresh: $out; mode $(c stat -c '%a %U' /var/lib/splashd/session.json)"
    [ "$out" = systest-access-2 ] || bad "the session was not refreshed over HTTPS"
    out=$(c cat /var/lib/splashd/config.json 2>&1)
    ev "config.json: $out; etag $(c cat /var/lib/splashd/config.json.etag 2>&1)"
    [ "$(jq -r .greeting <<<"$out" 2>/dev/null)" = "hello from the system test" ] || bad "config-fetch did not store the served config"
    ev "server: $(c journalctl -u systest-https.service -o cat --no-pager | grep -E 'request|token' | paste -sd'|')"
    if c journalctl -u splashd.service -o cat --no-pager | grep -qE 'systest-(access|refresh)-'; then
        bad "a token reached the journal"
    fi
}

check_stop() {
    local procs before st pid rc out
    config_sleeper | write_file /etc/splashd/splashd.toml 0644
    before=$(cursor)
    cl systemctl reload splashd.service
    wait_reload "$before" | grep -q 'configuration reloaded' || bad "the sleeper config was not reloaded"
    cl splashctl relaunch || bad "relaunch failed"
    c timeout 20 sh -c 'splashctl watch --json | jq -c --unbuffered "select(any(.steps[]; .id == \"sleeper\" and .status == \"running\"))" | head -n 1' >/dev/null ||
        bad "the sleeper step never ran"
    procs=$(c ps -u splashd -o pid=,pgid=,args= | tr -s ' ' | paste -sd'|')
    ev "running as splashd before the stop: $procs"
    [[ $procs == *"sleep 301"* && $procs == *"sleep 302"* ]] || bad "the sleeper's processes are not there"
    cl systemctl stop splashd.service
    procs=$(c ps -u splashd -o pid=,args= | tr -s ' ' | paste -sd'|')
    ev "after systemctl stop splashd: Result=$(prop splashd.service Result), ExecMainStatus=$(prop splashd.service ExecMainStatus), processes of splashd: ${procs:-none}; splashd.socket $(prop splashd.socket ActiveState)"
    [ -z "$procs" ] || bad "processes of user splashd survived the stop: $procs"
    [ "$(prop splashd.service ExecMainStatus)" = 0 ] || bad "the daemon did not exit 0"
    c journalctl -u splashd.service -n 30 -o cat --no-pager | grep -E 'outlived|Stopped|Stopping' | tail -n 3 | while read -r line; do log "  $line"; done
    # Socket activation: the socket is still there; a client starts the daemon again.
    rc=0
    out=$(c splashctl ping 2>&1) || rc=$?
    ev "socket activation with the service stopped: splashctl ping -> exit $rc '$out', splashd.service $(prop splashd.service ActiveState)"
    [ "$rc" = 0 ] && [ "$(prop splashd.service ActiveState)" = active ] || bad "a connection did not start splashd.service through the socket"
    cl systemctl stop splashd.socket splashd.service
    procs=$(c ps -u splashd -o pid=,args= | tr -s ' ' | paste -sd'|')
    ev "after stopping the socket and the service: processes of splashd: ${procs:-none}; socket file: $(c stat -c %F /run/splashd/splashd.sock 2>&1 | sed 's/.*: //')"
    [ -z "$procs" ] || bad "processes of user splashd survived: $procs"
    c test ! -e /run/splashd/splashd.sock || bad "the socket file is still there"
}

# What the boot start logged at warning or above, and what the daemon's process logged other
# than through its own logger (which speaks the journal's native protocol): records that came
# by syslog(3) or on stdout/stderr are from a library or the runtime.
check_no_warnings() {
    local foreign warnings
    warnings=$(jq -r 'select((.PRIORITY | tonumber) <= 4) | "\(.SYSLOG_IDENTIFIER // "?")[\(.PRIORITY)]: \(.MESSAGE)"' <<<"$BOOT_RECORDS")
    foreign=$(jq -r 'select(._SYSTEMD_UNIT == "splashd.service" and ._TRANSPORT != "journal") | "\(._TRANSPORT) priority \(.PRIORITY): \(.MESSAGE | strings | sub("0x[0-9a-f]+"; "0x…"))"' <<<"$BOOT_RECORDS" |
        sort | uniq -c | sed 's/^ *\([0-9]*\) /\1× /' | paste -sd'|')
    ev "journalctl -b -u splashd -p warning: $(if [ -z "$BOOT_WARNINGS" ]; then echo empty; else head -n 3 <<<"$BOOT_WARNINGS" | paste -sd'|'; fi)"
    ev "the boot invocation's records at warning or above: $(if [ -z "$warnings" ]; then echo none; else head -n 3 <<<"$warnings" | paste -sd'|'; fi)"
    ev "records of the daemon's process not from its logger: ${foreign:-none}"
    [ -z "$BOOT_WARNINGS" ] || bad "journalctl -u splashd -p warning is not empty after a normal start"
    [ -z "$warnings" ] || bad "warnings at a normal start"
    # libdispatch gives its timer and signal thread nice -4; the unit allows that with
    # SystemCallFilter=setpriority and LimitNICE=-4 (RLIMIT_NICE 24). systemd sets the limit as
    # close as it can, so where the host's hard RLIMIT_NICE is lower (a sandbox without
    # CAP_SYS_RESOURCE, as on the machine these tests were written on) that one call still fails
    # with EACCES: then exactly that record is expected, and nothing else. The EPERM records the
    # syscall filter caused (four per start before) must be gone everywhere.
    local asked host_hard
    asked=$(prop splashd.service LimitNICE)
    host_hard=$(ulimit -Hr)
    local cap_eff can_raise=no
    cap_eff=$(awk '/^CapEff/ {print $2}' /proc/self/status)
    (( (16#$cap_eff >> 24) & 1 )) && can_raise=yes   # CAP_SYS_RESOURCE
    ev "LimitNICE asked: ${asked:-?}; the host's hard RLIMIT_NICE: $host_hard"
    ev "the host has CAP_SYS_RESOURCE: $can_raise"
    [ "$asked" = 24 ] || bad "splashd.service does not ask for LimitNICE=-4 (RLIMIT_NICE 24): $asked"
    if [ "$can_raise" = no ] && [ "$host_hard" != unlimited ] && [ "$host_hard" -lt 24 ]; then
        ev "this host cannot grant RLIMIT_NICE 24 (no CAP_SYS_RESOURCE): the one EACCES record of the nice -4 thread is expected here, and only it"
        foreign=$(tr '|' '\n' <<<"$foreign" | grep -vE '^1× [a-z]+ priority 5: Failed to set thread priority for worker thread: pqc=0x… errno=13$' | paste -sd'|' || true)
    fi
    [ -z "$foreign" ] || bad "the daemon's process logged outside its logger at a normal start (below warning, so -p warning does not show it)"
}

# ---------------------------------------------------------------------------------------------
# The package's life after the other checks (12–15, a package only): upgrade, remove, purge

PACKAGE_PATHS=$WORK/files/package-paths # `dpkg -L splashd` before the remove
OTHER_PATHS=$WORK/files/other-paths     # what the other packages list, before the remove
SPLASHD_IDS=""                          # `id splashd` before the remove

# apt-get ARGS in the container: logged, bounded, no terminal to prompt on; prints how long it took.
apt_get() {
    local started rc=0
    started=$(date +%s%N)
    cl timeout 60 env DEBIAN_FRONTEND=noninteractive apt-get -y --no-install-recommends "$@" </dev/null || rc=$?
    echo "$(ms_since "$started") ms"
    return "$rc"
}

# The package again with a higher version (VERSION+systest1), uncompressed: a real upgrade (old
# prerm upgrade, new postinst configure OLD-VERSION) with the same files. Prints its name under /srv/systest.
make_upgrade_package() {
    local tree=$WORK/files/upgrade version name
    rm -rf "$tree"
    dpkg-deb -R "$WORK/files/$(basename "$DEB")" "$tree" || return 1
    version=$(sed -n 's/^Version: //p' "$tree/DEBIAN/control")+systest1
    sed -i "s/^Version: .*/Version: $version/" "$tree/DEBIAN/control"
    name=splashd_${version}_$(sed -n 's/^Architecture: //p' "$tree/DEBIAN/control").deb
    dpkg-deb -Znone -b "$tree" "$ROOT/srv/systest/$name" >>"$LOG" 2>&1 || return 1
    rm -rf "$tree"
    echo "$name"
}

# The paths of PACKAGE_PATHS that exist in the container and that no other package lists.
package_leftovers() {
    sort -u "$PACKAGE_PATHS" | comm -23 - "$OTHER_PATHS" |
        c sh -c 'while read -r p; do if [ -e "$p" ] || [ -L "$p" ]; then echo "$p"; fi; done' | paste -sd' '
}

# What an upgrade must leave alone, one line: the daemon, its socket, the finished unit, the launch.
running_units() {
    echo "splashd $(prop splashd.service MainPID) $(prop splashd.service InvocationID) NRestarts=$(prop splashd.service NRestarts)" \
        "socket-since $(prop splashd.socket ActiveEnterTimestampMonotonic)" \
        "finished-since $(prop splashd-finished.service ActiveEnterTimestampMonotonic)" \
        "launch $(state | jq -r .launch)"
}

# Check 12: upgrading the package while the daemon runs does not restart it (postinst only
# starts the socket): no new splash over the running app. A reinstall (`apt-get install
# --reinstall`) runs the same maintainer-script steps with the same arguments (prerm upgrade,
# postinst configure OLD-VERSION); only the version differs.
check_upgrade() {
    local units before took upgrade conf enabled moved version
    # As on a device whose app is up: the operator's configuration (the conffile, changed), the
    # daemon started by a client through the socket, the launch finished, the finished unit active.
    config_auto | write_file /etc/splashd/splashd.toml 0644
    conf=$(c sha256sum /etc/splashd/splashd.toml | cut -c1-12)
    cl systemctl start splashd.socket || bad "splashd.socket did not start"
    c splashctl wait finished --timeout 20s >/dev/null || bad "no launch finished after a client started the daemon"
    cl timeout 30 systemctl start splashd-finished.service || bad "splashd-finished.service did not start"
    units=$(running_units)
    ev "running: $units"
    upgrade=$(make_upgrade_package) || { bad "could not build the upgrade package"; return; }
    before=$(cursor)
    took=$(apt_get install "/srv/systest/$upgrade") || bad "apt-get install (upgrade) failed"
    version=$(c dpkg-query -W -f '${Version}' splashd)
    ev "apt-get install ./$upgrade (upgrade): $took, installed $version"
    [ "$version" = "$(basename "$upgrade" | cut -d_ -f2)" ] || bad "the upgrade did not install $upgrade"
    [ "$(running_units)" = "$units" ] || bad "upgrading changed: $(running_units)"
    moved=$(since_messages "$before" 'about("splashd.service") or about("splashd.socket") or about("splashd-finished.service")')
    ev "systemd about the units meanwhile: ${moved:-nothing}"
    [ -z "$moved" ] || bad "systemd started or stopped a unit"
    [ "$(c splashctl ping 2>&1)" = "pong (splashd $(c splashd --version 2>&1))" ] || bad "splashctl ping failed after the upgrade"
    enabled=$(c systemctl is-enabled splashd.socket splashd.service splashd-finished.service 2>&1 | paste -sd/)
    ev "is-enabled socket/service/finished: $enabled; the operator's splashd.toml $conf -> $(c sha256sum /etc/splashd/splashd.toml | cut -c1-12)"
    [ "$enabled" = enabled/disabled/enabled ] || bad "the upgrade changed what is enabled"
    [ "$(c sha256sum /etc/splashd/splashd.toml | cut -c1-12)" = "$conf" ] || bad "the upgrade replaced the operator's configuration"
}

# Check 13: remove stops the units, takes everything but the state directory and the
# conffile (SPEC §11; docs/packaging.md, "Remove and purge").
check_remove() {
    local conf took left procs units="" status links u active=""
    c dpkg -L splashd >"$PACKAGE_PATHS" || bad "dpkg -L failed"
    c find /var/lib/dpkg/info -name '*.list' ! -name splashd.list ! -name 'splashd:*.list' -exec cat {} + | sort -u >"$OTHER_PATHS"
    conf=$(c sha256sum /etc/splashd/splashd.toml | cut -c1-12)
    SPLASHD_IDS=$(c id splashd)
    procs=$(c ps -u splashd -o pid=,args= | sed 's/^ *//' | paste -sd'|')
    ev "dpkg -L: $(wc -l <"$PACKAGE_PATHS") paths; running as splashd: ${procs:-nothing}"
    [ -n "$procs" ] || bad "the daemon was not running before the remove (nothing to stop)"
    took=$(apt_get remove splashd) || bad "apt-get remove failed"
    status=$(c dpkg-query -W -f '${db:Status-Abbrev}' splashd | tr -d ' ')
    for u in splashd.service splashd.socket splashd-finished.service; do
        units+="${units:+, }$u $(prop "$u" ActiveState)/$(prop "$u" LoadState)"
        [ "$(prop "$u" ActiveState)" = inactive ] || active+=" $u"
    done
    procs=$(c ps -u splashd -o pid=,args= | sed 's/^ *//' | paste -sd'|')
    ev "apt-get remove: $took, dpkg status $status; $units; processes of splashd: ${procs:-none}"
    [ "$status" = rc ] || bad "dpkg status is '$status', want rc (removed, configuration kept)"
    [ -z "$active" ] || bad "not stopped:$active"
    [ -z "$procs" ] || bad "processes of splashd are still running"
    left=$(package_leftovers)
    ev "the package's paths left: ${left:-none}; conffiles: $(c dpkg-query -W -f '${Conffiles}' splashd | awk 'NF {print $1}' | paste -sd' ')"
    [ "$left" = "/etc/splashd /etc/splashd/splashd.toml" ] || bad "remove left '$left', want '/etc/splashd /etc/splashd/splashd.toml'"
    [ "$(c sha256sum /etc/splashd/splashd.toml 2>/dev/null | cut -c1-12)" = "$conf" ] || bad "the operator's splashd.toml changed"
    ev "/var/lib/splashd: $(c stat -c '%U %a' /var/lib/splashd 2>&1), $(c ls /var/lib/splashd 2>&1 | paste -sd' ')"
    c test -s /var/lib/splashd/launch-counter.json && c test -s /var/lib/splashd/history.jsonl || bad "the state directory was not kept"
    ev "/run/splashd: $(c stat -c %F /run/splashd 2>&1 | sed 's/.*: //'); catalog entries: $(catalog_entries)"
    c test ! -e /run/splashd || bad "/run/splashd is still there"
    [ "$(catalog_entries)" = 0 ] || bad "the journal catalog still has splashd's entries"
    # docs/packaging.md: kept, dangling, so that a reinstall keeps the operator's choice.
    links=$(c find /etc/systemd/system -name 'splashd*' -type l | paste -sd' ')
    ev "enablement links: ${links:-none}"
    [[ $links == *sockets.target.wants/splashd.socket* && $links == *multi-user.target.wants/splashd-finished.service* ]] ||
        bad "the enablement links are gone (packaging.md: kept until purge)"
}

# Check 14: purge leaves none of the package's paths, no state, configuration or enablement
# state; the user and the group stay.
check_purge() {
    local took left status rest
    # The test's own plugins in /etc/splashd/plugins.d are an operator's files: purge keeps them
    # (docs/packaging.md). Gone first, as an operator who wants /etc/splashd gone would do.
    c rm -f /etc/splashd/plugins.d/systest-probe.toml /etc/splashd/plugins.d/systest-probe.sh \
        /etc/splashd/plugins.d/systest-sleeper.toml /etc/splashd/plugins.d/systest-sleeper.sh
    took=$(apt_get purge splashd) || bad "apt-get purge failed"
    status=$(c dpkg-query -W -f '${db:Status-Abbrev}' splashd 2>/dev/null | tr -d ' ')
    left=$(package_leftovers)
    ev "apt-get purge: $took; dpkg status: ${status:-no record of splashd}; the package's paths left: ${left:-none}"
    [ -z "$status" ] || [ "$status" = un ] || bad "dpkg status is '$status' after the purge"
    [ -z "$left" ] || bad "purge left $left"
    rest=$(c sh -c 'for p in /var/lib/splashd /etc/splashd /run/splashd; do [ -e "$p" ] && echo "$p"; done; find /etc/systemd /var/lib/systemd -name "*splashd*"' | paste -sd' ')
    ev "state, configuration, enablement left: ${rest:-none}"
    [ -z "$rest" ] || bad "purge left $rest"
    ev "id splashd: $(c id splashd 2>&1); group splash: $(c getent group splash | cut -d: -f1,3)"
    [ "$(c id splashd 2>&1)" = "$SPLASHD_IDS" ] || bad "the user splashd changed (before: $SPLASHD_IDS)"
    c getent group splash >/dev/null || bad "the group splash is gone"
}

# The single package of 0.1.0-1, before the split (Tests/system/legacy-0.1.0-1: its control file
# and maintainer scripts), made again from the files of this build's packages. Prints its name
# under /srv/systest.
make_legacy_package() {
    local tree=$WORK/files/legacy legacy=$REPO/Tests/system/legacy-0.1.0-1 arch depends name deb
    rm -rf "$tree"
    mkdir -p "$tree/DEBIAN"
    for deb in "$(basename "$DEB")" "${SIBLINGS[@]}"; do
        dpkg-deb -x "$WORK/files/$deb" "$tree" || return 1
    done
    # Its documentation and overrides were splashd's alone.
    rm -rf "$tree"/usr/share/doc/splashd-* "$tree"/usr/share/lintian/overrides/splashd-*
    arch=$(dpkg-deb -f "$WORK/files/$(basename "$DEB")" Architecture)
    depends=$(dpkg-deb -f "$WORK/files/$(basename "$DEB")" Depends)
    sed -e "s|@VERSION@|0.1.0-1|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$(dpkg-deb -f "$DEB" Maintainer)|" \
        -e "s/@INSTALLED_SIZE@/$(du -sk "$tree" | cut -f1)/" -e "s/@DEPENDS@/$depends/" "$legacy/control.in" >"$tree/DEBIAN/control"
    for script in postinst prerm postrm; do install -m 0755 "$legacy/$script" "$tree/DEBIAN/$script"; done
    echo /etc/splashd/splashd.toml >"$tree/DEBIAN/conffiles"
    name=splashd_0.1.0-1_$arch.deb
    dpkg-deb --root-owner-group -Znone -b "$tree" "$ROOT/srv/systest/$name" >>"$LOG" 2>&1 || return 1
    rm -rf "$tree"
    echo "$name"
}

# Check 17: a device that runs the single 0.1.0-1 package (the renderer's unit enabled by its
# operator, the configuration changed, the daemon running) upgrades to the four split packages:
# each file goes to its package, none is lost, nothing is restarted or disabled, and the
# configuration stays. Then all four are purged: nothing of them is left.
check_split_upgrade() {
    local legacy took conf units paths missing owners versions enabled deb left
    legacy=$(make_legacy_package) || { bad "could not build the 0.1.0-1 package"; return; }
    took=$(apt_get install "/srv/systest/$legacy") || { bad "apt-get install ./$legacy failed"; return; }
    ev "apt-get install ./$legacy: $took, $(c dpkg-query -W -f '${Package} ${Version}' splashd)"
    config_auto | write_file /etc/splashd/splashd.toml 0644
    conf=$(c sha256sum /etc/splashd/splashd.toml | cut -c1-12)
    cl systemctl enable splashd-web.service || bad "could not enable splashd-web.service"
    cl systemctl start splashd.socket || bad "splashd.socket did not start"
    c splashctl wait finished --timeout 20s >/dev/null || bad "no launch finished under 0.1.0-1"
    units=$(running_units)
    c dpkg -L splashd | sort >"$WORK/files/legacy-paths"
    for deb in "$(basename "$DEB")" "${SIBLINGS[@]}"; do cp "$WORK/files/$deb" "$ROOT/srv/systest/"; done
    took=$(apt_get install "/srv/systest/$(basename "$DEB")" "${SIBLINGS[@]/#//srv/systest/}") || bad "apt-get install of the split packages failed"
    versions=$(c dpkg-query -W -f '${Package}=${Version} ' splashd splashd-web splashd-otel splashd-themes)
    ev "upgrade to the split packages: $took; $versions"
    [ "$versions" = "splashd=$SPLIT_VERSION splashd-otel=$SPLIT_VERSION splashd-themes=$SPLIT_VERSION splashd-web=$SPLIT_VERSION " ] ||
        bad "installed: $versions, want each at $SPLIT_VERSION"
    owners=$(c dpkg -S /usr/bin/splashd /usr/bin/splashctl /usr/bin/splashd-web /usr/share/splashd/web/index.html \
        /usr/bin/splashd-otel /usr/share/splashd/themes/reference/theme.toml 2>&1 | cut -d: -f1 | paste -sd' ')
    ev "owners of splashd, splashctl, splashd-web, the page, splashd-otel, a theme: $owners"
    [ "$owners" = "splashd splashd splashd-web splashd-web splashd-otel splashd-themes" ] || bad "files owned by: $owners"
    missing=$(c sh -c 'while read -r p; do [ -e "$p" ] || [ -L "$p" ] || echo "$p"; done' <"$WORK/files/legacy-paths" | paste -sd' ')
    ev "paths of 0.1.0-1 missing after the upgrade: ${missing:-none} (of $(wc -l <"$WORK/files/legacy-paths"))"
    [ -z "$missing" ] || bad "lost in the upgrade: $missing"
    [ "$(running_units)" = "$units" ] || bad "the upgrade changed: $(running_units) (before: $units)"
    enabled=$(c systemctl is-enabled splashd.socket splashd-finished.service splashd-web.service splashd-otel.service 2>&1 | paste -sd/)
    ev "is-enabled socket/finished/web/otel: $enabled; splashd.toml $conf -> $(c sha256sum /etc/splashd/splashd.toml | cut -c1-12)"
    [ "$enabled" = enabled/enabled/enabled/disabled ] || bad "the upgrade changed what is enabled: $enabled"
    [ "$(c sha256sum /etc/splashd/splashd.toml | cut -c1-12)" = "$conf" ] || bad "the upgrade replaced the operator's configuration"
    c splashd-web check --theme /usr/share/splashd/themes/reference >/dev/null 2>&1 || bad "splashd-web check of the shipped theme failed"
    c dpkg -L splashd splashd-web splashd-otel splashd-themes | sort -u >"$PACKAGE_PATHS"
    c find /var/lib/dpkg/info -name '*.list' ! -name 'splashd*.list' -exec cat {} + | sort -u >"$OTHER_PATHS"
    c rm -f /etc/splashd/plugins.d/systest-probe.toml /etc/splashd/plugins.d/systest-probe.sh \
        /etc/splashd/plugins.d/systest-sleeper.toml /etc/splashd/plugins.d/systest-sleeper.sh
    took=$(apt_get purge splashd splashd-web splashd-otel splashd-themes) || bad "apt-get purge of the four failed"
    left=$(package_leftovers)
    ev "apt-get purge of the four: $took; their paths left: ${left:-none}; dpkg: $(c dpkg-query -W -f '${db:Status-Abbrev}' splashd splashd-web splashd-otel splashd-themes 2>&1 | tr -s ' ' | paste -sd' ')"
    [ -z "$left" ] || bad "purge left $left"
}

# Check 15: the container is still running cleanly after all that: nothing failed.
check_still_running() {
    local system failed
    system=$(c timeout 30 systemctl is-system-running --wait 2>&1)
    failed=$(c systemctl --failed --no-legend --plain | awk '{print $1}' | paste -sd' ')
    ev "is-system-running: $system; failed units: ${failed:-none}"
    [ "$system" = running ] || bad "the system is $system"
}

# ---------------------------------------------------------------------------------------------
# Check 18: the app's life (SPEC §14) under systemd as PID 1, through the shipped polkit grant.

write_kiosk_app() {
    write_file /srv/systest/kiosk-app.py 0755 <<'EOF'
#!/usr/bin/python3
# The system test's kiosk app (SPEC §14): completes first-frame for every launch that waits for
# it, says where it is (route), and sends alive every second. SIGUSR1: exits by itself (0);
# SIGUSR2: fails (1); SIGSTOP: hangs; SIGKILL: crashes.
import json, select, signal, socket, sys, time

signal.signal(signal.SIGUSR1, lambda *_: sys.exit(0))
signal.signal(signal.SIGUSR2, lambda *_: sys.exit(1))


def connect():
    for _ in range(200):  # splashd restarting: the socket unit holds the socket, so this is short
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect("/run/splashd/splashd.sock")
            return s
        except OSError:
            time.sleep(0.05)
    sys.exit(3)


while True:
    sock = connect()
    send = lambda message: sock.sendall((json.dumps(message) + "\n").encode())
    send({"cmd": "subscribe"})
    send({"cmd": "route", "route": "orders/42"})
    done, buffer, last = set(), b"", 0.0
    while True:
        now = time.monotonic()
        if now - last >= 1:
            send({"cmd": "alive"})
            last = now
        readable, _, _ = select.select([sock], [], [], max(0.0, 1 - (time.monotonic() - last)))
        if not readable:
            continue
        data = sock.recv(65536)
        if not data:
            break
        buffer += data
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            message = json.loads(line)
            if message.get("type") != "state" or message["phase"] != "loading" or message["launch"] in done:
                continue
            if any(step["id"] == "first-frame" and step["status"] == "running" for step in message["steps"]):
                send({"cmd": "complete", "step": "first-frame"})
                done.add(message["launch"])
EOF
    write_file /etc/systemd/system/systest-kiosk.service 0644 <<'EOF'
# The app of docs/systemd.md "Watching the app": splashd starts it and decides its restarts.
[Unit]
Description=Kiosk app (splashd system test, SPEC §14)
StartLimitIntervalSec=0

[Service]
Type=exec
DynamicUser=yes
SupplementaryGroups=splash
ExecStart=/usr/bin/python3 /srv/systest/kiosk-app.py
Restart=no
EOF
    write_file /etc/systemd/system/systest-other.service 0644 <<'EOF'
[Unit]
Description=A unit splashd may not touch (splashd system test)

[Service]
ExecStart=/bin/sleep infinity
EOF
    cl systemctl daemon-reload
}

config_app() {
    cat <<'EOF'
# splashd system test, the app's life.
[splash]
min_display = "0ms"
timeout = "1m"
exit_animation = "0ms"

[socket]
control_group = "splash"

[app]
unit = "systest-kiosk.service"
heartbeat = "1s"
max_restarts = 5
restart_window = "5m"

[[step]]
id = "quick-action"
plugin = "quick-action"
critical = false
options = { scheme = "kiosk", routes = ["orders/*"] }

[[step]]
id = "first-frame"
plugin = "signal"
EOF
}

LAUNCH_STARTED_ID=76bc5e5dee6741ef924f31ac5e522255
# One recovery: SIGNAL to the app's main process, then the launch with REASON, a new app, finished.
# Prints how long after the signal the launch started (ms), from the daemon's journal record.
app_recovery() {
    local signal=$1 reason=$2 pid before sent record at newpid
    pid=$(prop systest-kiosk.service MainPID)
    before=$(cursor)
    sent=$(date +%s%N)
    c kill "-$signal" "$pid"
    record=$(jwait 15 "$before" "daemon and .MESSAGE_ID == \"$LAUNCH_STARTED_ID\" and .SPLASHD_REASON == \"$reason\"") ||
        { bad "no launch with reason $reason after SIG$signal"; return 1; }
    at=$(jq -r '._SOURCE_REALTIME_TIMESTAMP // .__REALTIME_TIMESTAMP' <<<"$record")
    APP_MS=$(((at * 1000 - sent) / 1000000))
    c splashctl wait finished --timeout 30s >/dev/null || { bad "the $reason launch did not finish"; return 1; }
    newpid=$(prop systest-kiosk.service MainPID)
    APP_PIDS="$pid→$newpid"
    [ "$(prop systest-kiosk.service ActiveState)" = active ] && [ "$newpid" != "$pid" ] && [ "$newpid" != 0 ] ||
        { bad "after $reason the app is not running again ($(prop systest-kiosk.service ActiveState), pid $pid → $newpid)"; return 1; }
}

check_app_life() {
    local saved rc out before st n ids message_id
    write_kiosk_app
    saved=$WORK/files/config-before-app.toml
    cp "$ROOT/etc/splashd/splashd.toml" "$saved"
    config_app | write_file /etc/splashd/splashd.toml 0644
    out=$(c splashd check --print-app-unit --config /etc/splashd/splashd.toml 2>&1)
    ev "splashd check --print-app-unit: $out"
    [ "$out" = systest-kiosk.service ] || bad "--print-app-unit printed '$out'"
    before=$(cursor)
    cl systemctl restart splashd.service
    c splashctl wait finished --timeout 30s >/dev/null || bad "the boot launch with [app] did not finish"
    st=$(state)
    ev "boot with [app]: reason $(jq -r .reason <<<"$st"), steps $(jq -r '[.steps[] | "\(.id)=\(.status)"] | join(" ")' <<<"$st"), app $(prop systest-kiosk.service ActiveState) as $(c ps -o user= -p "$(prop systest-kiosk.service MainPID)" 2>/dev/null | tr -d ' ')"
    [ "$(prop systest-kiosk.service ActiveState)" = active ] || { bad "splashd's app step did not start the app (polkit grant?)"; return; }
    # The grant: the app's unit with start, restart and kill, nothing else.
    rc=0; as_user splashd systemctl --no-ask-password kill -s CONT systest-kiosk.service >>"$LOG" 2>&1 || rc=$?
    ev "as splashd: kill -s CONT systest-kiosk → exit $rc"
    [ "$rc" = 0 ] || bad "splashd may not kill the app's unit"
    for denied in "stop systest-kiosk.service" "start systest-other.service" "restart systest-other.service" \
        "kill -s CONT systest-other.service" "restart splashd-finished.service"; do
        rc=0; out=$(as_user splashd systemctl --no-ask-password $denied 2>&1) || rc=$?
        [ "$rc" != 0 ] || bad "splashd may $denied"
    done
    ev "as splashd: stop of the app, start/restart/kill of another unit, restart of splashd-finished: all refused ($(head -n 1 <<<"$out"))"
    app_recovery USR1 app-exited && ev "exits (0): launch app-exited ${APP_MS} ms after the exit, app $APP_PIDS, destination $(state | jq -c .destination)"
    [ "$(state | jq -r .destination.route)" = orders/42 ] || bad "the route the app reported was not restored"
    [ "${APP_MS:-9999}" -lt 1000 ] || bad "the splash came back ${APP_MS} ms after the exit"
    app_recovery USR2 app-exited && ev "fails (1): ${APP_MS} ms, app $APP_PIDS"
    [ "${APP_MS:-9999}" -lt 1000 ] || bad "the splash came back ${APP_MS} ms after the failure"
    app_recovery STOP app-hung && ev "hangs (SIGSTOP, heartbeat 1s): launch app-hung ${APP_MS} ms after SIGSTOP, app $APP_PIDS (the stopped one killed)"
    [ "${APP_MS:-9999}" -lt 4000 ] || bad "the hang was seen ${APP_MS} ms after SIGSTOP (3 heartbeats of 1 s, then within a second)"
    # Six crashes in a row, the recovery count fresh (a restart of splashd forgets it).
    cl systemctl restart splashd.service
    c splashctl wait finished --timeout 30s >/dev/null || bad "the launch after restarting splashd did not finish"
    for n in 1 2 3 4 5; do
        app_recovery KILL app-exited || break
    done
    ev "crashes 1-5: each recovered, the last ${APP_MS} ms after SIGKILL"
    before=$(cursor)
    c kill -KILL "$(prop systest-kiosk.service MainPID)"
    c splashctl wait error --timeout 15s >/dev/null || bad "the sixth crash did not end in phase error"
    st=$(state)
    ev "crash 6: $(jq -c '{phase, reason, error: .error | {code, message, actions}}' <<<"$st")"
    [ "$(jq -r .error.code <<<"$st")" = app-crash-loop ] || bad "the sixth crash is not app-crash-loop"
    # No restart for a minute: nothing may start the app's unit.
    if jwait 60 "$before" 'about("systest-kiosk.service") and (msg | test("^Start"))' >/dev/null; then
        bad "the app was started again during the crash loop"
    else
        ev "no start of the app for 60 s; unit $(prop systest-kiosk.service ActiveState)"
    fi
    cl splashctl retry || bad "retry refused"
    c splashctl wait finished --timeout 30s >/dev/null || bad "the launch after Retry did not finish"
    [ "$(prop systest-kiosk.service ActiveState)" = active ] || bad "Retry did not start the app"
    ev "Retry: finished, app $(prop systest-kiosk.service ActiveState)"
    ids=$(c journalctl -u splashd.service -o json --no-pager | jq -r '.MESSAGE_ID // empty' | sort | uniq -c |
        awk '$2 ~ /^(8347258a|678ed15d|de49cae7)/ {printf "%s×%s ", $1, substr($2, 1, 8)}')
    ev "journal: $ids"
    for message_id in 8347258a 678ed15d de49cae7; do
        [[ $ids == *"$message_id"* ]] || bad "no record with MESSAGE_ID $message_id…"
    done
    ev "history: $(c splashctl history | tail -n 3 | awk '{print $3}' | paste -sd' ')"
    # Nothing left behind: the app stopped, the earlier configuration back.
    cl systemctl stop systest-kiosk.service
    cp "$saved" "$ROOT/etc/splashd/splashd.toml"
    cl systemctl restart splashd.service
    c splashctl wait finished --timeout 30s >/dev/null || bad "the launch with the earlier configuration did not finish"
    out=$(c pgrep -af kiosk-app.py || true)
    ev "after the test: app processes: ${out:-none}, unit $(prop systest-kiosk.service ActiveState)"
    [ -z "$out" ] || bad "app processes are left: $out"
}

# ---------------------------------------------------------------------------------------------
# Main

say "system-test: $( [ -n "$DEB" ] && echo "package $DEB" || echo "binaries from $BIN_DIR" ); host $(uname -r), $(systemd-nspawn --version | head -n 1)"
make_certificates || { say "system-test: openssl failed"; exit 2; }
if [ -n "$DEB" ]; then # a copy taken now: the package may be rebuilt while the test runs
    cp "$DEB" "$WORK/files/" && dpkg-deb --contents "$WORK/files/$(basename "$DEB")" >/dev/null 2>&1 ||
        { say "system-test: $DEB is not a readable package"; exit 2; }
    # The other binary packages of the same build (SPEC §11), for check 17.
    SPLIT_VERSION=$(dpkg-deb -f "$DEB" Version)
    for sibling in splashd-web splashd-otel splashd-themes; do
        found=$(find "$(dirname "$DEB")" -maxdepth 1 -name "${sibling}_${SPLIT_VERSION}_*.deb" | head -n 1)
        [ -n "$found" ] || { say "system-test: no ${sibling}_${SPLIT_VERSION}_*.deb beside $DEB"; exit 2; }
        cp "$found" "$WORK/files/" && SIBLINGS+=("$(basename "$found")")
    done
fi
started=$(date +%s%N)
setup_overlay || { say "system-test: could not set up the overlay"; exit 2; }
start_container || { say "system-test: the container did not boot"; tail -n 30 "$CONSOLE"; exit 2; }
state_first=$(c timeout 60 systemctl is-system-running --wait)
say "boot: first boot $state_first in $(ms_since "$started") ms ($(c systemd-analyze time 2>/dev/null | head -n 1))"
[ "$state_first" = running ] || say "boot: failed units: $(c systemctl --failed --no-legend --plain | awk '{print $1}' | paste -sd' ')"
hidden=$(c sh -c 'find /opt/swift /opt/swift-packages /work -mindepth 1 | wc -l; command -v swift swiftc || true')
if [ "$hidden" != 0 ]; then say "system-test: the toolchain is visible in the container: $hidden"; exit 2; fi
say "boot: /opt/swift and /work are empty in the container, no swift on PATH"

install_package || { say "system-test: install failed"; tail -n 30 "$LOG"; exit 2; }
run_check 0 install check_install

# What the reboot starts: the boot config, the example app enabled.
config_boot | write_file /etc/splashd/splashd.toml 0644
write_app_unit
cl systemctl enable systest-app.service
BOOT_CURSOR=$(cursor)
rebooted=$(date +%s%N)
reboot_container || { say "system-test: the container did not come back after the reboot"; tail -n 30 "$CONSOLE"; exit 2; }
result=$(wait_start_job 30 "$BOOT_CURSOR" splashd.service)
ready_ms=$(ms_since "$rebooted")
c splashctl wait loading --timeout 10s >/dev/null
BOOT_INVOCATION=$(prop splashd.service InvocationID)
say "boot: after the reboot, splashd.service's start job '$result' $ready_ms ms after \`systemctl reboot\` (shutdown, nspawn restart and boot included); systemd's own time comes once the boot is finished"

run_check 1 socket-at-boot check_socket_at_boot
run_check 2 status-text check_status_text
run_check 3 finished-unit-ordering check_finished_ordering
state_boot=$(c timeout 60 systemctl is-system-running --wait)
say "boot: is-system-running: $state_boot; $(c systemd-analyze time 2>&1 | head -n 1) (includes the held splash)"
# The boot start's records (the daemon's and systemd's about this invocation), for check 11:
# taken now, before the checks below provoke failures on purpose.
BOOT_RECORDS=$(c journalctl -o json --no-pager _SYSTEMD_INVOCATION_ID="$BOOT_INVOCATION" + INVOCATION_ID="$BOOT_INVOCATION")
BOOT_WARNINGS=$(c journalctl -b -u splashd.service -p warning -o cat --no-pager 2>&1 | grep -v '^-- No entries --$')
log "boot start records: $(jq -s length <<<"$BOOT_RECORDS"); journalctl -b -u splashd -p warning: ${BOOT_WARNINGS:-empty}"
run_check 6 reload check_reload
run_check 5 watchdog check_watchdog
run_check 7 sigkill-restart check_sigkill_restart
run_check 9 control-group check_groups
run_check 10 plugins-and-https check_plugins_https
run_check 16 splashctl-logs check_logs
run_check 18 app-life check_app_life
run_check 4 journal-fields-and-catalog check_journal
run_check 8 stop-leaves-nothing check_stop
run_check 11 no-warning-at-start check_no_warnings
if [ -n "$DEB" ]; then
    run_check 12 upgrade-keeps-daemon check_upgrade
    run_check 13 remove check_remove
    run_check 14 purge check_purge
    run_check 17 split-upgrade check_split_upgrade
    run_check 15 still-running check_still_running
else
    say "package: checks 12-15 and 17 (upgrade, remove, purge, the split) need a package; not run with --bin-dir"
fi

if [ -n "${SYSTEST_HOLD:-}" ]; then # debugging: keep the container up (nsenter --target LEADER --all)
    say "hold: container leader $LEADER for ${SYSTEST_HOLD}s"
    timeout "$SYSTEST_HOLD" tail -f /dev/null
fi
say "total: $(ms_since "$SYSTEST_STARTED_NS") ms, ${#RESULTS[@]} checks, $FAILED failed"
if [ "$FAILED" -gt 0 ]; then
    say "--- the container's journal for splashd (last 40 lines)"
    c journalctl -u splashd.service -n 40 --no-pager -o short-monotonic | tee -a "$LOG"
    exit 1
fi
exit 0
