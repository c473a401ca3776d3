"""What the system checks share (Tests/system/test_*.py): the `check` mark, the paths they
name, and small helpers that do in Python what the shell pipelines did (jq, awk, cut, test).
"""

from __future__ import annotations

import re

import pytest

from container import Container, jc, jr, lines, num, paste

TOML = "/etc/splashd/splashd.toml"
UNITS3 = ("splashd.socket", "splashd.service", "splashd-finished.service")
TEST_PLUGINS = ("/etc/splashd/plugins.d/systest-probe.toml", "/etc/splashd/plugins.d/systest-probe.sh",
                "/etc/splashd/plugins.d/systest-sleeper.toml", "/etc/splashd/plugins.d/systest-sleeper.sh")


def check(check_id: int, name: str, stage: str, package: bool = False):
    """A system check: its number and name (its line), the fixture it runs on (ct, rebooted,
    booted), whether it needs a package (not with --bin-dir). The state of an earlier check that
    it uses is a fixture it takes (conftest.py: auto_config, plugins_launch, …)."""
    return pytest.mark.systest_check(check_id, name, stage=stage, package=package)


def ji(value) -> str:
    """A value in a jq string interpolation: strings as they are, null as "null"."""
    if value is None:
        return "null"
    return jr(value)


def jcq(document, *path) -> str:
    """`jq -c .a.b`: empty when there was no document."""
    if document is None:
        return ""
    value = document
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return jc(value)


def cut_fields(line: str, delimiter: str, wanted: tuple[int, ...]) -> str:
    """cut -d DELIMITER -f WANTED (1-based) of one line; a line without the delimiter as it is."""
    if delimiter not in line:
        return line
    parts = line.split(delimiter)
    return delimiter.join(parts[i - 1] for i in wanted if i <= len(parts))


def first_fields(text: str) -> list[str]:
    """awk '{print $1}'."""
    return [(line.split() or [""])[0] for line in lines(text)]


def steps_of(state) -> str:
    """[.steps[].id] | join(",")"""
    if state is None:
        return ""
    return ",".join(ji(step.get("id")) for step in state.get("steps") or [])


def lt(a, b) -> bool:
    """[ A -lt B ] (false unless both are numbers)."""
    a, b = num(a), num(b)
    return a is not None and b is not None and a < b


def le(a, b) -> bool:
    a, b = num(a), num(b)
    return a is not None and b is not None and a <= b


def n0(text) -> int:
    """A number in $((…)): empty (or not a number) counts as 0."""
    value = num(text)
    return value if value is not None else 0


def sha12(ct: Container, path: str = TOML) -> str:
    """sha256sum PATH | cut -c1-12"""
    return "\n".join(line[:12] for line in lines(ct.c("sha256sum", path).stdout))


def after_colon(text: str) -> str:
    """sed 's/.*: //' (what `stat` says when there is nothing)."""
    return "\n".join(re.sub(r".*: ", "", line) for line in lines(text))


def ping_ok(ct: Container) -> bool:
    return ct.c("splashctl", "ping", merge=True).out == f"pong (splashd {ct.c('splashd', '--version', merge=True).out})"


def enabled_of(ct: Container, *units: str) -> str:
    return paste(ct.c("systemctl", "is-enabled", *units, merge=True).stdout, "/")


def processes_of_splashd(ct: Container, columns: str = "pid=,args=") -> list[str]:
    return lines(ct.c("ps", "-u", "splashd", "-o", columns).stdout)


def running_units(ct: Container) -> str:
    """What an upgrade must leave alone, one line: the daemon, its socket, the finished unit, the launch."""
    return (f"splashd {ct.prop('splashd.service', 'MainPID')} {ct.prop('splashd.service', 'InvocationID')} "
            f"NRestarts={ct.prop('splashd.service', 'NRestarts')} "
            f"socket-since {ct.prop('splashd.socket', 'ActiveEnterTimestampMonotonic')} "
            f"finished-since {ct.prop('splashd-finished.service', 'ActiveEnterTimestampMonotonic')} "
            f"launch {jr(ct.state(), 'launch')}")


def package_leftovers(ct: Container) -> str:
    """The paths of memo.package_paths that exist in the container and that no other package lists."""
    mine = sorted(set(ct.memo.package_paths) - set(ct.memo.other_paths))
    script = 'while read -r p; do if [ -e "$p" ] || [ -L "$p" ]; then echo "$p"; fi; done'
    return paste(ct.c("sh", "-c", script, input="".join(p + "\n" for p in mine)).stdout, " ")


def other_packages_paths(ct: Container, excluded: tuple[str, ...]) -> list[str]:
    """What the other packages list (dpkg's *.list files but the EXCLUDED names), sorted, unique."""
    argv = ["find", "/var/lib/dpkg/info", "-name", "*.list"]
    for name in excluded:
        argv += ["!", "-name", name]
    return sorted(set(lines(ct.c(*argv, "-exec", "cat", "{}", "+").stdout)))


def write_plugins(ct: Container) -> None:
    for name, mode in [("systest-probe.toml", 0o644), ("systest-probe.sh", 0o755),
                       ("systest-sleeper.toml", 0o644), ("systest-sleeper.sh", 0o755)]:
        ct.write_from_files(name, f"/etc/splashd/plugins.d/{name}", mode)
