"""The system tests' harness (docs/system-tests.md): options, the container as session fixtures,
one verdict per check, the deadline, the checks' order, and the check lines scripts/system-test.sh
prints. The checks are in test_*.py, one file per group, run in the order of their numbers (0 to
22) whatever file holds them; what they share is checks.py.

    pytest Tests/system --deb dist/splashd_0.1.0-2_amd64.deb     # as root; or --bin-dir DIR
    pytest Tests/system --deb … -k 'test_08 or test_09'          # some checks (and what they need)

Fixtures (session scope, one container through all the checks):
  ct        the container, booted once, the package (or --bin-dir's files) installed: check 0
  rebooted  … then the boot configuration and an example app unit written, rebooted, the boot
            launch waiting in first-frame: checks 1–3
  booted    … then the boot launch finished (check 3 plays the app and the renderer; without it
            this fixture does the same), the boot's records taken for check 14: the other checks
  auto_config, plugins_launch, kiosk_app, upgraded, removed, purged, split_installed
            (per check) the state an earlier check leaves, taken by the checks that use it: made
            when it is cheap (auto_config), else the check is skipped when its maker was not run
  verdict   (per check) `verdict.ev(text)` adds evidence, `verdict.bad(text)` a reason to fail;
            the check's line is `PASS N name: evidence (T ms)` or `FAIL N name: reasons | seen:
            evidence (T ms)`

Without root, or without --deb/--bin-dir, every check is skipped with a message, so a plain
`pytest Tests/` does not fail.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import traceback
from pathlib import Path

import pytest

import configs
from checks import TOML
from container import Container, SetupError, json_objects, lines, ms_since

HERE = Path(__file__).resolve().parent
PACKAGE_NOTE = "package: checks 15-22 (upgrade, remove, purge, the split, the modes) need a package; not run with --bin-dir"
INTERRUPTED = "system-test: interrupted (deadline or signal)"


def pytest_addoption(parser):
    group = parser.getgroup("splashd system tests (Tests/system)")
    group.addoption("--deb", dest="systest_deb", metavar="PATH", default=None,
                    help="splashd's package; splashd-web, splashd-otel and splashd-themes of the same version are taken "
                         "from the same directory")
    group.addoption("--bin-dir", dest="systest_bin_dir", metavar="DIR", default=None,
                    help="no package: DIR/splashd (splashctl: a link to it) and this repository's units and plugins "
                         "(checks 15-22 are skipped)")
    group.addoption("--systest-log", dest="systest_log", metavar="FILE", default=None,
                    help="keep everything the checks ran and saw in FILE")


class Run:
    """One run of the system tests: its options, its start, the check lines, the container."""

    def __init__(self, config):
        self.config = config
        deb = config.getoption("systest_deb", None)
        bin_dir = config.getoption("systest_bin_dir", None)
        log = config.getoption("systest_log", None)
        self.deb = os.path.realpath(deb) if deb else None
        self.bin_dir = os.path.realpath(bin_dir) if bin_dir and not deb else None
        self.log_file = os.path.abspath(log) if log else None
        self.started_ns = int(os.environ.get("SYSTEST_STARTED_NS") or time.time_ns())
        self.skip_reason = None
        if os.geteuid() != 0:
            self.skip_reason = "skipped the system tests: they need root (systemd-nspawn, mounts)"
        elif not (self.deb or self.bin_dir):
            self.skip_reason = "skipped the system tests: no package (--deb PATH, or --bin-dir DIR; scripts/system-test.sh gives it)"
        self.container: Container | None = None
        self.lines: dict[str, str] = {}  # nodeid -> the check's line, printed with its report
        self.checks = 0
        self.failed = 0
        self.aborted = False
        self.package_note_said = False
        self.ours: set[str] = set()
        self.stderr = os.dup(2)  # the terminal's stderr, past pytest's capturing (for a signal handler)

    @property
    def active(self) -> bool:
        return self.skip_reason is None

    def echo(self, text: str) -> None:
        """A line on the terminal, past pytest's capturing."""
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        capture = self.config.pluginmanager.get_plugin("capturemanager")
        with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
            if reporter:
                reporter.write_line(text)
                reporter.flush()
            else:
                sys.__stdout__.write(text + "\n")
                sys.__stdout__.flush()

    def say(self, text: str) -> None:
        if self.container:
            self.container.say(text)
        else:
            self.echo(text)

    # -- the deadline ------------------------------------------------------------------------

    def arm_deadline(self) -> None:
        """SYSTEST_DEADLINE (default 900 s: the run takes about 100 s on a quiet machine, and a bound
        against a hang must not be one a busy machine reaches) after the start (SYSTEST_STARTED_NS, set by
        scripts/system-test.sh, or now) the run is interrupted: exit 2 after the container is
        torn down, as on SIGTERM; 90 s later this process is killed outright (nspawn goes with it:
        --pdeathsig)."""
        seconds = duration(os.environ.get("SYSTEST_DEADLINE") or "900")
        remaining = seconds - (time.time_ns() - self.started_ns) / 1e9
        signal.signal(signal.SIGALRM, self.interrupted)
        signal.signal(signal.SIGTERM, self.interrupted)
        signal.setitimer(signal.ITIMER_REAL, max(remaining, 0.01))

        def hard_deadline():
            time.sleep(max(remaining, 0) + 90)
            os.write(self.stderr, b"system-test: killed: the deadline passed 90 s ago\n")
            os.kill(os.getpid(), signal.SIGKILL)

        threading.Thread(target=hard_deadline, name="systest-deadline", daemon=True).start()

    def interrupted(self, signum, frame) -> None:
        self.note_interrupted()
        pytest.exit(INTERRUPTED, returncode=2)

    def note_interrupted(self) -> None:
        if self.aborted:
            return
        self.aborted = True
        os.write(self.stderr, (INTERRUPTED + "\n").encode())
        if self.container:
            self.container.log(INTERRUPTED)

    def disarm(self) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)

    def abort(self, error: BaseException) -> None:
        """The container could not be set up: its message (and the console's or the log's last
        lines), then the run ends with exit 2."""
        self.aborted = True
        text = str(error) if isinstance(error, SetupError) else f"system-test: setting up the container failed: {error!r}"
        if not isinstance(error, SetupError) and self.container:
            self.container.log(traceback.format_exc())
        self.say(text)
        for line in getattr(error, "tail", []):
            self.echo(line)
        pytest.exit(text, returncode=2)


