#!/bin/sh
setsid sleep 301 </dev/null >/dev/null 2>&1 &
echo '{"message":"Sleeping"}'
exec sleep 302
