"""The arm64 test suite's results against its named exceptions (scripts/arm64/suite.sh).

    python3 scripts/arm64/suite_report.py EXCEPTIONS.txt RUN...

Each RUN is the path of a run's results without its extension: RUN.xml (Swift Testing's
--xunit-output) and RUN.txt (its output, shown when the run wrote no results). EXCEPTIONS.txt names the tests that may fail on
arm64, a line each: a pattern of `Module.Suite/test()` (fnmatch's `*` allowed), spaces, and the
measured reason. Exit 0 when every failure is an exception, 1 otherwise (each failure not named
is printed with its message); exceptions that passed are listed, so the file can shrink."""

import fnmatch
import sys
import xml.etree.ElementTree as ElementTree


def exceptions(path):
    """(pattern, reason) of each line that is not blank or a comment."""
    found = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            pattern, _, reason = line.partition(" ")
            if not reason.strip():
                sys.exit(f"{path}:{number}: an exception without its reason: {line}")
            found.append((pattern, reason.strip()))
    return found


def main(exceptions_path, *runs):
    named = exceptions(exceptions_path)
    cases = []
    for run in runs:
        try:
            cases += ElementTree.parse(f"{run}.xml").iter("testcase")
        except (OSError, ElementTree.ParseError) as error:
            with open(f"{run}.txt", errors="replace") as f:
                tail = f.read()[-6000:]
            print(f"arm64: {run} wrote no results ({error}); it said:\n{tail}")
            return 1
    passed, skipped, failed = [], [], []
    for case in cases:
        test = f"{case.get('classname')}/{case.get('name')}"
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        if failure is not None:
            failed.append((test, failure.get("message") or (failure.text or "").strip()))
        elif case.find("skipped") is not None:
            skipped.append(test)
        else:
            passed.append(test)

    def reason(test):
        return next((why for pattern, why in named if fnmatch.fnmatchcase(test, pattern)), None)

    expected = [(test, reason(test)) for test, _ in failed if reason(test)]
    unexpected = [(test, message) for test, message in failed if not reason(test)]
    print(f"arm64: {len(passed) + len(skipped) + len(failed)} tests: {len(passed)} passed, {len(skipped)} skipped, "
          f"{len(failed)} failed ({len(expected)} of them named exceptions, {len(unexpected)} not)")
    for test, why in expected:
        print(f"  exception: {test}: {why}")
    used = {pattern for pattern, _ in named if any(fnmatch.fnmatchcase(test, pattern) for test, _ in failed)}
    for pattern, _ in named:
        if pattern not in used:
            print(f"  exception that did not fail (it may go): {pattern}")
    for test, message in unexpected:
        print(f"  FAILED: {test}: {message[:2000]}")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
