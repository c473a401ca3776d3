"""The system tests' container (docs/system-tests.md): systemd 252 as PID 1 in systemd-nspawn, on an
overlay of the host's root file system whose upper layer is a tmpfs, in a private mount namespace;
and the ways the checks run things in it and read its journal.

Everything is bounded: every command has a timeout, every wait on the journal or on the daemon's
state is `journalctl --follow` or `splashctl watch` read until a match or a deadline (events, not
sleeps). The only polls are for the container's leader pid and its manager's socket to appear
after nspawn starts, as there is no event to wait for.

Processes started here are stopped by their PID only.
"""

from __future__ import annotations

import ctypes
import glob
import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Callable

REPO = Path(__file__).resolve().parents[2]
FILES = Path(__file__).resolve().parent / "files"
LEGACY = Path(__file__).resolve().parent / "legacy-0.1.0-1"

# The clean environment of everything run in the container.
CLEAN_ENV = ["env", "-i", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
             "LANG=C.UTF-8", "TERM=dumb", "SYSTEMD_COLORS=0", "SYSTEMD_PAGER=", "SYSTEMD_LESS="]

# Host units that would start in the container and slow its boot (or touch the network).
MASKS = ["postgresql.service", "apt-daily.service", "apt-daily-upgrade.service", "man-db.service",
         "e2scrub_all.service", "e2scrub_reap.service", "fstrim.service", "dpkg-db-backup.service",
         "console-getty.service"]

# What the host must have (scripts/setup.sh packages installs it).
# The host's loop devices, for RAUC in the container (check 22: it mounts a bundle through one).
# Without systemd on the host, nspawn sets no device policy: a bound node can be opened.
LOOP_DEVICES = [f"--bind={path}" for path in ["/dev/loop-control", *sorted(glob.glob("/dev/loop[0-9]*"))] if os.path.exists(path)]
TOOLS = ["systemd-nspawn", "nsenter", "unshare", "setpriv", "openssl", "jq"]

# No command of a check takes longer (the ones that may have their own `timeout` inside).
COMMAND_TIMEOUT = 120

# The five MESSAGE_IDs of splashd's journal catalog.
CATALOG_PREFIXES = ("76bc5e5d", "2fada256", "02735621", "e926d20f", "f0d9320a")
LAUNCH_STARTED_ID = "76bc5e5dee6741ef924f31ac5e522255"
LAUNCH_FINISHED_ID = "f0d9320a7af2417aa3e2dba4301af87c"


class SetupError(Exception):
    """The container could not be set up (the run ends with exit 2)."""

    def __init__(self, message: str, tail: list[str] | None = None):
        super().__init__(message)
        self.tail = tail or []


# ---------------------------------------------------------------------------------------------
# Text as the shell sees it


def lines(text: str) -> list[str]:
    """The lines of `text` as `paste`, `wc -l` and `head` count them."""
    if not text:
        return []
    parts = text.split("\n")
    return parts[:-1] if text.endswith("\n") else parts


def paste(text: str, sep: str) -> str:
    """`paste -sd SEP`: the lines of `text` joined."""
    return sep.join(lines(text))


def count_lines(text: str) -> int:
    """`wc -l <<<"$text"` (a here-string adds a newline: empty text counts as one line)."""
    return len(lines(text + "\n"))


def squeeze(text: str) -> str:
    """`tr -s ' '`."""
    return re.sub(" {2,}", " ", text)


def in_list(word: str, words: str) -> bool:
    """The word is one of the space-separated `words` (systemctl show's lists)."""
    return f" {word} " in f" {words} "


def jc(value) -> str:
    """`jq -c .`: compact JSON, key order kept."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def jr(value, *path) -> str:
    """`jq -r .a.b`: a string as it is, null as "null", anything else as compact JSON; an empty
    string when there was no document (jq prints nothing for empty input)."""
    if value is None:
        return ""
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    if value is None:
        return "null"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return jc(value)


def num(text: str) -> int | None:
    """A decimal integer, or None (a test(1) comparison of it then fails)."""
    try:
        return int(str(text).strip())
    except ValueError:
        return None


def ms_since(ns: int) -> int:
    """Milliseconds since the wall-clock time `ns` (time.time_ns()), as `date +%s%N` arithmetic."""
    return (time.time_ns() - ns) // 1_000_000


def tdiv(a: int, b: int) -> int:
    """Integer division as the shell's $((a / b)) does it (towards zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