def duration(text: str) -> float:
    """A duration as timeout(1) takes it: seconds, or with a suffix s, m, h or d."""
    text = text.strip()
    scale = {"s": 1, "m": 60, "h": 3600, "d": 86400}.get(text[-1:], None)
    try:
        return float(text[:-1]) * scale if scale else float(text)
    except ValueError:
        raise pytest.UsageError(f"system-test: not a duration: {text!r} (seconds, or with s, m, h or d)") from None


RUN = pytest.StashKey[Run]()
CURRENT: Run | None = None  # for the hooks that get no config


def run_of(config) -> Run:
    return config.stash[RUN]


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "systest_check(id, name, stage, package=False): a system check (Tests/system); "
                   "stage: the fixture it runs on (ct, rebooted, booted)")
    global CURRENT
    run = Run(config)
    config.stash[RUN] = CURRENT = run
    if run.active:
        run.arm_deadline()


def is_ours(item) -> bool:
    return HERE in Path(str(item.path)).resolve().parents


def check_number(item) -> int:
    return item.get_closest_marker("systest_check").args[0]


def pytest_collection_modifyitems(config, items):
    """The checks run in the order of their numbers, whichever file holds them (each file holds
    one group: test_install_and_boot.py, test_daemon_life.py, …); other tests keep their places."""
    run = run_of(config)
    places = [index for index, item in enumerate(items) if is_ours(item) and item.get_closest_marker("systest_check")]
    for index, item in zip(places, sorted((items[index] for index in places), key=check_number)):
        items[index] = item
    for item in items:
        if not is_ours(item):
            continue
        run.ours.add(item.nodeid)
        if not run.active:
            item.add_marker(pytest.mark.skip(reason=run.skip_reason))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    run = run_of(config)
    if run.ours and not run.active:
        terminalreporter.write_line(f"system-test: {run.skip_reason}")


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report, config):
    """No progress letters for the checks (their lines say it), unless verbose."""
    run = run_of(config)
    if report.nodeid not in run.ours or config.get_verbosity() > 0:
        return None
    if report.when == "call":
        category, word = report.outcome, report.outcome.upper()
    elif report.failed:
        category, word = "error", "ERROR"
    elif report.skipped:
        category, word = "skipped", "SKIPPED"
    else:
        category, word = "", ""
    return category, "", word  # the word for the short summary ("FAILED …")


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report):
    """A check's line, once pytest has reported it (after PASSED/FAILED when verbose)."""
    if CURRENT and report.when == "call" and report.nodeid in CURRENT.lines:
        CURRENT.echo(CURRENT.lines.pop(report.nodeid))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    """With the system tests on, the exit status is scripts/system-test.sh's: 0 every check
    passed, 1 one failed, 2 anything else (no container, interrupted, the harness failed)."""
    if CURRENT and CURRENT.active and CURRENT.ours and session.exitstatus not in (0, 1):
        session.exitstatus = 2


