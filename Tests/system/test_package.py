"""The package's life after the other checks (a package only): upgrade, remove, purge, the
split from 0.1.0-1, the native renderer's package, and the system still running.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess

import configs
from checks import (TEST_PLUGINS, TOML, UNITS3, after_colon, check, cut_fields, enabled_of, first_fields,
                    other_packages_paths, package_leftovers, ping_ok, processes_of_splashd, running_units, sha12)
from container import LEGACY, Container, about, field, jr, lines, message, paste, squeeze


# ---------------------------------------------------------------------------------------------
# The package's life after the other checks (15–20, a package only): upgrade, remove, purge, the
# split, the native renderer's package.


def make_upgrade_package(ct: Container) -> str | None:
    """The package again with a higher version (VERSION+systest1), uncompressed: a real upgrade
    (old prerm upgrade, new postinst configure OLD-VERSION) with the same files. Its name under
    /srv/systest."""
    tree = ct.files / "upgrade"
    shutil.rmtree(tree, ignore_errors=True)
    if ct.host("dpkg-deb", "-R", ct.files / ct.deb_name, tree).returncode != 0:
        return None
    control_path = tree / "DEBIAN/control"
    control = lines(control_path.read_text())
    version = "\n".join(line[len("Version: "):] for line in control if line.startswith("Version: ")) + "+systest1"
    arch = "\n".join(line[len("Architecture: "):] for line in control if line.startswith("Architecture: "))
    control_path.write_text("".join((f"Version: {version}" if line.startswith("Version: ") else line) + "\n" for line in control))
    name = f"splashd_{version}_{arch}.deb"
    built = subprocess.run(["dpkg-deb", "-Znone", "-b", str(tree), str(ct.root / "srv/systest" / name)], stdin=subprocess.DEVNULL,
                           stdout=ct.logger.file, stderr=subprocess.STDOUT, timeout=120)
    if built.returncode != 0:
        return None
    shutil.rmtree(tree, ignore_errors=True)
    return name


# Check 15: upgrading the package while the daemon runs does not restart it (postinst only
# starts the socket): no new splash over the running app. A reinstall (`apt-get install
# --reinstall`) runs the same maintainer-script steps with the same arguments (prerm upgrade,
# postinst configure OLD-VERSION); only the version differs.


@check(15, "upgrade-keeps-daemon", stage="booted", package=True)
def test_15_upgrade_keeps_daemon(ct: Container, verdict):
    # As on a device whose app is up: the operator's configuration (the conffile, changed), the
    # daemon started by a client through the socket, the launch finished, the finished unit active.
    ct.write_file(TOML, 0o644, configs.auto())
    conf = sha12(ct)
    if not ct.cl("systemctl", "start", "splashd.socket"):
        verdict.bad("splashd.socket did not start")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "20s").ok:
        verdict.bad("no launch finished after a client started the daemon")
    if not ct.cl("timeout", "30", "systemctl", "start", "splashd-finished.service", timeout=60):
        verdict.bad("splashd-finished.service did not start")
    units = running_units(ct)
    verdict.ev(f"running: {units}")
    upgrade = make_upgrade_package(ct)
    if not upgrade:
        verdict.bad("could not build the upgrade package")
        return
    before = ct.cursor()
    ok, took = ct.apt_get("install", f"/srv/systest/{upgrade}")
    if not ok:
        verdict.bad("apt-get install (upgrade) failed")
    version = ct.c("dpkg-query", "-W", "-f", "${Version}", "splashd").out
    verdict.ev(f"apt-get install ./{upgrade} (upgrade): {took}, installed {version}")
    if version != (upgrade.split("_") + [""])[1]:
        verdict.bad(f"the upgrade did not install {upgrade}")
    if running_units(ct) != units:
        verdict.bad(f"upgrading changed: {running_units(ct)}")
    moved = ct.since_messages(before, about("splashd.service") | about("splashd.socket") | about("splashd-finished.service"))
    verdict.ev(f"systemd about the units meanwhile: {moved or 'nothing'}")
    if moved:
        verdict.bad("systemd started or stopped a unit")
    if not ping_ok(ct):
        verdict.bad("splashctl ping failed after the upgrade")
    enabled = enabled_of(ct, *UNITS3)
    verdict.ev(f"is-enabled socket/service/finished: {enabled}; the operator's splashd.toml {conf} -> {sha12(ct)}")
    if enabled != "enabled/disabled/enabled":
        verdict.bad("the upgrade changed what is enabled")
    if sha12(ct) != conf:
        verdict.bad("the upgrade replaced the operator's configuration")


# Check 16: remove stops the units, takes everything but the state directory and the conffile
# (design §11; docs/packaging.md, "Remove and purge").


@check(16, "remove", stage="booted", package=True)
def test_16_remove(ct: Container, verdict, upgraded):
    listed = ct.c("dpkg", "-L", "splashd")
    if not listed.ok:
        verdict.bad("dpkg -L failed")
    ct.memo.package_paths = lines(listed.stdout)
    ct.memo.other_paths = other_packages_paths(ct, ("splashd.list", "splashd:*.list"))
    conf = sha12(ct)
    ct.memo.splashd_ids = ct.c("id", "splashd").out
    procs = "|".join(line.lstrip(" ") for line in processes_of_splashd(ct))
    verdict.ev(f"dpkg -L: {listed.stdout.count(chr(10))} paths; running as splashd: {procs or 'nothing'}")
    if not procs:
        verdict.bad("the daemon was not running before the remove (nothing to stop)")
    ok, took = ct.apt_get("remove", "splashd")
    if not ok:
        verdict.bad("apt-get remove failed")
    status = ct.c("dpkg-query", "-W", "-f", "${db:Status-Abbrev}", "splashd").stdout.replace(" ", "").rstrip("\n")
    units, active = [], []
    for unit in ("splashd.service", "splashd.socket", "splashd-finished.service"):
        units.append(f"{unit} {ct.prop(unit, 'ActiveState')}/{ct.prop(unit, 'LoadState')}")
        if ct.prop(unit, "ActiveState") != "inactive":
            active.append(unit)
    procs = "|".join(line.lstrip(" ") for line in processes_of_splashd(ct))
    verdict.ev(f"apt-get remove: {took}, dpkg status {status}; {', '.join(units)}; processes of splashd: {procs or 'none'}")
    if status != "rc":
        verdict.bad(f"dpkg status is '{status}', want rc (removed, configuration kept)")
    if active:
        verdict.bad(f"not stopped: {' '.join(active)}")
    if procs:
        verdict.bad("processes of splashd are still running")
    left = package_leftovers(ct)
    conffiles = " ".join(first for first in first_fields(ct.c("dpkg-query", "-W", "-f", "${Conffiles}", "splashd").stdout) if first)
    verdict.ev(f"the package's paths left: {left or 'none'}; conffiles: {conffiles}")
    if left != "/etc/splashd /etc/splashd/splashd.toml":
        verdict.bad(f"remove left '{left}', want '/etc/splashd /etc/splashd/splashd.toml'")
    if sha12(ct) != conf:
        verdict.bad("the operator's splashd.toml changed")
    verdict.ev(f"/var/lib/splashd: {ct.c('stat', '-c', '%U %a', '/var/lib/splashd', merge=True).out}, "
               f"{paste(ct.c('ls', '/var/lib/splashd', merge=True).stdout, ' ')}")
    if not (ct.c("test", "-s", "/var/lib/splashd/launch-counter.json").ok and ct.c("test", "-s", "/var/lib/splashd/history.jsonl").ok):
        verdict.bad("the state directory was not kept")
    verdict.ev(f"/run/splashd: {after_colon(ct.c('stat', '-c', '%F', '/run/splashd', merge=True).stdout)}; "
               f"catalog entries: {ct.catalog_entries()}")
    if not ct.c("test", "!", "-e", "/run/splashd").ok:
        verdict.bad("/run/splashd is still there")
    if ct.catalog_entries() != 0:
        verdict.bad("the journal catalog still has splashd's entries")
    # docs/packaging.md: kept, dangling, so that a reinstall keeps the operator's choice.
    links = paste(ct.c("find", "/etc/systemd/system", "-name", "splashd*", "-type", "l").stdout, " ")
    verdict.ev(f"enablement links: {links or 'none'}")
    if not ("sockets.target.wants/splashd.socket" in links and "multi-user.target.wants/splashd-finished.service" in links):
        verdict.bad("the enablement links are gone (packaging.md: kept until purge)")


# Check 17: purge leaves none of the package's paths, no state, configuration or enablement
# state; the user and the group stay.


@check(17, "purge", stage="booted", package=True)
def test_17_purge(ct: Container, verdict, removed):
    # The test's own plugins in /etc/splashd/plugins.d are an operator's files: purge keeps them
    # (docs/packaging.md). Gone first, as an operator who wants /etc/splashd gone would do.
    ct.c("rm", "-f", *TEST_PLUGINS)
    ok, took = ct.apt_get("purge", "splashd")
    if not ok:
        verdict.bad("apt-get purge failed")
    status = ct.c("dpkg-query", "-W", "-f", "${db:Status-Abbrev}", "splashd").stdout.replace(" ", "").rstrip("\n")
    left = package_leftovers(ct)
    verdict.ev(f"apt-get purge: {took}; dpkg status: {status or 'no record of splashd'}; the package's paths left: {left or 'none'}")
    if status not in ("", "un"):
        verdict.bad(f"dpkg status is '{status}' after the purge")
    if left:
        verdict.bad(f"purge left {left}")
    rest = paste(ct.c("sh", "-c", 'for p in /var/lib/splashd /etc/splashd /run/splashd; do [ -e "$p" ] && echo "$p"; done; '
                                  'find /etc/systemd /var/lib/systemd -name "*splashd*"').stdout, " ")
    verdict.ev(f"state, configuration, enablement left: {rest or 'none'}")
    if rest:
        verdict.bad(f"purge left {rest}")
    group = "\n".join(cut_fields(line, ":", (1, 3)) for line in lines(ct.c("getent", "group", "splash").stdout))
    verdict.ev(f"id splashd: {ct.c('id', 'splashd', merge=True).out}; group splash: {group}")
    if ct.c("id", "splashd", merge=True).out != ct.memo.splashd_ids:
        verdict.bad(f"the user splashd changed (before: {ct.memo.splashd_ids})")
    if not ct.c("getent", "group", "splash").ok:
        verdict.bad("the group splash is gone")


def make_legacy_package(ct: Container) -> str | None:
    """The single package of 0.1.0-1, before the split (legacy-0.1.0-1/: its control file and
    maintainer scripts), made again from the files of this build's packages. Its name under
    /srv/systest."""
    tree = ct.files / "legacy"
    shutil.rmtree(tree, ignore_errors=True)
    (tree / "DEBIAN").mkdir(parents=True)
    for deb in (ct.deb_name, *ct.siblings):
        if ct.host("dpkg-deb", "-x", ct.files / deb, tree).returncode != 0:
            return None
    # Its documentation and overrides were splashd's alone.
    for path in glob.glob(f"{tree}/usr/share/doc/splashd-*") + glob.glob(f"{tree}/usr/share/lintian/overrides/splashd-*"):
        shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.remove(path)
    arch = ct.host("dpkg-deb", "-f", ct.files / ct.deb_name, "Architecture").stdout.rstrip("\n")
    depends = ct.host("dpkg-deb", "-f", ct.files / ct.deb_name, "Depends").stdout.rstrip("\n")
    maintainer = ct.host("dpkg-deb", "-f", ct.deb, "Maintainer").stdout.rstrip("\n")
    size = ct.host("du", "-sk", tree).stdout.split("\t")[0]
    control = []
    for line in lines((LEGACY / "control.in").read_text()):
        for placeholder, value in (("@VERSION@", "0.1.0-1"), ("@ARCH@", arch), ("@MAINTAINER@", maintainer),
                                   ("@INSTALLED_SIZE@", size), ("@DEPENDS@", depends)):
            line = line.replace(placeholder, value, 1)
        control.append(line + "\n")
    (tree / "DEBIAN/control").write_text("".join(control))
    for script in ("postinst", "prerm", "postrm"):
        shutil.copyfile(LEGACY / script, tree / "DEBIAN" / script)
        os.chmod(tree / "DEBIAN" / script, 0o755)
    (tree / "DEBIAN/conffiles").write_text("/etc/splashd/splashd.toml\n")
    name = f"splashd_0.1.0-1_{arch}.deb"
    built = subprocess.run(["dpkg-deb", "--root-owner-group", "-Znone", "-b", str(tree), str(ct.root / "srv/systest" / name)],
                           stdin=subprocess.DEVNULL, stdout=ct.logger.file, stderr=subprocess.STDOUT, timeout=120)
    if built.returncode != 0:
        return None
    shutil.rmtree(tree, ignore_errors=True)
    return name


SPLIT = ("splashd", "splashd-kms", "splashd-otel", "splashd-themes", "splashd-web")

# Check 18: a device that runs the single 0.1.0-1 package (the renderer's unit enabled by its
# operator, the configuration changed, the daemon running) upgrades to the five split packages:
# each file goes to its package, none is lost, nothing is restarted or disabled, and the
# configuration stays. Then all five are purged: nothing of them is left.


@check(18, "split-upgrade", stage="booted", package=True)
def test_18_split_upgrade(ct: Container, verdict, purged):
    legacy = make_legacy_package(ct)
    if not legacy:
        verdict.bad("could not build the 0.1.0-1 package")
        return
    ok, took = ct.apt_get("install", f"/srv/systest/{legacy}")
    if not ok:
        verdict.bad(f"apt-get install ./{legacy} failed")
        return
    verdict.ev(f"apt-get install ./{legacy}: {took}, {ct.c('dpkg-query', '-W', '-f', '${Package} ${Version}', 'splashd').out}")
    ct.write_file(TOML, 0o644, configs.auto())
    conf = sha12(ct)
    if not ct.cl("systemctl", "enable", "splashd-web.service"):
        verdict.bad("could not enable splashd-web.service")
    if not ct.cl("systemctl", "start", "splashd.socket"):
        verdict.bad("splashd.socket did not start")
    if not ct.c("splashctl", "wait", "finished", "--timeout", "20s").ok:
        verdict.bad("no launch finished under 0.1.0-1")
    units = running_units(ct)
    legacy_paths = sorted(lines(ct.c("dpkg", "-L", "splashd").stdout))
    for deb in (ct.deb_name, *ct.siblings):
        shutil.copy(ct.files / deb, ct.root / "srv/systest" / deb)
    ok, took = ct.apt_get("install", f"/srv/systest/{ct.deb_name}", *(f"/srv/systest/{s}" for s in ct.siblings))
    if not ok:
        verdict.bad("apt-get install of the split packages failed")
    versions = ct.c("dpkg-query", "-W", "-f", "${Package}=${Version} ", *SPLIT).out
    verdict.ev(f"upgrade to the split packages: {took}; {versions}")
    v = ct.split_version
    if versions != f"splashd={v} splashd-kms={v} splashd-otel={v} splashd-themes={v} splashd-web={v} ":
        verdict.bad(f"installed: {versions}, want each at {v}")
    owned = ct.c("dpkg", "-S", "/usr/bin/splashd", "/usr/bin/splashctl", "/usr/bin/splashd-web", "/usr/share/splashd/web/index.html",
                 "/usr/bin/splashd-otel", "/usr/share/splashd/themes/reference/theme.toml", merge=True).stdout
    owners = " ".join(cut_fields(line, ":", (1,)) for line in lines(owned))
    verdict.ev(f"owners of splashd, splashctl, splashd-web, the page, splashd-otel, a theme: {owners}")
    if owners != "splashd splashd splashd-web splashd-web splashd-otel splashd-themes":
        verdict.bad(f"files owned by: {owners}")
    missing = paste(ct.c("sh", "-c", 'while read -r p; do [ -e "$p" ] || [ -L "$p" ] || echo "$p"; done',
                         input="".join(p + "\n" for p in legacy_paths)).stdout, " ")
    verdict.ev(f"paths of 0.1.0-1 missing after the upgrade: {missing or 'none'} (of {len(legacy_paths)})")
    if missing:
        verdict.bad(f"lost in the upgrade: {missing}")
    if running_units(ct) != units:
        verdict.bad(f"the upgrade changed: {running_units(ct)} (before: {units})")
    enabled = enabled_of(ct, "splashd.socket", "splashd-finished.service", "splashd-web.service", "splashd-otel.service")
    verdict.ev(f"is-enabled socket/finished/web/otel: {enabled}; splashd.toml {conf} -> {sha12(ct)}")
    if enabled != "enabled/enabled/enabled/disabled":
        verdict.bad(f"the upgrade changed what is enabled: {enabled}")
    if sha12(ct) != conf:
        verdict.bad("the upgrade replaced the operator's configuration")
    # The bridge of the split packages runs as its own user (issue 48), not splashd's, and still
    # reaches the socket and sends the page's commands (as a member of splash, the control group):
    # a `dismissed` after the launch is refused for the phase, not for permission.
    if not ct.cl("systemctl", "start", "splashd-web.service"):
        verdict.bad("splashd-web.service did not start")
    bridge = ct.c("ps", "-o", "user:32=,group:32=", "-p", ct.prop("splashd-web.service", "MainPID")).out.split()
    ct.write_from_files("bridge-page.py", "/srv/systest/bridge-page.py", 0o755)
    page = ct.c("python3", "/srv/systest/bridge-page.py", merge=True).out
    verdict.ev(f"splashd-web runs as {':'.join(bridge)} (uid {ct.c('id', '-u', 'splashd-web').out}, splashd's "
               f"{ct.c('id', '-u', 'splashd').out}); the page's dismissed: {page}")
    if bridge[:1] != ["splashd-web"] or ct.c("id", "-u", "splashd-web").out == ct.c("id", "-u", "splashd").out:
        verdict.bad(f"the bridge does not run as a user of its own: {bridge}")
    if page != "error invalid-transition":
        verdict.bad(f"the bridge's command was not splashd's to refuse for the phase: {page!r}")
    ct.cl("systemctl", "stop", "splashd-web.service")
    if not ct.c("splashd-web", "check", "--theme", "/usr/share/splashd/themes/reference", merge=True).ok:
        verdict.bad("splashd-web check of the shipped theme failed")
    ct.memo.package_paths = sorted(set(lines(ct.c("dpkg", "-L", *SPLIT).stdout)))
    ct.memo.other_paths = other_packages_paths(ct, ("splashd*.list",))
    ct.c("rm", "-f", *TEST_PLUGINS)
    ok, took = ct.apt_get("purge", *SPLIT)
    if not ok:
        verdict.bad("apt-get purge of the five failed")
    left = package_leftovers(ct)
    status = ct.c("dpkg-query", "-W", "-f", "${db:Status-Abbrev}", *SPLIT, merge=True).stdout
    verdict.ev(f"apt-get purge of the five: {took}; their paths left: {left or 'none'}; dpkg: {paste(squeeze(status), ' ')}")
    if left:
        verdict.bad(f"purge left {left}")


# Check 19: the native renderer's package and units (design §13). splashd-kms.service is enabled
# and starts with the earliest boot services (nothing of basic.target, sysinit.target or the
# network before it); started, it is ready before the display is there (the container has no
# GPU: it waits for /dev/dri/card0) and holds the display lock; the hand-off unit, which an app's
# unit orders after, stays activating while the renderer holds the display, and becomes active
# once it lets it go (here: the renderer stopped). With no renderer it is active at once. Then the
# package is purged: nothing of it is left.


@check(19, "kms-units", stage="booted", package=True)
def test_19_kms_units(ct: Container, verdict, split_installed):
    debs = [ct.deb_name] + [s for s in ct.siblings if s.startswith(("splashd-kms_", "splashd-themes_"))]
    for deb in debs:
        shutil.copy(ct.files / deb, ct.root / "srv/systest" / deb)
    ok, took = ct.apt_get("install", *(f"/srv/systest/{d}" for d in debs))
    if not ok:
        verdict.bad("apt-get install of splashd, splashd-themes and splashd-kms failed")
        return
    enabled = enabled_of(ct, "splashd-kms.service")
    wanted_by = ct.prop("splashd-kms.service", "WantedBy")
    after = ct.prop("splashd-kms.service", "After").split()
    early = [u for u in ("basic.target", "sysinit.target", "network.target", "network-online.target", "local-fs.target") if u in after]
    verdict.ev(f"install: {took}; splashd-kms.service {enabled}, wanted by {wanted_by}, after {' '.join(sorted(after))}")
    if enabled != "enabled" or "sysinit.target" not in wanted_by.split():
        verdict.bad(f"splashd-kms.service is {enabled}, wanted by {wanted_by}: not started at boot with sysinit.target")
    if early:
        verdict.bad(f"splashd-kms.service starts after {early}")
    if ct.prop("splashd-kms.service", "ActiveState") != "inactive":
        verdict.bad("the package started the renderer (it must not take a running system's display)")
    # No splashd for the renderer (masked and stopped until the purge): a launch that hands the
    # display over while the renderer has no device lets the lock go (renderer-kms.md), and this
    # container has no device. The renderer then holds the display waiting for its device and
    # for splashd, as early in a boot.
    ct.cl("systemctl", "mask", "--runtime", "--now", "splashd.socket", "splashd.service")
    cursor = ct.cursor()
    if not ct.cl("systemctl", "start", "splashd-kms.service"):
        verdict.bad("splashd-kms.service did not start")
    waiting = ct.jwait(20, cursor, field("_SYSTEMD_UNIT", "splashd-kms.service") & message("waiting for /dev/dri/card0 to appear"))
    lock = ct.c("stat", "-c", "%U %a", "/run/splashd-kms/display.lock").out
    verdict.ev(f"renderer: {ct.prop('splashd-kms.service', 'ActiveState')}, said {jr(waiting, 'MESSAGE') if waiting else 'nothing'}; "
               f"display lock: {lock or 'none'}")
    if not waiting or lock != "root 644":
        verdict.bad("the renderer is not ready, waiting for the display and holding its lock")
    cursor = ct.cursor()
    ct.c("systemctl", "start", "--no-block", "splashd-kms-handoff.service")
    # systemd says it is starting it once its process runs: then the unit must stay activating
    # (a blocked flock, no timer to race).
    starting = ct.jwait(20, cursor, about("splashd-kms-handoff.service") & message("^Starting "))
    held = ct.prop("splashd-kms-handoff.service", "ActiveState") if starting else "not started"
    verdict.ev(f"hand-off unit while the renderer holds the display: {held}")
    if held != "activating":
        verdict.bad(f"the hand-off unit is {held} while the renderer holds the display")
    ct.cl("systemctl", "stop", "splashd-kms.service")
    ok = ct.cl("timeout", "20", "systemctl", "start", "splashd-kms-handoff.service", timeout=30)
    after_stop = ct.prop("splashd-kms-handoff.service", "ActiveState")
    result = ct.prop("splashd-kms.service", "Result")
    verdict.ev(f"renderer stopped ({result}): hand-off unit {after_stop}")
    if not ok or after_stop != "active" or result != "success":
        verdict.bad(f"the hand-off unit is {after_stop} once the renderer let the display go (renderer: {result})")
    ct.cl("systemctl", "stop", "splashd-kms-handoff.service")
    ok = ct.cl("timeout", "20", "systemctl", "start", "splashd-kms-handoff.service", timeout=30)
    alone = ct.prop("splashd-kms-handoff.service", "ActiveState")
    verdict.ev(f"no renderer: hand-off unit {alone}")
    if not ok or alone != "active":
        verdict.bad(f"with no renderer the hand-off unit is {alone}")
    ct.cl("systemctl", "unmask", "--runtime", "splashd.socket", "splashd.service")
    ct.memo.package_paths = sorted(set(lines(ct.c("dpkg", "-L", "splashd-kms").stdout)))
    ct.memo.other_paths = other_packages_paths(ct, ("splashd-kms.list",))
    ok, took = ct.apt_get("purge", "splashd-kms")
    left = package_leftovers(ct)
    verdict.ev(f"apt-get purge splashd-kms: {took}; its paths left: {left or 'none'}")
    if not ok or left:
        verdict.bad(f"purge failed or left {left}")
    ct.apt_get("purge", "splashd", "splashd-themes")


# Check 20: the container is still running cleanly after all that: nothing failed.


@check(20, "still-running", stage="booted", package=True)
def test_20_still_running(ct: Container, verdict):
    system = ct.c("timeout", "30", "systemctl", "is-system-running", "--wait", merge=True, timeout=60).out
    failed = " ".join(first_fields(ct.c("systemctl", "--failed", "--no-legend", "--plain").stdout))
    verdict.ev(f"is-system-running: {system}; failed units: {failed or 'none'}")
    if system != "running":
        verdict.bad(f"the system is {system}")
