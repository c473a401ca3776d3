#!/usr/bin/env bash
# Regenerates the man pages of splashd, splashctl, splashd-web, splashd-otel and splashd-kms (`make man`) with
# swift-argument-parser's generate-manual tool, which reads each command line through
# `--experimental-dump-help`. The renderers write that dump from their own `CommandSpec`
# (SplashCommandLine), the others through swift-argument-parser; the tool is run on each binary
# directly, as the package's generate-manual plugin skips executables that do not link
# ArgumentParser. Run it after changing an option, a subcommand or a help text: PackagingTests
# fail while a page is out of date.
#
# Each page records the SHA-256 of the dump it was made from, in a comment on its second line;
# the test compares that with the dump of the binaries it runs. A page whose dump has not
# changed is left as it is, date included.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
date=${MAN_DATE:-$(date -u +%F)}

tools=(splashd splashctl splashd-web splashd-otel splashd-kms)
swift build --configuration debug --product generate-manual >&2
for tool in "${tools[@]}"; do swift build --configuration debug --product "$tool" >&2; done
bin=$(swift build --configuration debug --show-bin-path)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for page in splashd.8 splashctl.1 splashd-web.1 splashd-otel.1 splashd-kms.1; do
    tool=${page%.*}
    section=${page##*.}
    binary=$bin/$tool
    "$bin/generate-manual" "$binary" --section "$section" --date "$date" --output-directory "$out" >&2
    generated=$out/$page
    [[ -f $generated ]] || { echo "man: generate-manual wrote no $page" >&2; exit 1; }
    hash=$("$binary" --experimental-dump-help | sha256sum | cut -d' ' -f1)
    if [[ -f man/$page ]] && grep -q "sha256 $hash" "man/$page"; then
        echo "man/$page: up to date"
        continue
    fi
    {
        head -n 1 "$generated"
        printf '.\\" Made by `make man` from `%s --experimental-dump-help` (sha256 %s).\n' "$tool" "$hash"
        tail -n +2 "$generated"
        [[ -z $(tail -c 1 "$generated") ]] || echo # the plugin ends the page without a newline
    } >"man/$page"
    echo "man/$page: regenerated"
done
