#!/usr/bin/env bash
# Builds dist/splashd_VERSION_ARCH.deb with dpkg-deb from `scripts/install.sh` into a staging
# tree, plus what Debian adds (packaging/debian/). docs/packaging.md describes the result.
#
#   scripts/deb.sh BINARIES_DIR
#
# The version is splashdVersion (Sources/SplashCore/Protocol/ServerMessage.swift) with the Debian revision
# of the newest entry in packaging/debian/changelog, which must be for that version. The build is
# reproducible: every time stamp is SOURCE_DATE_EPOCH (default: that changelog entry's date),
# files are root-owned with modes 0755/0644, and dpkg-deb writes them sorted.
# Needs dpkg-dev (dpkg-parsechangelog, dpkg-shlibdeps).
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

binaries=${1:?usage: scripts/deb.sh BINARIES_DIR}
changelog=packaging/debian/changelog

upstream=$(sed -n 's/^public let splashdVersion = "\(.*\)"$/\1/p' Sources/SplashCore/Protocol/ServerMessage.swift)
version=$(dpkg-parsechangelog -l "$changelog" -S Version)
if [[ -z $upstream || ${version%-*} != "$upstream" ]]; then
    echo "deb: $changelog is at $version but splashdVersion is '$upstream': add a changelog entry" >&2
    exit 1
fi
maintainer=$(dpkg-parsechangelog -l "$changelog" -S Maintainer)
arch=$(dpkg --print-architecture)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l "$changelog" -S Timestamp)}

# The staging tree is laid out as debhelper's (debian/splashd, with its DEBIAN directory), where
# dpkg-shlibdeps expects the binaries it reads.
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
root=$staging/debian/splashd
control=$root/DEBIAN
install -d -m 0755 "$control"

DESTDIR=$root PREFIX=/usr SYSCONFDIR=/etc bash scripts/install.sh "$binaries"

doc=$root/usr/share/doc/splashd
install -m 0644 packaging/debian/copyright "$doc/copyright"
gzip -9nc "$changelog" >"$doc/changelog.Debian.gz"
chmod 0644 "$doc/changelog.Debian.gz"
if [[ -f packaging/debian/lintian-overrides ]]; then
    install -D -m 0644 packaging/debian/lintian-overrides "$root/usr/share/lintian/overrides/splashd"
fi

# Depends: the shared libraries the binaries still load (the Swift runtime is linked in), as
# dpkg-shlibdeps finds them from this system's shlibs and symbols files; and systemd-sysusers
# for the postinst, as dh_installsysusers adds it. (dpkg-shlibdeps notes that splashd uses no
# symbol of libz.so.1: swift-nio-extras links it besides its own copy of zlib. The dynamic
# loader still needs it, so zlib1g stays.)
printf 'Source: splashd\n\nPackage: splashd\nArchitecture: any\n' >"$staging/debian/control"
shlibs=$(cd "$staging" && dpkg-shlibdeps -O -e"debian/splashd/usr/bin/splashd" -e"debian/splashd/usr/bin/splashctl" -e"debian/splashd/usr/bin/splashd-web" -e"debian/splashd/usr/bin/splashd-otel" \
    | sed -n 's/^shlibs:Depends=//p')
[[ -n $shlibs ]] || { echo "deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
depends="$shlibs, systemd | systemd-standalone-sysusers | systemd-sysusers"

# Installed-Size as dpkg-gencontrol counts it: each file's size in KiB rounded up, 1 per
# directory or symlink, DEBIAN left out.
installed_size=$(cd "$root" && find . -mindepth 1 -path ./DEBIAN -prune -o \( -type f -printf '%s\n' -o -printf '1024\n' \) \
    | awk '{ total += int(($1 + 1023) / 1024) } END { print total }')

sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
    -e "s/@INSTALLED_SIZE@/$installed_size/" -e "s/@DEPENDS@/$depends/" \
    packaging/debian/control.in >"$control/control"
for script in postinst prerm postrm; do
    install -m 0755 "packaging/debian/$script" "$control/$script"
done
# Every file under /etc is a configuration file: dpkg keeps the operator's changes.
(cd "$root" && find etc -type f | LC_ALL=C sort | sed 's|^|/|') >"$control/conffiles"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort \
    | xargs -d '\n' md5sum) >"$control/md5sums"
chmod 0644 "$control/control" "$control/conffiles" "$control/md5sums"

# Modes 0755 for directories and executables, 0644 for everything else; one time stamp.
find "$root" -type d -exec chmod 0755 {} +
find "$root" -type f -perm /111 -exec chmod 0755 {} +
find "$root" -type f ! -perm /111 -exec chmod 0644 {} +
find "$root" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +

mkdir -p dist
out=dist/splashd_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "$out"
