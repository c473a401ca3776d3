#!/bin/sh
# wait-device: a splashd plugin that waits until a device node (or any path) exists.
#
# Options (from splashd as SPLASHD_OPT_*):
#   path      the path to wait for (default /dev/dri/card0)
#   interval  seconds between checks (default 0.1)
# Output: a message line first, then {"facts":{"device":PATH}} once the path exists; exit 0.
set -u

path=${SPLASHD_OPT_PATH:-/dev/dri/card0}
interval=${SPLASHD_OPT_INTERVAL:-0.1}

# Escapes backslashes and double quotes for a JSON string.
json_string() {
    printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'
}

case $interval in
    '' | *[!0-9.]* | *.*.*)
        echo "wait-device: interval must be a number of seconds, got '$interval'" >&2
        exit 2
        ;;
esac

quoted=$(json_string "$path")
printf '{"message":"Waiting for %s"}\n' "$quoted"
while [ ! -e "$path" ]; do
    sleep "$interval"
done
printf '{"facts":{"device":"%s"}}\n' "$quoted"
