#!/usr/bin/env bash
# Regenerates the man pages of splashd, splashctl, splashd-web, splashd-otel and splashd-kms (`make man`) with
# swift-argument-parser's generate-manual plugin, which builds the package (debug) and reads each
# command line through `--experimental-dump-help`. Run it after changing an option, a subcommand
# or a help text: PackagingTests fail while a page is out of date.
#
# Each page records the SHA-256 of the dump it was made from, in a comment on its second line;
# the test compares that with the dump of the binaries it runs. A page whose dump has not
# changed is left as it is, date included.
set -euo pipefail
cd "$(dirname "$0")/.."
export SWIFT_BACKTRACE=enable=no
date=${MAN_DATE:-$(date -u +%F)}

# The plugin passes the same arguments to every executable: one run per section.
for page in splashd.8 splashctl.1 splashd-web.1 splashd-otel.1 splashd-kms.1; do
    tool=${page%.*}
    section=${page##*.}
    swift package --disable-sandbox generate-manual --configuration debug --section "$section" --date "$date" >&2
    generated=$(find .build/plugins -path '*GenerateManual*' -name "$page" -print -quit)
    [[ -n $generated ]] || { echo "man: the plugin wrote no $page under .build/plugins" >&2; exit 1; }
    binary=$(swift build --configuration debug --show-bin-path)/$tool
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
