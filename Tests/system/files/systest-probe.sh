#!/bin/sh
echo "probe attempt $SPLASHD_ATTEMPT of step $SPLASHD_STEP as $(id -un), greeting=$SPLASHD_OPT_GREETING" >&2
if [ "$SPLASHD_ATTEMPT" = 1 ]; then
    echo "first attempt fails on purpose (exit 75)" >&2
    exit 75
fi
echo '{"progress":0.5}'
echo '{"message":"Probing the sandbox"}'
printf '{"facts":{"probe":"ok","user":"%s"}}\n' "$(id -un)"
