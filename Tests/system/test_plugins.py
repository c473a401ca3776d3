"""Plugins inside the sandbox: HTTPS for the built-ins, an operator's plugin, the shipped
wait-device; that launch read back from the journal with splashctl logs.
"""

from __future__ import annotations

import json
import re
import shutil
import time

import configs
from checks import TOML, check, jcq, ji, write_plugins
from container import Container, count_lines, jc, jr, json_objects, lines, squeeze


# ---------------------------------------------------------------------------------------------
# Check 8: HTTPS for auth-refresh and config-fetch inside the sandbox, an operator plugin, the
# shipped wait-device.


@check(8, "plugins-and-https", stage="booted")
def test_08_plugins_and_https(ct: Container, verdict):
    (ct.root / "usr/local/share/ca-certificates").mkdir(parents=True, exist_ok=True)
    shutil.copy(ct.files / "ca.crt", ct.root / "usr/local/share/ca-certificates/splashd-systest.crt")
    (ct.root / "srv/systest").mkdir(parents=True, exist_ok=True)
    for name in ("server.crt", "server.key"):
        shutil.copy(ct.files / name, ct.root / "srv/systest" / name)
    if not ct.cl("update-ca-certificates"):
        verdict.bad("update-ca-certificates failed")
    ct.write_from_files("https-server.py", "/srv/systest/https-server.py", 0o755)
    if not ct.cl("systemd-run", "--unit=systest-https", "-p", "Type=notify", "--quiet", "/usr/bin/python3",
                 "/srv/systest/https-server.py", "/srv/systest/server.crt", "/srv/systest/server.key"):
        verdict.bad("the HTTPS server did not start")
        return
    port = ct.c("cat", "/run/systest-https.port").out
    out = ct.c("curl", "-sS", "--max-time", "5", f"https://127.0.0.1:{port}/config.json", merge=True).out
    verdict.ev(f"HTTPS server on 127.0.0.1:{port} (container loopback = host's), curl with the system CA store: {out}")
    # An expired session: auth-refresh must POST the refresh grant.
    expires = int(time.time()) - 600
    session = '{"access_token":"systest-access-1","refresh_token":"systest-refresh-1","expires_at":%d,"user":"Ada"}' % expires
    ct.c("sh", "-c", "umask 077; cat >/var/lib/splashd/session.json && chown splashd:splashd /var/lib/splashd/session.json",
         input=session + "\n")
    write_plugins(ct)
    ct.write_file(TOML, 0o644, configs.plugins(port))
    checked = ct.c("splashd", "check", "--config", TOML, merge=True)
    verdict.ev(f"splashd check: {checked.out}")
    if not checked.ok:
        verdict.bad("splashd check refused the plugins config")
    before = ct.cursor()
    ct.cl("systemctl", "reload", "splashd.service")
    if "configuration reloaded" not in ct.wait_reload(before):
        verdict.bad("the plugins config was not reloaded")
    if not ct.cl("splashctl", "relaunch"):
        verdict.bad("relaunch failed")
    # The display step waits for a path: once a renderer sees it running, the "display" appears.
    if ct.watch_until(20, "display", "running"):
        verdict.ev("wait-device (shipped plugin) running, waiting for /run/systest-display")
    else:
        verdict.bad("the display step never ran")
    ct.c("touch", "/run/systest-display")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "30s").ok:
        verdict.bad("the launch did not finish")
    st = ct.state()
    launch = jr(st, "launch")
    ct.memo.plugins_launch = launch  # check 9 reads this launch back with splashctl logs
    ct.log(jc(st))
    steps = (st or {}).get("steps") or []
    summary = " ".join(f"{ji(s.get('id'))}={ji(s.get('status'))}#{ji(s.get('attempt'))}" for s in steps)
    verdict.ev(f"steps: {summary}; destination {jcq(st, 'destination')}")
    if st is None or any(s.get("status") != "succeeded" for s in steps):
        verdict.bad("not every step succeeded")
    if "\n".join(ji(s.get("attempt")) for s in steps if s.get("id") == "probe") != "2":
        verdict.bad("the probe did not need its second attempt")
    if jr(st, "destination", "screen") != "home":
        verdict.bad("destination is not home (auth-refresh did not sign in)")
    probe = ct.c("journalctl", "-u", "splashd.service", f"SPLASHD_LAUNCH={launch}", "SPLASHD_STEP=probe", "-o", "cat", "--no-pager").stdout
    out = next((line for line in lines(probe) if "attempt 2" in line), "")
    verdict.ev(f"probe's stderr in the journal: '{out}'")
    if "as splashd" not in out:
        verdict.bad("the probe did not run as splashd")
    out = ct.c("jq", "-r", ".access_token", "/var/lib/splashd/session.json").out
    verdict.ev(f"session.json access_token after the refresh: {out}; mode {ct.c('stat', '-c', '%a %U', '/var/lib/splashd/session.json').out}")
    if out != "systest-access-2":
        verdict.bad("the session was not refreshed over HTTPS")
    out = ct.c("cat", "/var/lib/splashd/config.json", merge=True).out
    verdict.ev(f"config.json: {out}; etag {ct.c('cat', '/var/lib/splashd/config.json.etag', merge=True).out}")
    try:
        served = json.loads(out)
    except ValueError:
        served = None
    if not (isinstance(served, dict) and served.get("greeting") == "hello from the system test"):
        verdict.bad("config-fetch did not store the served config")
    server = ct.c("journalctl", "-u", "systest-https.service", "-o", "cat", "--no-pager").stdout
    verdict.ev(f"server: {'|'.join(line for line in lines(server) if re.search('request|token', line))}")
    if re.search(r"systest-(access|refresh)-", ct.c("journalctl", "-u", "splashd.service", "-o", "cat", "--no-pager").stdout):
        verdict.bad("a token reached the journal")


