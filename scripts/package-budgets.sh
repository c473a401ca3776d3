#!/usr/bin/env bash
# Holds each package to its budget: bytes to download and KiB installed (dpkg's Installed-Size).
# The same budgets for every architecture. docs/benchmarks.md, "Package sizes", says why each is
# what it is; the renderers' are set so that FoundationEssentials (1.35 MB a package, which
# swift-argument-parser brought them until they parsed their own command lines) turns this red,
# and ICU's data (10 MB, which one `import Foundation` in a module they link brings) all the more.
#
#   scripts/package-budgets.sh DEB...
set -euo pipefail

declare -A download=(
    [splashd]=8000000 [splashd-web]=3800000 [splashd-kms]=3000000 [splashd-otel]=19000000 [splashd-themes]=100000
)
declare -A installed=(
    [splashd]=25000 [splashd-web]=12500 [splashd-kms]=10000 [splashd-otel]=68000 [splashd-themes]=200
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
