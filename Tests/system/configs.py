"""The configurations the system tests give the daemon (/etc/splashd/splashd.toml), one function
each. The plugins, units and programs they write into the container are files in files/."""

from __future__ import annotations


def splash(timeout: str, min_display: str = "0ms", exit_animation: str = "0ms") -> str:
    """The [splash] table: launches finish by themselves unless a longer min_display or
    exit_animation holds them (the boot launch's, which only the renderer's `dismissed` ends)."""
    return f'[splash]\nmin_display = "{min_display}"\ntimeout = "{timeout}"\nexit_animation = "{exit_animation}"\n'


def common_steps(port: int | str | None = None) -> str:
    """The embedded default's four built-ins, with control_group. With PORT, auth-refresh and
    config-fetch talk to the test's HTTPS server on 127.0.0.1:PORT (check 8)."""
    text = """
[socket]
control_group = "splash"

[[step]]
id = "auth"
plugin = "auth-refresh"
label = "Signing in"
"""
    if port:
        text += f'[step.options]\ntoken_url = "https://127.0.0.1:{port}/token"\nclient_id = "splashd-systest"\n'
    text += """
[[step]]
id = "config"
plugin = "config-fetch"
label = "Loading configuration"
"""
    if port:
        text += f'[step.options]\nurl = "https://127.0.0.1:{port}/config.json"\n'
    text += """
[[step]]
id = "counter"
plugin = "launch-counter"
after = ["auth"]
critical = false
[step.options]
count_when = "always"

[[step]]
id = "quick"
plugin = "quick-action"
critical = false
"""
    return text


def boot() -> str:
    """The boot launch: the embedded default's four built-ins plus a signal step, and an exit
    animation long enough that only the renderer's `dismissed` ends it (the test is the renderer)."""
    return """# splashd system test, boot: the test completes first-frame and sends dismissed.
""" + splash(min_display="200ms", timeout="5m", exit_animation="5m") + """""" + common_steps() + """
[[step]]
id = "first-frame"
plugin = "signal"
label = "Starting the app"
"""


def auto() -> str:
    """After the reload: launches finish by themselves; a new step shows the reload took effect."""
    return """# splashd system test, after reload: launches finish by themselves.
""" + splash(timeout="1m") + """""" + common_steps() + """
[[step]]
id = "reloaded"
plugin = "config-fetch"
critical = false
label = "Step added by the reload"
[step.options]
cache = "reloaded.json"
"""


def plugins(port: int | str) -> str:
    """Check 8: HTTPS for auth-refresh and config-fetch, an operator plugin, the shipped wait-device."""
    return """# splashd system test, plugins and HTTPS.
""" + splash(timeout="1m") + """""" + common_steps(port) + """
[[step]]
id = "probe"
plugin = "systest-probe"
after = ["config"]
retry = { attempts = 2, backoff = "100ms" }
label = "Probing the sandbox"
[step.options]
greeting = "hello"

[[step]]
id = "display"
plugin = "wait-device"
label = "Waiting for the display"
[step.options]
path = "/run/systest-display"
"""


def sleeper() -> str:
    """Check 13: a plugin that is running (with a process that left its group) when the daemon stops."""
    return """# splashd system test, stop: a plugin is running, one of its processes left its group.
""" + splash(timeout="5m") + """
[socket]
control_group = "splash"

[[step]]
id = "sleeper"
plugin = "systest-sleeper"
timeout = "5m"
label = "Sleeping"
"""


def app(first_frame: bool = True) -> str:
    """Checks 10 and 11: the app's life (design §14), [app] on systest-kiosk.service; without
    FIRST_FRAME, no signal step: the launch ends once the app's start is queued (the docs' second
    [app] example)."""
    text = """# splashd system test, the app's life.
""" + splash(timeout="1m") + """
[socket]
control_group = "splash"

[app]
unit = "systest-kiosk.service"
# Three missed heartbeats are a hang: 9 s without the app's alive (it sends one a second), a
# margin no busy machine's stall reaches. (At 1 s, a 3 s stall of the app was a false hang.)
heartbeat = "3s"
max_restarts = 5
restart_window = "5m"

[[step]]
id = "quick-action"
plugin = "quick-action"
critical = false
options = { scheme = "kiosk", routes = ["orders/*"] }
"""
    if first_frame:
        text += """
[[step]]
id = "first-frame"
plugin = "signal"
"""
    return text
