"""What the tests of Tests/browser share: `stack`, which starts splashd and splashd-web (stack.py)
and stops every one it started when the test ends."""

from __future__ import annotations

import pytest

from stack import Stack


@pytest.fixture
def stack():
    made = []

    def make(*args, **kwargs):
        s = Stack(*args, **kwargs)
        made.append(s)
        return s

    yield make
    for s in made:
        s.close()
