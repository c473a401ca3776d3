"""The page over the app's life (design §14): the real splashd, whose [app] watch talks sd-bus to a
fake systemd on a private D-Bus (Tests/harness/fake_systemd.py), the real splashd-web and Chromium.

The splash comes back over the app when the app's unit stops by itself, and a crash loop is an
error view whose only way out is Retry, which restarts the app."""

from __future__ import annotations

import json

from app_bus import AppBus
from stack import AppServer
from test_renderer import browser, config, open_page, save  # noqa: F401 (browser is a fixture)

UNIT = "kiosk-app.service"


def app_config(max_restarts=5):
    return config(
        '[[step]]\nid = "first-frame"\nplugin = "signal"\n', min_display="0ms", exit_animation="10s", slow_after="10m"
    ) + f'\n[app]\nunit = "{UNIT}"\nmax_restarts = {max_restarts}\nrestart_window = "5m"\n'


def theme_for(app):
    return {"prepend": 'app_step = "first-frame"\n', "append": f'[destinations]\nhome = "{app.url}/home"\n'}


RECORD_RENDERS = """window.__renders = [];
new MutationObserver(() => { const r = document.documentElement.dataset, s = document.getElementById('splash');
  window.__renders.push({launch: r.launch, phase: r.phase, reason: r.reason, hidden: s.hidden, opacity: getComputedStyle(s).opacity});
}).observe(document.documentElement, {attributes: true, attributeFilter: ['data-seq']});"""


def first_render_of(page, launch):
    """How the page looked when it rendered `launch`'s first state (recorded by RECORD_RENDERS)."""
    renders = json.loads(page.evaluate("JSON.stringify(window.__renders)"))
    return next((r for r in renders if r["launch"] == launch), renders)


def test_the_splash_comes_back_over_the_app_when_it_exits(browser, stack):
    app, bus = AppServer(), AppBus(UNIT)
    try:
        s = stack(app_config(), theme=theme_for(app), system_bus=bus.address)
        page = open_page(browser, s)
        bus.wait_call(f"StartUnit {UNIT}")
        _, done = s.watcher.phase("finished", 30)
        assert done["reason"] == "boot"
        page.wait_for("document.getElementById('splash').hidden")
        page.evaluate(RECORD_RENDERS)
        bus.send("fail")
        _, back = s.watcher.wait(lambda st: st["launch"] != done["launch"], 10, "a launch after the app failed")
        assert back["reason"] == "app-exited" and back["phase"] == "loading", back
        page.wait_for(f"document.documentElement.dataset.launch === '{back['launch']}'")
        view = first_render_of(page, back["launch"])
        assert view == {"launch": back["launch"], "phase": "loading", "reason": "app-exited", "hidden": False, "opacity": "1"}, view
        bus.wait_call(f"RestartUnit {UNIT}")
        # The app's page is loaded again beneath the splash, paints, and the launch ends as any other.
        _, again = s.watcher.wait(lambda st: st["launch"] == back["launch"] and st["phase"] == "finished", 30, "finished")
        assert again["reason"] == "app-exited"
        page.wait_for("document.getElementById('splash').hidden")
        page.close()
    finally:
        bus.close()
        app.close()


def test_a_crash_loop_is_an_error_view_with_retry_only(browser, stack):
    app, bus = AppServer(), AppBus(UNIT)
    try:
        s = stack(app_config(max_restarts=1), theme=theme_for(app), system_bus=bus.address)
        page = open_page(browser, s)
        _, first = s.watcher.phase("finished", 30)
        bus.send("exit")
        _, second = s.watcher.wait(lambda st: st["launch"] != first["launch"] and st["phase"] == "finished", 30, "recovered")
        bus.send("fail")
        _, loop = s.watcher.wait(lambda st: st["launch"] not in (first["launch"], second["launch"]), 10, "the crash loop")
        assert loop["phase"] == "error" and loop["error"]["code"] == "app-crash-loop", loop
        page.wait_for(f"document.documentElement.dataset.launch === '{loop['launch']}' && !document.getElementById('error').hidden")
        view = json.loads(page.evaluate("""JSON.stringify({
          splash: !document.getElementById('splash').hidden, message: document.getElementById('error-message').textContent,
          retry: !document.getElementById('retry').hidden, offline: !document.getElementById('offline').hidden,
          focused: document.activeElement.id, reason: document.documentElement.dataset.reason})"""))
        assert view == {"splash": True, "message": "The app keeps stopping", "retry": True, "offline": False,
                        "focused": "retry", "reason": "app-exited"}, view
        save(page, "reference-crash-loop")
        restarts = bus.calls.count(f"RestartUnit {UNIT}")
        assert restarts == 1, bus.calls
        page.click("#retry")
        s.watcher.wait(lambda st: st["launch"] == loop["launch"] and st["phase"] == "loading", 10, "loading after Retry")
        bus.wait_call(f"RestartUnit {UNIT}", count=2)
        s.watcher.wait(lambda st: st["launch"] == loop["launch"] and st["phase"] == "finished", 30, "finished after Retry")
        page.close()
    finally:
        bus.close()
        app.close()