# ---------------------------------------------------------------------------------------------
# Check 9: splashctl logs reads a launch back from the system journal through sd-journal:
# check 8's launch, in which the operator's probe failed its first attempt and succeeded with
# its second.


@check(9, "splashctl-logs", stage="booted")
def test_09_splashctl_logs(ct: Container, verdict, plugins_launch):
    launch = plugins_launch
    if not launch:
        verdict.bad("check 8 recorded no launch")
        return
    result = ct.c("splashctl", "logs", "last", "--json")
    if not result.ok:
        verdict.bad("splashctl logs last --json failed")
        return
    text = result.out
    ct.log(text)
    records = json_objects(text)

    def alt(value) -> str:  # jq's `value // "-"`
        return "-" if value is None or value is False else ji(value)

    events = " ".join(f"{ji(r.get('event'))}/{alt(r.get('step'))}#{alt(r.get('attempt'))}" for r in records)
    launches = sorted({ji(r.get("launch")) for r in records})
    verdict.ev(f"splashctl logs last --json: {count_lines(text)} records, launch {','.join(launches)}; events: {events[:300]}")
    if "\n".join(launches) != launch:
        verdict.bad(f"'last' is not check 8's launch {launch}")
    if not records or ji(records[0].get("event")) != "launch-started":
        verdict.bad("the first record is not launch-started")
    if not records or ji(records[-1].get("event")) != "launch-finished":
        verdict.bad("the last record is not launch-finished")
    if not any(r.get("event") == "step-failed" and r.get("step") == "probe" and ji(r.get("attempt")) == "1" for r in records):
        verdict.bad("no step-failed record of the probe's first attempt")
    if not any(r.get("event") == "step-finished" and r.get("step") == "probe" and ji(r.get("attempt")) == "2" for r in records):
        verdict.bad("no step-finished record of the probe's second attempt")
    table_result = ct.c("splashctl", "logs", launch)
    if not table_result.ok:
        verdict.bad("splashctl logs LAUNCH failed")
    table = table_result.out
    ct.log(table)
    verdict.ev(f"table: {squeeze((lines(table) or [''])[0])}; {count_lines(table)} lines; "
               f"probe rows: {sum(1 for line in lines(table) if ' probe ' in line)}")
    if "attempt 2 of step probe as splashd" not in table:
        verdict.bad("the table lacks the probe's stderr line")
    unknown = ct.c("splashctl", "logs", "00000000-0000-0000-0000-000000000000", merge=True)
    verdict.ev(f"an unknown launch: exit {unknown.rc} '{unknown.out}'")
    if unknown.rc != 1:
        verdict.bad("an unknown launch did not exit 1")
