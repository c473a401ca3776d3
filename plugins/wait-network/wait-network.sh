#!/bin/bash
# wait-network: a splashd plugin that waits until the network is reachable.
#
# Options (from splashd as SPLASHD_OPT_*):
#   host, port  wait until a TCP connection to host:port succeeds (both or neither)
#   interval    seconds between tries (default 0.5)
# Without host and port it waits until a default route (IPv4 or IPv6) exists.
# Output: a message line first, then facts once reachable; exit 0. Bad options: exit 2.
set -u

host=${SPLASHD_OPT_HOST:-}
port=${SPLASHD_OPT_PORT:-}
interval=${SPLASHD_OPT_INTERVAL:-0.5}

# Escapes backslashes and double quotes for a JSON string.
json_string() {
    local text=${1//\\/\\\\}
    printf '%s' "${text//\"/\\\"}"
}

# Tries one TCP connection to $1:$2, giving up after a second. `--foreground` keeps timeout
# in our process group, so splashd's teardown reaches it.
tcp_open() {
    timeout --foreground 1 "$BASH" -c 'exec 3<>"/dev/tcp/$0/$1"' "$1" "$2" 2>/dev/null
}

# Prints the interface of a usable default route, if there is one.
default_route() {
    local iface dest flags rest prefix
    if [[ -r /proc/net/route ]]; then
        # Iface Destination Gateway Flags ...; RTF_UP is 0x1.
        while read -r iface dest _ flags rest; do
            if [[ $dest == 00000000 && $flags =~ ^[0-9A-Fa-f]+$ ]] && (( 0x$flags & 1 )); then
                printf '%s' "$iface"
                return 0
            fi
        done < <(tail -n +2 /proc/net/route)
    fi
    if [[ -r /proc/net/ipv6_route ]]; then
        # dest prefixlen src srcprefixlen nexthop metric refcnt use flags iface
        while read -r dest prefix _ _ _ _ _ _ flags iface; do
            if [[ $dest == 00000000000000000000000000000000 && $prefix == 00 && $iface != lo ]] \
                && (( 0x$flags & 1 )); then
                printf '%s' "$iface"
                return 0
            fi
        done < /proc/net/ipv6_route
    fi
    return 1
}

if ! [[ $interval =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
    echo "wait-network: interval must be a number of seconds, got '$interval'" >&2
    exit 2
fi

if [[ -n $host || -n $port ]]; then
    if [[ -z $host || -z $port ]]; then
        echo "wait-network: options host and port go together" >&2
        exit 2
    fi
    if ! [[ $port =~ ^[0-9]+$ ]] || (( port < 1 || port > 65535 )); then
        echo "wait-network: port must be 1-65535, got '$port'" >&2
        exit 2
    fi
    printf '{"message":"Waiting for %s:%s"}\n' "$(json_string "$host")" "$port"
    until tcp_open "$host" "$port"; do
        sleep "$interval"
    done
    printf '{"facts":{"reachable":true,"host":"%s","port":%d}}\n' "$(json_string "$host")" "$port"
else
    printf '{"message":"Waiting for the network"}\n'
    until iface=$(default_route); do
        sleep "$interval"
    done
    printf '{"facts":{"reachable":true,"interface":"%s"}}\n' "$(json_string "$iface")"
fi