# ---------------------------------------------------------------------------------------------
# Journal entries: conditions for the waits, readable in the log


class Match:
    """A condition on a journal entry (its JSON object), with the text the log shows for it."""

    def __init__(self, test: Callable[[dict], bool], text: str):
        self.test, self.text = test, text

    def __call__(self, entry: dict) -> bool:
        return bool(self.test(entry))

    def __and__(self, other: "Match") -> "Match":
        return Match(lambda e: self(e) and other(e), f"({self.text} and {other.text})")

    def __or__(self, other: "Match") -> "Match":
        return Match(lambda e: self(e) or other(e), f"({self.text} or {other.text})")

    def __str__(self) -> str:
        return self.text


def msg(entry: dict) -> str:
    """An entry's message: a string even when the journal holds bytes."""
    message = entry.get("MESSAGE")
    return message if isinstance(message, str) else ""


def daemon() -> Match:
    """The daemon's own records."""
    return Match(lambda e: e.get("_SYSTEMD_UNIT") == "splashd.service", "daemon")


def about(unit: str) -> Match:
    """systemd's (PID 1) records about UNIT."""
    return Match(lambda e: e.get("_PID") == "1" and e.get("UNIT") == unit, f'about("{unit}")')


def message(pattern: str) -> Match:
    """The message matches the regular expression."""
    return Match(lambda e: re.search(pattern, msg(e)) is not None, f'(msg | test("{pattern}"))')


def field(name: str, value) -> Match:
    return Match(lambda e: e.get(name) == value, f".{name} == {json.dumps(value)}")


def has(name: str) -> Match:
    return Match(lambda e: e.get(name) is not None, f".{name} != null")


def json_objects(text: str) -> list[dict]:
    """The JSON objects of a JSON-lines text (`journalctl -o json`, `splashctl logs --json`)."""
    objects = []
    for line in lines(text):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            objects.append(value)
    return objects


# ---------------------------------------------------------------------------------------------
# The log


class Log:
    """Everything the checks ran and saw (WORK/log, copied to --log FILE at the end); `say` also
    prints the line (one line per check and the few about the container)."""

    def __init__(self, path: Path, echo: Callable[[str], None]):
        self.path, self.echo = path, echo
        self.file = open(path, "a", encoding="utf-8", errors="replace")

    def log(self, text: str) -> None:
        self.file.write(text if text.endswith("\n") else text + "\n")
        self.file.flush()

    def say(self, text: str) -> None:
        self.echo(text)
        self.log(text)

    def close(self) -> None:
        self.file.close()


# ---------------------------------------------------------------------------------------------
# The container


@dataclass
class Result:
    """What a command in the container did: its exit status, stdout and stderr."""

    rc: int
    stdout: str
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.rc == 0

    @property
    def out(self) -> str:
        """Stdout as $(…) gives it: without its trailing newlines."""
        return self.stdout.rstrip("\n")


def decode(data: bytes | None) -> str:
    return data.decode("utf-8", "replace") if data else ""


def private_mount_namespace() -> None:
    """This process (its main thread and what it starts) in a mount namespace of its own, with
    private propagation: the overlay, its tmpfs and nspawn's bookkeeping under /run/systemd exist
    only in it and vanish with it (what `unshare --mount --propagation private` does)."""
    if os.environ.get("SPLASHD_SYSTEST_NS") == str(os.getpid()):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    CLONE_NEWNS = 0x00020000
    if libc.unshare(CLONE_NEWNS) != 0:
        raise SetupError(f"system-test: unshare(CLONE_NEWNS) failed: {os.strerror(ctypes.get_errno())}")
    subprocess.run(["mount", "--make-rprivate", "/"], check=True, timeout=30)
    os.environ["SPLASHD_SYSTEST_NS"] = str(os.getpid())