def pytest_keyboard_interrupt(excinfo):
    if CURRENT and CURRENT.container:
        CURRENT.note_interrupted()


# ---------------------------------------------------------------------------------------------
# The container, in stages


@pytest.fixture(scope="session")
def ct(request) -> Container:
    """The container, booted, with the package (or --bin-dir's files) installed: what check 0 sees."""
    run = run_of(request.config)
    container = Container(run.deb, run.bin_dir, run.log_file, run.echo)
    run.container = container
    request.addfinalizer(lambda: finish(run, container))
    try:
        container.set_up()
    except pytest.exit.Exception:
        raise
    except Exception as error:
        run.abort(error)
    return container


def finish(run: Run, container: Container) -> None:
    """After the last check: SYSTEST_HOLD, the total, the journal when a check failed; then the
    container torn down (also after an interruption or a failed setup)."""
    try:
        if not run.aborted and container.logger:
            hold = os.environ.get("SYSTEST_HOLD")
            if hold:  # debugging: keep the container up (nsenter --target LEADER --all)
                container.say(f"hold: container leader {container.leader} for {hold}s")
                try:
                    time.sleep(duration(hold))
                except pytest.UsageError as error:
                    container.say(str(error))
            container.say(f"total: {ms_since(run.started_ns)} ms, {run.checks} checks, {run.failed} failed")
            if run.failed:
                container.say("--- the container's journal for splashd (last 40 lines)")
                tail = container.journal_tail()
                for line in lines(tail):
                    run.echo(line)
                container.log(tail)
    finally:
        run.disarm()
        container.tear_down()


