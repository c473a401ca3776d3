#!/usr/bin/env bash
# Builds splashd's binary packages with dpkg-deb (design §11: one source, a package per part, so a
# device installs only what it runs) from `scripts/install.sh` into a staging tree, plus what Debian
# adds (packaging/debian/). docs/packaging.md describes the result.
#
#   scripts/deb.sh BINARIES_DIR
#
# For another architecture (arm64: `make deb-arm64`, docs/packaging.md, "arm64"): DEB_ARCH names
# it, DEB_OUT is the directory to write to (default dist), TARGET_ROOT is a Debian system of that
# architecture (scripts/arm64/prepare.sh's), in which dpkg-shlibdeps reads the packages'
# dependencies, under qemu-user; TARGET_RUN runs the binaries for their shell completions, and
# STRIP is a strip that knows the architecture (scripts/install.sh).
#
# Writes dist/splashd_VERSION_ARCH.deb (the daemon, splashctl, units, plugins, docs),
# dist/splashd-web_VERSION_ARCH.deb (the browser renderer), dist/splashd-otel_VERSION_ARCH.deb
# (fleet telemetry), dist/splashd-kms_VERSION_ARCH.deb (the native renderer) and
# dist/splashd-themes_VERSION_all.deb (the themes renderers share), and
# prints their paths.
#
# The version is splashdVersion (Sources/SplashProtocol/ServerMessage.swift) with the Debian revision
# of the newest entry in packaging/debian/changelog, which must be for that version. The build is
# reproducible: every time stamp is SOURCE_DATE_EPOCH (default: that changelog entry's date),
# files are root-owned with modes 0755/0644, and dpkg-deb writes them sorted.
# Needs dpkg-dev (dpkg-parsechangelog, dpkg-shlibdeps).
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

binaries=${1:?usage: scripts/deb.sh BINARIES_DIR}
changelog=packaging/debian/changelog

upstream=$(sed -n 's/^public let splashdVersion = "\(.*\)"$/\1/p' Sources/SplashProtocol/ServerMessage.swift)
version=$(dpkg-parsechangelog -l "$changelog" -S Version)
if [[ -z $upstream || ${version%-*} != "$upstream" ]]; then
    echo "deb: $changelog is at $version but splashdVersion is '$upstream': add a changelog entry" >&2
    exit 1
fi
maintainer=$(dpkg-parsechangelog -l "$changelog" -S Maintainer)
arch=${DEB_ARCH:-$(dpkg --print-architecture)}
out_dir=${DEB_OUT:-dist}
target_root=${TARGET_ROOT:-}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l "$changelog" -S Timestamp)}

# The staging tree is laid out as debhelper's (debian/PACKAGE, each with its DEBIAN directory),
# where dpkg-shlibdeps expects the binaries it reads. Everything is installed once, then each
# package takes its files; splashd keeps the rest.
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
all=$staging/all
DESTDIR=$all PREFIX=/usr SYSCONFDIR=/etc bash scripts/install.sh "$binaries"

