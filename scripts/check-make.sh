#!/usr/bin/env bash
# The make targets the docs name, checked in seconds (README's test command runs it first; most
# targets, the benchmarks, the sanitizers and the hour-long fuzzing, are too long for it):
# - every target named as `make TARGET` in README.md, docs/, the Makefile and scripts/ exists;
# - every target expands with `make -n` on a clean clone (its prerequisites and recursive makes);
# - every script a target runs (scripts/*.sh, Tests/**/*.py) exists and parses (bash -n,
#   py_compile), and every script that documents --help answers it.
# What it cannot prove is what a target does at length: `make sanitize` and `make fuzz` run in
# CI in their short forms (the fuzz stage; docs/benchmarks.md, "The test command").
set -euo pipefail
cd "$(dirname "$0")/.."
failed=0
fail() { echo "check-make: $*" >&2; failed=1; }

phony=" $(sed -n 's/^\.PHONY: //p' Makefile) "
defined=" $(sed -n 's/^\([a-z][a-z0-9-]*\):.*/\1/p' Makefile | tr '\n' ' ') "
for target in $(grep -rIhoE '`make [a-z][a-z0-9-]*' README.md docs Makefile scripts | sed 's/`make //' | sort -u); do
    [[ $defined == *" $target "* ]] || fail "\`make $target\` is named in the docs but the Makefile has no such target"
done
scripts=()
for target in $phony; do
    [[ $defined == *" $target "* ]] || { fail "$target is .PHONY but has no rule"; continue; }
    # (No recursion into the arm64 parts' own checks: they need the toolchain's cache.)
    if ! out=$(make -n --no-print-directory "$target" ARM64_CACHE=/nonexistent 2>&1); then
        fail "make -n $target: $(tail -3 <<<"$out")"
        continue
    fi
    while read -r path; do scripts+=("$path"); done < <(grep -oE '(scripts|Tests)/[A-Za-z0-9_/.-]+\.(sh|py)' <<<"$out" || true)
done
checked=0
for path in $(printf '%s\n' "${scripts[@]}" | sort -u); do
    checked=$((checked + 1))
    if [[ ! -f $path ]]; then fail "a target runs $path, which does not exist"; continue; fi
    case $path in
        *.sh)
            bash -n "$path" || fail "$path does not parse"
            if grep -q -- '--help' "$path" && grep -qE '^ *-h\|--help\)' "$path"; then
                bash "$path" --help >/dev/null 2>&1 || fail "$path --help failed"
            fi ;;
        *.py) python3 -c "import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])" "$path" || fail "$path does not compile" ;;
    esac
done
targets=$(wc -w <<<"$phony")
if [[ $failed -eq 0 ]]; then
    echo "check-make: $targets targets expand, $checked scripts they run parse" >&2
fi
exit "$failed"