@pytest.fixture(scope="session")
def rebooted(ct: Container, request) -> Container:
    """What the reboot starts: the boot config, the example app enabled; the boot launch waits in
    first-frame (its exit animation lasts 5 minutes: only `dismissed` ends it)."""
    run = run_of(request.config)
    try:
        ct.write_file("/etc/splashd/splashd.toml", 0o644, configs.boot())
        ct.write_from_files("systest-app.service", "/etc/systemd/system/systest-app.service", 0o644)
        ct.cl("systemctl", "enable", "systest-app.service")
        boot_cursor = ct.cursor()
        rebooted_ns = time.time_ns()
        if not ct.reboot():
            raise SetupError("system-test: the container did not come back after the reboot", ct.console_tail())
        result = ct.wait_start_job(120, boot_cursor, "splashd.service")
        ready_ms = ms_since(rebooted_ns)
        if result != "done":
            raise SetupError(f"system-test: splashd.service's start job after the reboot: '{result or 'not seen'}'", ct.console_tail())
        if not ct.c("splashctl", "wait", "loading", "--timeout", "60s").ok:
            raise SetupError("system-test: the boot launch was not seen loading after the reboot", ct.console_tail())
        ct.memo.boot_invocation = ct.prop("splashd.service", "InvocationID")
        ct.say(f"boot: after the reboot, splashd.service's start job '{result}' {ready_ms} ms after `systemctl reboot` "
               "(shutdown, nspawn restart and boot included); systemd's own time comes once the boot is finished")
    except pytest.exit.Exception:
        raise
    except Exception as error:
        run.abort(error)
    return ct


@pytest.fixture(scope="session")
def booted(rebooted: Container, request) -> Container:
    """The boot finished; the boot start's records (the daemon's and systemd's about this
    invocation) taken now, for check 14, before the checks provoke failures on purpose."""
    ct = rebooted
    run = run_of(request.config)
    try:
        if 3 not in ct.memo.ran:  # check 3 was not run: play the app and the renderer as it does
            ct.cl("splashctl", "complete", "first-frame")
            ct.cl("splashctl", "wait", "dismissing", "--timeout", "20s")
            ct.cl("splashctl", "dismissed")
            ct.cl("splashctl", "wait", "finished", "--timeout", "10s")
        state_boot = ct.c("timeout", "60", "systemctl", "is-system-running", "--wait", timeout=90).out
        analyze = lines(ct.c("systemd-analyze", "time", merge=True).stdout)
        ct.say(f"boot: is-system-running: {state_boot}; {analyze[0] if analyze else ''} (includes the held splash)")
        invocation = ct.memo.boot_invocation
        ct.memo.boot_records = json_objects(ct.c("journalctl", "-o", "json", "--no-pager", f"_SYSTEMD_INVOCATION_ID={invocation}",
                                                 "+", f"INVOCATION_ID={invocation}").stdout)
        warnings = ct.c("journalctl", "-b", "-u", "splashd.service", "-p", "warning", "-o", "cat", "--no-pager", merge=True).stdout
        ct.memo.boot_warnings = "\n".join(line for line in lines(warnings) if line != "-- No entries --")
        ct.log(f"boot start records: {len(ct.memo.boot_records)}; journalctl -b -u splashd -p warning: {ct.memo.boot_warnings or 'empty'}")
    except pytest.exit.Exception:
        raise
    except Exception as error:
        run.abort(error)
    return ct


# ---------------------------------------------------------------------------------------------
# What a check leaves for later ones: a check that uses an earlier one's state takes it as a
# fixture. The state is made here when that is as cheap as the check's setup (the auto config);
# otherwise the check is skipped, with what to select, when the check that makes it did not run.


def left_by(request, ct: Container, check_id: int) -> None:
    if check_id in ct.memo.ran:
        return
    own, name = request.node.get_closest_marker("systest_check").args
    reason = f"needs the state check {check_id} leaves: select it too (-k 'test_{check_id:02d} or test_{own:02d}')"
    ct.say(f"SKIP {own} {name}: {reason}")
    pytest.skip(reason)


@pytest.fixture
def auto_config(booted: Container) -> Container:
    """Check 4's state: the config whose launches finish by themselves (`configs.auto()`: no
    first-frame step) in the file and running. Without check 4, written and reloaded here."""
    ct = booted
    if 4 not in ct.memo.ran:
        ct.write_file(TOML, 0o644, configs.auto())
        before = ct.cursor()
        ct.cl("systemctl", "reload", "splashd.service")
        if "configuration reloaded" not in ct.wait_reload(before):
            pytest.fail("auto_config: the auto config was not reloaded", pytrace=False)
    return ct