class Container:
    """One container through all the checks: set up, booted, rebooted, torn down; `c` and the
    other helpers run things in it."""

    def __init__(self, deb: str | None, bin_dir: str | None, log_file: str | None, echo: Callable[[str], None]):
        self.deb, self.bin_dir, self.log_file = deb, bin_dir, log_file
        self.siblings: list[str] = []  # the other packages' file names (in files/), and their version
        self.split_version = ""
        self.machine = f"splashd-systest-{os.getpid()}"
        self.work: Path | None = None
        self.echo = echo
        self.logger: Log | None = None
        self.nspawn: subprocess.Popen | None = None
        self.leader: int | None = None
        self.mounted: list[str] = []
        # What the checks leave for later ones (check 8's launch for check 9, …).
        self.memo = SimpleNamespace(ran=set(), boot_invocation="", boot_records="", boot_warnings="",
                                    plugins_launch="", splashd_ids="")

    # -- paths -------------------------------------------------------------------------------

    @property
    def root(self) -> Path:
        """The container's root as the host sees it (the merged overlay)."""
        return self.work / "root"

    @property
    def files(self) -> Path:
        return self.work / "files"

    @property
    def console(self) -> Path:
        return self.work / "console"

    @property
    def deb_name(self) -> str:
        return os.path.basename(self.deb)

    # -- logging -----------------------------------------------------------------------------

    def log(self, text: str) -> None:
        if self.logger:
            self.logger.log(text)

    def say(self, text: str) -> None:
        if self.logger:
            self.logger.say(text)
        else:
            self.echo(text)

    # -- running things ------------------------------------------------------------------------

    def _enter(self, argv) -> list[str]:
        return ["nsenter", f"--target={self.leader}", "--all", "--", *CLEAN_ENV, *map(str, argv)]

    def c(self, *argv, input: str | None = None, merge: bool = False, quiet: bool = False,
          timeout: float = COMMAND_TIMEOUT) -> Result:
        """Runs a command inside the container (all its namespaces) with a clean environment.
        `merge`: stderr into stdout (2>&1); otherwise stderr goes to the log (`quiet`: nowhere).
        Output as it is (no newline translation: apt's progress has carriage returns)."""
        try:
            done = subprocess.run(self._enter(argv), input=None if input is None else input.encode(),
                                  stdin=None if input is not None else subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT if merge else subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired as expired:
            self.log(f"  timed out after {timeout}s: {' '.join(map(str, argv))}")
            return Result(124, decode(expired.stdout))
        stderr = decode(done.stderr)
        if stderr and not quiet:
            self.log(stderr)
        return Result(done.returncode, decode(done.stdout), stderr)

    def cl(self, *argv, timeout: float = COMMAND_TIMEOUT, input: str | None = None) -> bool:
        """The same, with the command and its output in the log only; whether it exited 0."""
        self.log("# " + " ".join(map(str, argv)))
        result = self.c(*argv, merge=True, timeout=timeout, input=input)
        if result.stdout:
            self.log(result.stdout)
        return result.ok

    def as_user(self, user: str, *argv, merge: bool = False) -> Result:
        """Runs a command as USER inside the container, with USER's groups and no PAM session."""
        gid = self.c("id", "-g", user).out
        return self.c("setpriv", f"--reuid={user}", f"--regid={gid}", "--init-groups", "--", *argv, merge=merge)

    def prop(self, unit: str, name: str) -> str:
        return self.c("systemctl", "show", "-p", name, "--value", unit).out

    def state(self) -> dict | None:
        """`splashctl status --json`, decoded (None when it printed no state)."""
        try:
            value = json.loads(self.c("splashctl", "status", "--json").stdout)
        except ValueError:
            return None
        return value if isinstance(value, dict) else None

    def catalog_entries(self) -> int:
        """How many of the five splashd MESSAGE_IDs `journalctl --list-catalog` lists."""
        listed = self.c("journalctl", "--list-catalog", "--no-pager").stdout
        return sum(1 for line in lines(listed) if line.startswith(CATALOG_PREFIXES))

    def follow(self, seconds: float, argv, match: Callable[[dict], bool]) -> tuple[dict | None, int]:
        """Runs `timeout SECONDS ARGV` in the container, reading its JSON lines until one matches:
        returns it (or None) and the exit status. Once one matched the pipe is closed: the command
        ends at its next line (as it did behind `jq … | head -n 1`), or at its timeout."""
        process = subprocess.Popen(self._enter(["timeout", str(seconds), *argv]), stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=self.logger.file if self.logger else None)
        end = time.monotonic() + seconds + 10
        found, buffer, fd = None, b"", process.stdout.fileno()
        try:
            while found is None:
                remaining = end - time.monotonic()
                if remaining <= 0:
                    break
                readable, _, _ = select.select([fd], [], [], remaining)
                if not readable:
                    break
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                buffer += chunk
                while found is None and b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    try:
                        value = json.loads(line)
                    except ValueError:
                        continue
                    if isinstance(value, dict) and match(value):
                        found = value
        except BaseException:
            process.kill()
            process.wait()
            raise
        finally:
            process.stdout.close()
        try:
            rc = process.wait(timeout=max(1.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            rc = process.wait()
        return found, (0 if found is not None else rc)

    # -- the journal -------------------------------------------------------------------------

    def cursor(self) -> str:
        """The cursor of the journal's newest entry: later waits look only at what comes after it."""
        entries = json_objects(self.c("journalctl", "-n", "1", "-o", "json", "--no-pager").stdout)
        return jr(entries[0], "__CURSOR") if entries else ""

    def jwait(self, seconds: float, after: str, condition: Match) -> dict | None:
        """The first journal entry after the cursor for which the condition holds, waiting at
        most SECONDS for it (journalctl --follow). Matching is done here, not by journalctl field
        matches: journalctl 252 with --after-cursor and a match skips the first matching entry
        when the cursor's own entry does not match (it skips two entries, assuming the first is
        the cursor's)."""
        entry, rc = self.follow(seconds, ["journalctl", "--follow", "--lines=all", f"--after-cursor={after}", "-o", "json"],
                                condition)
        if entry is None:
            self.log(f"  jwait: exit {rc} waiting {seconds}s after {after} for {condition}")
        return entry

    def since(self, after: str, condition: Match) -> list[dict]:
        """The entries after the cursor for which the condition holds, without waiting."""
        text = self.c("journalctl", f"--after-cursor={after}", "-o", "json", "--no-pager").stdout
        return [entry for entry in json_objects(text) if condition(entry)]

    def since_messages(self, after: str, condition: Match) -> str:
        """The messages of `since`, joined with |."""
        return "|".join(entry["MESSAGE"] for entry in self.since(after, condition) if isinstance(entry.get("MESSAGE"), str))

    def wait_start_job(self, seconds: float, after: str, unit: str) -> str:
        """Waits for the next start job of UNIT after the cursor to end; its result (done, failed, …)."""
        entry = self.jwait(seconds, after, about(unit) & field("JOB_TYPE", "start") & has("JOB_RESULT"))
        return entry["JOB_RESULT"] if entry and isinstance(entry.get("JOB_RESULT"), str) else ""

    def wait_reload(self, after: str) -> str:
        """Waits for the daemon's answer to a reload; its message."""
        entry = self.jwait(15, after, daemon() & message("configuration reloaded|reload failed"))
        return jr(entry, "MESSAGE") if entry else ""

    def watch_until(self, seconds: float, step: str, status: str) -> dict | None:
        """`splashctl watch --json` until a state in which STEP has STATUS."""
        def running(state):
            return any(s.get("id") == step and s.get("status") == status for s in state.get("steps") or [])
        return self.follow(seconds, ["splashctl", "watch", "--json"], running)[0]

    # -- files -------------------------------------------------------------------------------

    def write_file(self, path: str, mode: int, content: str) -> None:
        """Writes PATH (in the container) with MODE, atomically (rename)."""
        target = self.root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(target.name + ".systest-tmp")
        temporary.write_text(content, encoding="utf-8")
        os.chmod(temporary, mode)
        os.replace(temporary, target)

    def write_from_files(self, name: str, path: str, mode: int) -> None:
        """files/NAME written to PATH in the container."""
        self.write_file(path, mode, (FILES / name).read_text(encoding="utf-8"))

    # -- setting up ----------------------------------------------------------------------------

    def host(self, *argv, timeout: float = COMMAND_TIMEOUT, input: str | None = None) -> subprocess.CompletedProcess:
        """A command on the host, its stderr in the log."""
        return subprocess.run(list(map(str, argv)), input=input, stdin=None if input is not None else subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=self.logger.file if self.logger else subprocess.DEVNULL,
                              text=True, timeout=timeout)

    def set_up(self) -> None:
        """Everything before check 0: certificates, the packages copied, the overlay, the first
        boot, the toolchain hidden, and the install."""
        for tool in TOOLS:
            if not shutil.which(tool):
                raise SetupError(f"system-test: {tool} is missing (scripts/setup.sh packages installs it)")
        if self.deb:
            if not os.path.isfile(self.deb):
                raise SetupError(f"system-test: no such package: {self.deb}")
        elif not os.access(os.path.join(self.bin_dir, "splashd"), os.X_OK):
            raise SetupError(f"system-test: {self.bin_dir} lacks splashd")

        private_mount_namespace()
        self.work = Path(tempfile.mkdtemp(prefix="splashd-systest.", dir="/tmp"))
        self.mount("-t", "tmpfs", "-o", "mode=0700,size=2g", "splashd-systest", str(self.work), target=str(self.work))
        for sub in ("upper", "ovlwork", "root", "files"):
            (self.work / sub).mkdir()
        self.logger = Log(self.work / "log", self.echo)
        self.console.touch()

        nspawn_version = subprocess.run(["systemd-nspawn", "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        what = f"package {self.deb}" if self.deb else f"binaries from {self.bin_dir}"
        self.say(f"system-test: {what}; host {os.uname().release}, {nspawn_version}")
        if not self.make_certificates():
            raise SetupError("system-test: openssl failed")
        if self.deb:  # a copy taken now: the package may be rebuilt while the test runs
            shutil.copy(self.deb, self.files)
            if self.host("dpkg-deb", "--contents", self.files / self.deb_name).returncode != 0:
                raise SetupError(f"system-test: {self.deb} is not a readable package")
            # The other binary packages of the same build (design §11), for check 18.
            self.split_version = self.host("dpkg-deb", "-f", self.deb, "Version").stdout.strip()
            directory = os.path.dirname(self.deb)
            for sibling in ("splashd-web", "splashd-otel", "splashd-kms", "splashd-themes"):
                found = sorted(p for p in os.listdir(directory)
                               if p.startswith(f"{sibling}_{self.split_version}_") and p.endswith(".deb"))
                if not found:
                    raise SetupError(f"system-test: no {sibling}_{self.split_version}_*.deb beside {self.deb}")
                shutil.copy(os.path.join(directory, found[0]), self.files)
                self.siblings.append(found[0])

        started = time.time_ns()
        self.setup_overlay()
        if not self.start():
            raise SetupError("system-test: the container did not boot", self.console_tail())
        state_first = self.c("timeout", "60", "systemctl", "is-system-running", "--wait", timeout=90).out
        analyze = lines(self.c("systemd-analyze", "time").stdout)
        self.say(f"boot: first boot {state_first} in {ms_since(started)} ms ({analyze[0] if analyze else ''})")
        if state_first != "running":
            failed = self.c("systemctl", "--failed", "--no-legend", "--plain").stdout
            self.say("boot: failed units: " + " ".join(line.split()[0] for line in lines(failed) if line.split()))
        hidden = self.c("sh", "-c", "find /opt/swift /opt/swift-packages /work -mindepth 1 | wc -l; command -v swift swiftc || true").out
        if hidden != "0":
            raise SetupError(f"system-test: the toolchain is visible in the container: {hidden}")
        self.say("boot: /opt/swift and /work are empty in the container, no swift on PATH")
        if not self.install():
            raise SetupError("system-test: install failed", lines(self.logger.path.read_text(errors="replace"))[-30:])

    def mount(self, *args, target: str) -> None:
        done = subprocess.run(["mount", *args], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise SetupError(f"system-test: mount {target} failed: {done.stderr.strip()}")
        self.mounted.append(target)

    def setup_overlay(self) -> None:
        """The host's root file system (not its other mounts) as the lower layer, a tmpfs as the
        upper one. nspawn 252 refuses --volatile=overlay for "/" ("Spawning container on root
        directory is not supported"); this upper layer also survives the container's reboot."""
        try:
            self.mount("-t", "overlay", "splashd-systest", "-o",
                       f"lowerdir=/,upperdir={self.work}/upper,workdir={self.work}/ovlwork", str(self.root), target=str(self.root))
            # nspawn keeps state under /run/systemd on the host (a plain directory here, no
            # systemd as PID 1): give it a tmpfs that only this namespace sees.
            os.makedirs("/run/systemd", exist_ok=True)
            self.mount("-t", "tmpfs", "-o", "mode=0755", "splashd-systest-run", "/run/systemd", target="/run/systemd")
        except SetupError as error:
            raise SetupError("system-test: could not set up the overlay") from error

    def make_certificates(self) -> bool:
        d = self.files
        (d / "server.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
                                      "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n")
        steps = [
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
             "-subj", "/CN=splashd system test CA", "-keyout", d / "ca.key", "-out", d / "ca.crt",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=localhost",
             "-keyout", d / "server.key", "-out", d / "server.csr"],
            ["openssl", "x509", "-req", "-in", d / "server.csr", "-CA", d / "ca.crt", "-CAkey", d / "ca.key", "-CAcreateserial",
             "-days", "2", "-out", d / "server.crt", "-extfile", d / "server.ext"],
        ]
        for argv in steps:
            done = subprocess.run(list(map(str, argv)), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=self.logger.file, timeout=60)
            if done.returncode != 0:
                return False
        return True

    def start(self) -> bool:
        """Starts nspawn on the overlay and waits for the container's manager to answer."""
        args = [f"systemd.mask={unit}" for unit in MASKS]
        # The host is cgroup v1+v2 hybrid; a Debian 12 device is unified: give the container that.
        # setpriv --pdeathsig: should this process be killed outright, nspawn (and with it the
        # container) goes too. Its own process group: a Ctrl-C reaches this process, which tears
        # the container down, not nspawn.
        with open(self.console, "ab") as console:
            self.nspawn = subprocess.Popen(
                ["setpriv", "--pdeathsig", "KILL", "--", "systemd-nspawn", "--quiet", "--boot", f"--directory={self.root}",
                 f"--machine={self.machine}", "--register=no", "--keep-unit", "--link-journal=no", "--console=read-only",
                 "--tmpfs=/opt/swift", "--tmpfs=/opt/swift-packages", "--tmpfs=/work", "--tmpfs=/tmp",
                 *LOOP_DEVICES, *args, "systemd.log_color=0"],
                stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT, process_group=0,
                env=dict(os.environ, SYSTEMD_NSPAWN_UNIFIED_HIERARCHY="1"))
        self.leader = None
        return self.find_leader() and self.wait_manager()

    def nspawn_running(self) -> bool:
        return self.nspawn is not None and self.nspawn.poll() is None

    def find_leader(self) -> bool:
        """The container's init: nspawn's child whose pid in its own namespace is 1."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if not self.nspawn_running():
                return False
            for pid in children(self.nspawn.pid):
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                except OSError:
                    continue
                if re.search(r"^NSpid:.*\s1$", status, re.M):
                    self.leader = pid
                    return True
            time.sleep(0.05)  # polling for a pid: there is no event to wait for
        return False

    def wait_manager(self) -> bool:
        """Waits until the container's systemd answers on its private socket."""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.c("systemctl", "show", "-p", "Version", "--value", quiet=True, timeout=10).ok:
                return True
            if not self.nspawn_running():
                return False
            time.sleep(0.05)  # polling for the manager's socket to appear
        return False

    def reboot(self) -> bool:
        """`systemctl reboot` in the container: nspawn exits with 133 (systemd-nspawn@.service
        restarts it with RestartForceExitStatus=133); start it again on the same overlay."""
        # The manager may go down before it answers ("Call to Reboot failed: Connection reset by peer").
        self.cl("systemctl", "reboot")
        try:
            status = self.nspawn.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.say("system-test: nspawn did not exit within 60s of the reboot")
            return False
        self.log(f"nspawn exited with {status} after the reboot")
        if status != 133:
            self.say(f"system-test: nspawn exited with {status} after reboot, want 133")
            return False
        self.leader, self.nspawn = None, None
        return self.start()

    def console_tail(self, n: int = 30) -> list[str]:
        try:
            return lines(self.console.read_text(errors="replace"))[-n:]
        except OSError:
            return []

    # -- installing ----------------------------------------------------------------------------

    def install(self) -> bool:
        (self.root / "srv/systest").mkdir(parents=True, exist_ok=True)
        if self.deb:
            shutil.copy(self.files / self.deb_name, self.root / "srv/systest")
            # The host is a container image whose /usr/sbin/policy-rc.d (exit 101) stops
            # maintainer scripts from starting services; a device has none. Removed in the overlay only.
            if os.path.lexists(self.root / "usr/sbin/policy-rc.d"):
                os.remove(self.root / "usr/sbin/policy-rc.d")
                self.say("install: removed the host image's /usr/sbin/policy-rc.d in the container (it denies starts in postinst)")
            # man-db's trigger rebuilds the host's manual index after every install and remove (a
            # second or so each, four times); the test does not read manual pages.
            if os.path.lexists(self.root / "var/lib/man-db/auto-update"):
                os.remove(self.root / "var/lib/man-db/auto-update")
                self.say("install: man-db's index updates turned off in the container (/var/lib/man-db/auto-update)")
            self.say(f"install: apt-get install ./{self.deb_name} (in the running container)")
            return self.cl("timeout", "180", "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y",
                           "--no-install-recommends", f"/srv/systest/{self.deb_name}", timeout=200)
        self.say(f"install: from {self.bin_dir} and this repo's systemd/ and plugins/ (docs/systemd.md, 'Installing in an image')")
        for source, target, mode in [
            (f"{self.bin_dir}/splashd", "usr/bin/splashd", 0o755),
            (REPO / "systemd/splashd.service", "usr/lib/systemd/system/splashd.service", 0o644),
            (REPO / "systemd/splashd.socket", "usr/lib/systemd/system/splashd.socket", 0o644),
            (REPO / "systemd/splashd-finished.service", "usr/lib/systemd/system/splashd-finished.service", 0o644),
            (REPO / "systemd/sysusers.d/splashd.conf", "usr/lib/sysusers.d/splashd.conf", 0o644),
            (REPO / "systemd/tmpfiles.d/splashd.conf", "usr/lib/tmpfiles.d/splashd.conf", 0o644),
            (REPO / "systemd/splashd.catalog", "usr/lib/systemd/catalog/splashd.catalog", 0o644),
            (REPO / "packaging/polkit/50-splashd.rules", "usr/share/polkit-1/rules.d/50-splashd.rules", 0o644),
        ]:
            if subprocess.run(["install", "-Dm" + format(mode, "o"), str(source), str(self.root / target)], timeout=60).returncode != 0:
                return False
        # splashctl is splashd called by that name (docs/systemd.md).
        os.symlink("splashd", self.root / "usr/bin/splashctl")
        plugins = self.root / "usr/lib/splashd/plugins"
        plugins.mkdir(parents=True, exist_ok=True)
        sources = sorted(str(p) for p in (REPO / "plugins").glob("*.toml")) + [str(REPO / "plugins/wait-device"), str(REPO / "plugins/wait-network")]
        if subprocess.run(["cp", "-r", *sources, str(plugins) + "/"], timeout=60).returncode != 0:
            return False
        return (self.cl("systemd-sysusers", "/usr/lib/sysusers.d/splashd.conf")
                and self.cl("systemd-tmpfiles", "--create", "/usr/lib/tmpfiles.d/splashd.conf")
                and self.cl("journalctl", "--update-catalog")
                and self.cl("systemctl", "daemon-reload")
                and self.cl("systemctl", "enable", "--now", "splashd.service"))

    def apt_get(self, *args) -> tuple[bool, str]:
        """apt-get ARGS in the container: logged, bounded, no terminal to prompt on; whether it
        exited 0, and how long it took ("N ms")."""
        started = time.time_ns()
        ok = self.cl("timeout", "60", "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-y", "--no-install-recommends", *args,
                     timeout=90)
        return ok, f"{ms_since(started)} ms"

    # -- tearing down --------------------------------------------------------------------------

    def journal_tail(self) -> str:
        return self.c("journalctl", "-u", "splashd.service", "-n", "40", "--no-pager", "-o", "short-monotonic").stdout

    def tear_down(self) -> None:
        """An orderly poweroff (SIGRTMIN+4 to the container's systemd), SIGKILL to our own nspawn
        and container init if it hangs; the log copied to --log FILE; the overlay and the tmpfs
        unmounted and the temporary directory removed."""
        if self.nspawn_running():
            if self.leader:
                kill(self.leader, signal.SIGRTMIN + 4)
            try:
                self.nspawn.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.say(f"teardown: the container did not power off within 20s; killing nspawn {self.nspawn.pid}")
                if self.leader:
                    kill(self.leader, signal.SIGKILL)
                self.nspawn.kill()
                try:
                    self.nspawn.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    pass
        if self.logger:
            self.logger.file.flush()
            if self.log_file:
                try:
                    shutil.copy(self.logger.path, self.log_file)
                except OSError:
                    pass
            self.logger.close()
            self.logger = None
        for target in reversed(self.mounted):
            subprocess.run(["umount", target], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
        self.mounted = []
        if self.work:
            try:
                self.work.rmdir()
            except OSError:
                pass


def children(pid: int) -> list[int]:
    """The processes whose parent is PID."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid …: comm may hold spaces and parentheses.
        if int(stat[stat.rindex(")") + 2:].split()[1]) == pid:
            found.append(int(entry))
    return found


def kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except OSError:
        pass
