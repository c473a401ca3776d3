#!/usr/bin/env python3
"""Opens the splash page in headless Chromium and saves a screenshot at each moment of the next
launch: loading, dismissing (the exit fade) and finished. Used by scripts/demo.sh.

    demo-screens.py URL OUT_DIR READY_FILE
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Tests", "browser"))
from cdp import Browser  # noqa: E402

url, out, ready = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
with Browser(width=1280, height=800) as browser:
    page = browser.new_page()
    page.navigate(url)
    page.wait_for("document.documentElement.dataset.bridge === 'connected'")
    start = page.evaluate("document.documentElement.dataset.launch")
    open(ready, "w").close()  # the demo relaunches now
    page.wait_for(f"document.documentElement.dataset.launch !== '{start}'", timeout=60)
    time.sleep(0.7)  # the logo and the name have settled in
    with open(os.path.join(out, "1-loading.png"), "wb") as f:
        f.write(page.screenshot_png())
    page.wait_for("['dismissing', 'finished'].includes(document.documentElement.dataset.phase)", timeout=60, interval=0.01)
    with open(os.path.join(out, "2-dismissing.png"), "wb") as f:
        f.write(page.screenshot_png())
    page.wait_for("document.documentElement.dataset.phase === 'finished'", timeout=60)
    time.sleep(0.4)
    with open(os.path.join(out, "3-finished.png"), "wb") as f:
        f.write(page.screenshot_png())
for name in sorted(os.listdir(out)):
    print(os.path.join(out, name))
