"""The page's smoothness (design §10): frames dropped during the indicator, the fade, each entry and
the reveal, at 1920x1080 in Debian's Chromium, against the real splashd and splashd-web.

Not a test (no thresholds): `make bench-renderer` prints one line per animation and, with
$SPLASHD_BENCH_RESULTS, appends them as JSON. A frame is counted dropped when the gap between two
`requestAnimationFrame` callbacks during the animation is more than 1.5 frames of the display's
rate (60 Hz here): a gap of n frames drops n - 1.
"""

from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "harness"))
sys.path.insert(0, os.path.dirname(__file__))

from cdp import Browser  # noqa: E402
from stack import AppServer, Stack  # noqa: E402

WIDTH, HEIGHT, FRAME_MS = 1920, 1080, 1000 / 60
GROUP = __import__("grp").getgrgid(os.getgid()).gr_name

RECORDER = """(() => { window.__frames = []; const tick = (t) => { window.__frames.push(t); if (!window.__stop) requestAnimationFrame(tick); };
  requestAnimationFrame(tick); })()"""
STOP = "(() => { window.__stop = true; return JSON.stringify(window.__frames); })()"


def config(min_display="0ms", slow_after="1s"):
    return f"""
[splash]
min_display = "{min_display}"
slow_after = "{slow_after}"
timeout = "60s"
exit_animation = "60s"
[socket]
control_group = "{GROUP}"
[[step]]
id = "first-frame"
plugin = "signal"
"""


def dropped(frames: list[float]) -> tuple[int, int, float]:
    """(frames drawn, frames dropped, longest gap in ms) over the recorded callbacks."""
    gaps = [b - a for a, b in zip(frames, frames[1:])]
    lost = sum(max(0, round(g / FRAME_MS) - 1) for g in gaps if g > 1.5 * FRAME_MS)
    return len(frames), lost, max(gaps, default=0)


def report(name: str, frames: list[float], results: list[dict]):
    drawn, lost, worst = dropped(frames)
    line = {"animation": name, "frames": drawn, "dropped": lost, "longest_gap_ms": round(worst, 1)}
    results.append(line)
    print(f"{name:28s} {drawn:5d} frames  {lost:3d} dropped  longest gap {worst:6.1f} ms")


def page_for(browser, s):
    page = browser.new_page()
    page.set_viewport(WIDTH, HEIGHT)
    page.navigate(s.url)
    page.wait_for("document.documentElement.dataset.bridge === 'connected' && document.documentElement.dataset.launch")
    page.wait_for("document.getAnimations().filter(a => a.effect.getTiming().iterations !== Infinity && a.playState === 'running').length === 0")
    return page


def exit_run(browser, name, theme, results):
    """One launch whose exit plays `name`: records from `complete` until `dismissed` ended it."""
    app = AppServer()
    s = Stack(config(), theme=theme(app))
    try:
        page = page_for(browser, s)
        page.wait_for("document.documentElement.dataset.app === 'painted' || !document.getElementById('app').src", 20)
        page.evaluate(RECORDER)
        s.ctl("complete", "first-frame")
        s.watcher.phase("finished", 20)
        page.wait_for("document.getElementById('splash').hidden || document.getAnimations().every(a => a.playState !== 'running' || a.effect.getTiming().iterations === Infinity)")
        report(name, json.loads(page.evaluate(STOP)), results)
        page.close()
    finally:
        s.close()
        app.close()


def main():
    results: list[dict] = []
    with Browser() as browser:
        # The indicator: three dots pulsing, for 3 s once the launch is slow.
        s = Stack(config(min_display="0ms", slow_after="200ms"))
        try:
            page = page_for(browser, s)
            page.wait_for("document.documentElement.dataset.slow === 'true'", 20)
            page.evaluate(RECORDER)
            time.sleep(3)  # the measurement window, not a wait for an event
            report("indicator (dots, 3 s)", json.loads(page.evaluate(STOP)), results)
            page.close()
        finally:
            s.close()
        destinations = lambda app, extra="": {"append": f'[destinations]\nhome = "{app.url}/home"\n' + extra}  # noqa: E731
        exit_run(browser, "fade (no app)", lambda app: "reference", results)
        exit_run(browser, "entry: home crossfade", lambda app: destinations(app), results)
        exit_run(browser, "entry: slide", lambda app: destinations(app, '[transitions]\nhome = "slide"\n'), results)
        exit_run(browser, "entry: fade", lambda app: destinations(app, '[transitions]\nhome = "fade"\n'), results)
        exit_run(browser, "exit: reveal", lambda app: dict(destinations(app), base="reference-reveal"), results)
    path = os.environ.get("SPLASHD_BENCH_RESULTS")
    if path:
        with open(path, "a") as f:
            for line in results:
                f.write(json.dumps(line) + "\n")


if __name__ == "__main__":
    main()
