#!/usr/bin/env bash
# Holds each package to its budget: bytes to download and KiB installed (dpkg's Installed-Size).
# The same budgets for every architecture. docs/benchmarks.md, "Package sizes", says why each is
# what it is; the renderers' are set so that ICU's data (10 MB a package, which one
# `import Foundation` in a module they link brings) turns this red.
#
#   scripts/package-budgets.sh DEB...
set -euo pipefail

declare -A download=(
    [splashd]=8000000 [splashd-web]=5000000 [splashd-kms]=4500000 [splashd-otel]=19000000 [splashd-themes]=100000
)
declare -A installed=(
    [splashd]=25000 [splashd-web]=17000 [splashd-kms]=15000 [splashd-otel]=68000 [splashd-themes]=200
)
status=0
for deb in "$@"; do
    package=$(dpkg-deb -f "$deb" Package)
    [[ -n ${download[$package]:-} ]] || { echo "budgets: $deb: no budget for the package $package" >&2; status=1; continue; }
    bytes=$(stat -c %s "$deb")
    kib=$(dpkg-deb -f "$deb" Installed-Size)
    verdict=met
    if [[ $bytes -gt ${download[$package]} || $kib -gt ${installed[$package]} ]]; then
        verdict="OVER BUDGET"
        status=1
    fi
    printf 'budgets: %s: %s bytes to download, %s KiB installed (budget %s bytes, %s KiB): %s\n' \
        "$(basename "$deb")" "$bytes" "$kib" "${download[$package]}" "${installed[$package]}" "$verdict"
done
exit $status
