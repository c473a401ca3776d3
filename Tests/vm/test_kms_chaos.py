"""splashd-kms under a daemon that floods it (chaos_daemon.py, in the guest): the largest state
splashd sends, 10,000 states a second, a line over the protocol's bound, then the error view with
every text at its bound. The renderer keeps up (the last state is what the display shows), its
memory stays within a stated bound, and it never exits: it keeps its frame and connects again."""

import os
import re

from processes import BIN, ROOT
from test_kms import RED, THEME, Screen, pytestmark, until, wait_screen  # noqa: F401 (pytestmark skips without QEMU)
import vm

CHAOS = os.path.join(ROOT, "Tests/vm/chaos_daemon.py")
# What the flood may add to the renderer's peak resident memory: it keeps one state, not the
# ones it skipped, and a line is bounded (64 KiB).
GROWTH_BOUND_KB = 16 * 1024


def memory(machine, field, pid_file):
    """`field` (VmRSS, VmHWM) of the guest's splashd-kms whose pid is in `pid_file`, in kB."""
    assert machine.run(f"grep {field} /proc/$(cat {pid_file})/status > /dev/ttyS0") == 0
    found = re.findall(rf"{field}:\s+(\d+) kB", machine.console_text())
    assert found, machine.console_text()[-2000:]
    return int(found[-1])


def test_a_flood_an_oversized_line_and_texts_at_their_bounds():
    with vm.VM() as machine:
        assert machine.run(f"mkdir -p /run/t && /usr/bin/python3 {CHAOS} /run/t/chaos.sock 10000 20000 > /run/t/chaos.log 2>&1 &") == 0
        until(machine, "[ -S /run/t/chaos.sock ]", "the flooding daemon listening")
        # Its first frame first (the theme's background, before any state), and its memory then.
        assert machine.run(f"{BIN}/splashd-kms --socket /run/t/none.sock --theme {THEME} >/run/t/kms.log 2>&1 & echo $! > /run/t/first.pid") == 0
        until(machine, "grep -q 'first frame on' /run/t/kms.log", "the first frame")
        before = memory(machine, "VmRSS", "/run/t/first.pid")
        # Now the flood: the renderer stops and follows the flooding daemon's socket.
        assert machine.run("kill -9 $(cat /run/t/first.pid)") == 0
        until(machine, "! kill -0 $(cat /run/t/first.pid) 2>/dev/null", "the first renderer gone")
        assert machine.run(f"{BIN}/splashd-kms --socket /run/t/chaos.sock --theme {THEME} >/run/t/kms.log 2>&1 & echo $! > /run/t/kms.pid") == 0
        until(machine, "grep -q reconnected /run/t/chaos.log", "the renderer connecting again after the oversized line")
        screen = wait_screen(machine, 0, lambda s: s.count(0, 0, s.width, s.height, RED, 20) > 200, "the error view of the last state")
        peak = memory(machine, "VmHWM", "/run/t/kms.pid")
        assert machine.run("cat /run/t/chaos.log /run/t/kms.log > /dev/ttyS0") == 0
        said = machine.console_text()
        flooded = re.findall(r"flooded (\d+) in ([\d.]+) s", said)
        assert flooded and int(flooded[-1][0]) == 20000, said[-3000:]
        assert "lost splashd: unexpected reply from splashd: a line longer than 65536 bytes" in said, said[-3000:]
        assert machine.run("kill -0 $(cat /run/t/kms.pid)") == 0, "the renderer never exited"
        print(f"chaos: {flooded[-1][0]} states in {flooded[-1][1]} s; RSS before {before} kB, peak {peak} kB")
        assert peak - before <= GROWTH_BOUND_KB, (before, peak)
        assert screen.width > 0