@pytest.fixture
def plugins_launch(booted: Container, request) -> str:
    """Check 8's state: the test plugins and the HTTPS server in place; the id of the launch that
    ran through them (its records in the journal)."""
    left_by(request, booted, 8)
    return booted.memo.plugins_launch


def left_by_check(name: str, check_id: int, doc: str):
    """A fixture `name` for the state check `check_id` leaves, which only that check makes."""
    def fixture(booted: Container, request) -> Container:
        left_by(request, booted, check_id)
        return booted
    fixture.__name__, fixture.__doc__ = name, doc
    return pytest.fixture(name=name)(fixture)


kiosk_app = left_by_check("kiosk_app", 10, "Check 10's state: the kiosk app, its units and the grant's files written; the app running.")
upgraded = left_by_check("upgraded", 15, "Check 15's state: the package upgraded over itself, the daemon kept.")
removed = left_by_check("removed", 16, "Check 16's state: the package removed (its files listed before, in memo.package_paths).")
purged = left_by_check("purged", 17, "Check 17's state: the package purged (only the legacy 0.1.0-1 can come next).")
split_installed = left_by_check("split_installed", 18, "Check 18's state: 0.1.0-1 upgraded to this version's split packages.")


# ---------------------------------------------------------------------------------------------
# One verdict per check


class Verdict:
    """A check's evidence and its reasons to fail, and its line."""

    def __init__(self, check_id: int, name: str, container: Container):
        self.id, self.name, self.ct = check_id, name, container
        self.evidence, self.reasons = "", ""
        self.started = 0

    def ev(self, text: str) -> None:
        self.evidence += ("; " if self.evidence else "") + text
        self.ct.log(f"  evidence: {text}")

    def bad(self, text: str) -> None:
        self.reasons += ("; " if self.reasons else "") + text
        self.ct.log(f"  FAILED: {text}")

    def begin(self) -> None:
        self.started = time.time_ns()
        self.ct.log(f"=== check {self.id} {self.name}")

    def line(self) -> str:
        took = ms_since(self.started)
        if not self.reasons:
            return f"PASS {self.id} {self.name}: {self.evidence} ({took} ms)"
        return f"FAIL {self.id} {self.name}: {self.reasons} | seen: {self.evidence} ({took} ms)"


@pytest.fixture
def verdict(request, ct: Container) -> Verdict:
    mark = request.node.get_closest_marker("systest_check")
    check_id, name = mark.args
    stage, package = mark.kwargs["stage"], mark.kwargs.get("package", False)
    run = run_of(request.config)
    if package and not ct.deb:
        if not run.package_note_said:
            run.package_note_said = True
            ct.say(PACKAGE_NOTE)
        pytest.skip("needs a package: not run with --bin-dir")
    request.getfixturevalue(stage)
    return Verdict(check_id, name, ct)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """Runs a check: its line from its evidence and reasons; it fails when it has a reason (or
    raised: a fault of the check, which the line says, and the later checks still run)."""
    verdict = getattr(item, "funcargs", {}).get("verdict")
    if not isinstance(verdict, Verdict):
        return (yield)
    run = run_of(item.config)
    verdict.begin()
    try:
        result = yield
    except pytest.exit.Exception:  # interrupted (deadline or signal): no line, as ever
        raise
    except Exception as error:
        verdict.bad(f"the check raised {type(error).__name__}: {error}")
        verdict.ct.log("".join(traceback.format_exception(error)))
        record(run, item, verdict)
        raise
    record(run, item, verdict)
    if verdict.reasons:
        pytest.fail(verdict.reasons, pytrace=False)
    return result


def record(run: Run, item, verdict: Verdict) -> None:
    line = verdict.line()
    run.checks += 1
    if verdict.reasons:
        run.failed += 1
    verdict.ct.memo.ran.add(verdict.id)
    verdict.ct.log(line)
    run.lines[item.nodeid] = line
