"""The colour grammar themes may use is CSS's: every line of css_colors.tsv says what Chromium's
CSS.supports('color', …) answers, and ThemeColorGrammarTests (Swift) holds the theme loader to
it (what the loader accepts, Chromium supports: `rgb(5., 0, 0)` and `rgb(100%, 0, 0)` passed the
loader and made the page's background invalid while splashd-kms drew red)."""

from __future__ import annotations

import json
import os

from test_renderer import SIGNAL, browser, open_page  # noqa: F401 (browser is a fixture)

HERE = os.path.dirname(__file__)


def corpus():
    with open(os.path.join(HERE, "css_colors.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("# ") or not line.strip():
                continue
            text, supported = line.rstrip("\n").split("\t")
            yield text, supported == "1"


def test_the_corpus_is_what_chromium_says(browser, stack):
    page = open_page(browser, stack(SIGNAL))
    rows = list(corpus())
    answers = json.loads(page.evaluate(f"JSON.stringify({json.dumps([t for t, _ in rows])}.map(c => CSS.supports('color', c)))"))
    wrong = [(text, supported, answer) for (text, supported), answer in zip(rows, answers) if supported != answer]
    assert wrong == [], wrong
    page.close()