packages=(splashd splashd-web splashd-otel splashd-kms splashd-themes)
# Only this build's packages in dist/: the tests take dist/splashd_*.deb and its siblings.
mkdir -p "$out_dir"
rm -f "$out_dir"/*.deb
completions() { # TOOL: its bash, zsh and fish completions
    echo "usr/share/bash-completion/completions/$1 usr/share/zsh/vendor-completions/_$1 usr/share/fish/vendor_completions.d/$1.fish"
}
pictures() { # PATTERN: the docs' pictures of a renderer, which its package brings beside the docs
    (cd "$all" && ls usr/share/doc/splashd/$1 2>/dev/null) | tr '\n' ' '
}
# A renderer's docs (renderer.md, renderer-kms.md and power-on.md, which its units' Documentation=
# names) and the pictures of what it draws (power-on's filmstrips the native renderer's) come with
# that renderer's package, into splashd's doc directory, where README's links point: splashd stays
# within its budget, and each package carries the docs of what it ships.
declare -A files=(
    [splashd-web]="usr/bin/splashd-web usr/lib/systemd/system/splashd-web.service usr/share/splashd/web
        usr/share/man/man1/splashd-web.1.gz $(completions splashd-web) usr/share/doc/splashd/renderer.md $(pictures 'renderer-*.png')"
    [splashd-otel]="usr/bin/splashd-otel usr/lib/systemd/system/splashd-otel.service
        usr/share/man/man1/splashd-otel.1.gz $(completions splashd-otel)"
    [splashd-kms]="usr/bin/splashd-kms usr/lib/splashd/splashd-kms-first-frame usr/lib/systemd/system/splashd-kms.service usr/lib/systemd/system/splashd-kms-handoff.service
        usr/share/man/man1/splashd-kms.1.gz $(completions splashd-kms) usr/share/initramfs-tools etc/splashd/initramfs.conf
        var/cache/splashd-kms usr/share/doc/splashd/renderer-kms.md usr/share/doc/splashd/power-on.md
        $(pictures 'kms-*.png') $(pictures 'power-on-*.png')"
    [splashd-themes]="usr/share/splashd/themes"
)
for package in "${packages[@]}"; do
    root=$staging/debian/$package
    install -d -m 0755 "$root/DEBIAN"
    for path in ${files[$package]:-}; do
        [[ -e $all/$path ]] || { echo "deb: $package: install.sh made no $path" >&2; exit 1; }
        install -d -m 0755 "$root/$(dirname "$path")"
        mv "$all/$path" "$root/$path"
    done
done
# splashd: everything else. Directories the others emptied go.
find "$all" -depth -type d -empty -delete
cp -a "$all/." "$staging/debian/splashd/"
# The docs over 4 KiB compressed, as dh_compress does (Debian policy 12.3): the installed size
# stays within splashd's budget. Not the ones a unit's Documentation= or the journal catalog's
# Support: names (file:/usr/share/doc/splashd/…), which must stay where they point, and no
# example (the kiosk example is copied from there as it is).
mapfile -t named < <(grep -rhoE 'file:/usr/share/doc/splashd/[^ ]+' "$staging/debian" | sed 's|^file:/usr/share/doc/splashd/||' | sort -u)
while IFS= read -r -d '' doc; do
    relative=${doc#"$staging/debian/splashd/usr/share/doc/splashd/"}
    [[ " ${named[*]} " == *" $relative "* ]] && continue
    gzip -9n "$doc"
done < <(find "$staging/debian/splashd/usr/share/doc/splashd" -name '*.md' -not -path '*/examples/*' -size +4k -print0)

printf 'Source: splashd\n' >"$staging/debian/control"
for package in "${packages[@]}"; do
    printf '\nPackage: %s\nArchitecture: any\n' "$package" >>"$staging/debian/control"
done

# dpkg-shlibdeps in the staging tree: on this system, or for another architecture in TARGET_ROOT
# (its libraries and its dpkg database, under qemu-user), which sees the tree at /mnt.
shlibdeps() {
    if [[ -z $target_root ]]; then
        (cd "$staging" && dpkg-shlibdeps -O "$@")
        return
    fi
    # shellcheck disable=SC2016
    unshare --mount --propagation private /bin/bash -euc '
        mount --bind "$1" "$2/mnt"
        root=$2 arch=$3
        shift 3
        exec chroot "$root" /usr/bin/env DEB_BUILD_ARCH="$arch" DEB_HOST_ARCH="$arch" \
            /bin/sh -c "cd /mnt && exec dpkg-shlibdeps -O \"\$@\"" sh "$@"
    ' bash "$staging" "$target_root" "$arch" "$@"
}

for package in "${packages[@]}"; do
    root=$staging/debian/$package
    control=$root/DEBIAN
    doc=$root/usr/share/doc/$package
    install -d -m 0755 "$doc"
    install -m 0644 packaging/debian/copyright "$doc/copyright"
    gzip -9nc "$changelog" >"$doc/changelog.Debian.gz"
    chmod 0644 "$doc/changelog.Debian.gz"
    if [[ -f packaging/debian/$package.lintian-overrides ]]; then
        install -D -m 0644 "packaging/debian/$package.lintian-overrides" "$root/usr/share/lintian/overrides/$package"
    fi

    # Depends: the shared libraries the binaries still load (the Swift runtime is linked in), as
    # dpkg-shlibdeps finds them from this system's shlibs and symbols files (it notes that the
    # binaries use no symbol of libz.so.1: swift-nio-extras links it besides its own copy of zlib;
    # the dynamic loader still needs it, so zlib1g stays). splashd also needs systemd-sysusers
    # for its postinst, as dh_installsysusers adds it, and libsystemd0, which it loads with dlopen
    # (`splashctl logs` and [app]'s unit: dpkg-shlibdeps cannot see it), as splashd-kms does librsvg
    # (for an SVG logo); the renderer and the exporter need the
    # daemon (and its group splash) of the same version, the renderer its themes.
    depends=""
    executables=()
    while IFS= read -r -d '' binary; do executables+=("-e${binary#"$staging/"}"); done \
        < <(find "$root/usr/bin" -type f -print0 2>/dev/null)
    if [[ ${#executables[@]} -gt 0 ]]; then
        depends=$(shlibdeps "${executables[@]}" | sed -n 's/^shlibs:Depends=//p')
        [[ -n $depends ]] || { echo "deb: dpkg-shlibdeps found no dependencies for $package" >&2; exit 1; }
    fi
    case $package in
        splashd) depends="$depends, libsystemd0, systemd | systemd-standalone-sysusers | systemd-sysusers" ;;
        splashd-web) depends="$depends, splashd (= $version), splashd-themes (= $version)" ;;
        # librsvg: loaded with dlopen for an SVG logo only (SplashDraw/Librsvg.swift).
        splashd-kms) depends="$depends, librsvg2-2 (>= 2.46), splashd (= $version), splashd-themes (= $version)" ;;
        splashd-otel) depends="$depends, splashd (= $version)" ;;
    esac

    # Installed-Size as dpkg-gencontrol counts it: each file's size in KiB rounded up, 1 per
    # directory or symlink, DEBIAN left out.
    installed_size=$(cd "$root" && find . -mindepth 1 -path ./DEBIAN -prune -o \( -type f -printf '%s\n' -o -printf '1024\n' \) \
        | awk '{ total += int(($1 + 1023) / 1024) } END { print total }')

    sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
        -e "s/@INSTALLED_SIZE@/$installed_size/" -e "s/@DEPENDS@/$depends/" \
        "packaging/debian/$package.control.in" >"$control/control"
    for script in postinst prerm postrm; do
        if [[ -f packaging/debian/$package.$script ]]; then
            install -m 0755 "packaging/debian/$package.$script" "$control/$script"
        fi
    done
    # Every file under /etc is a configuration file: dpkg keeps the operator's changes.
    if [[ -d $root/etc ]]; then
        (cd "$root" && find etc -type f | LC_ALL=C sort | sed 's|^|/|') >"$control/conffiles"
        chmod 0644 "$control/conffiles"
    fi
    (cd "$root" && find . -path ./DEBIAN -prune -o -type f -print | sed 's|^\./||' | LC_ALL=C sort \
        | xargs -d '\n' md5sum) >"$control/md5sums"
    chmod 0644 "$control/control" "$control/md5sums"

    # Modes 0755 for directories and executables, 0644 for everything else; one time stamp.
    find "$root" -type d -exec chmod 0755 {} +
    find "$root" -type f -perm /111 -exec chmod 0755 {} +
    find "$root" -type f ! -perm /111 -exec chmod 0644 {} +
    find "$root" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +

    package_arch=$(sed -n 's/^Architecture: //p' "$control/control")
    out=$out_dir/${package}_${version}_${package_arch}.deb
    dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
    echo "$out"
done
