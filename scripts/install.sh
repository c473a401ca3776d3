#!/usr/bin/env bash
# Installs splashd under $DESTDIR: `make install` runs it, and so does the Debian package's build
# (scripts/deb.sh). docs/packaging.md has the table of what goes where.
#
#   scripts/install.sh BINARIES_DIR
#
# BINARIES_DIR holds splashd, splashd-web, splashd-otel, splashd-kms and splashd-kms-first-frame to
# install (stripped on the way);
# splashctl is a link to splashd, which is splashctl when called by that name. Environment:
# DESTDIR (default: none, the live system), PREFIX (default /usr), SYSCONFDIR (default /etc),
# STRIP (default strip), TARGET_RUN (what runs the binaries: for another architecture, qemu-user
# with its libraries). /etc/splashd/splashd.toml is installed only where none exists, so an
# operator's configuration is never overwritten.
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

binaries=${1:?usage: scripts/install.sh BINARIES_DIR}
root=${DESTDIR:-}
prefix=${PREFIX:-/usr}
sysconfdir=${SYSCONFDIR:-/etc}
strip=${STRIP:-strip}

for tool in splashd splashd-web splashd-otel splashd-kms splashd-kms-first-frame; do
    [[ -x $binaries/$tool ]] || { echo "install: no executable $binaries/$tool (make dist, or make first-frame and BINARIES=DIR)" >&2; exit 1; }
done

bindir=$prefix/bin
libdir=$prefix/lib
unitdir=$libdir/systemd/system
# The daemon looks for shipped plugins here whatever the prefix (design §8).
plugindir=/usr/lib/splashd/plugins
datadir=$prefix/share
docdir=$datadir/doc/splashd
mandir=$datadir/man

dir() { install -d -m 0755 "$root$1"; }
file() { install -D -m "${3:-0644}" "$1" "$root$2"; }

# Binaries, stripped as dh_strip strips an executable: no symbol table or debug info (the Swift
# runtime's metadata lives in sections of its own and stays).
dir "$bindir"
for tool in splashd splashd-web splashd-otel splashd-kms; do
    install -m 0755 "$binaries/$tool" "$root$bindir/$tool"
    "$strip" --remove-section=.comment --remove-section=.note "$root$bindir/$tool"
done
# The native renderer's first frame, which becomes splashd-kms (its unit's ExecStart): not a
# command of its own.
install -D -m 0755 "$binaries/splashd-kms-first-frame" "$root$libdir/splashd/splashd-kms-first-frame"
"$strip" --remove-section=.comment --remove-section=.note "$root$libdir/splashd/splashd-kms-first-frame"
# One executable for the daemon and its client: 15 MB less on disk, 4 MB less to download
# (docs/benchmarks.md, "Package sizes").
ln -sfn splashd "$root$bindir/splashctl"
# psplash's client under its own name (design §15): Mender's state scripts and anything else that
# calls psplash-write drive splashd's update view unchanged.
ln -sfn splashd "$root$bindir/psplash-write"

# systemd: the units name /usr/bin and /usr/share/doc; another prefix is written into them.
for unit in splashd.service splashd.socket splashd-finished.service splashd-shutdown.service splashd-web.service \
    splashd-otel.service splashd-kms.service splashd-kms-handoff.service; do
    dir "$unitdir"
    sed -e "s|/usr/bin/splash|$bindir/splash|g" -e "s|/usr/lib/splashd/splashd-kms|$libdir/splashd/splashd-kms|g" \
        -e "s|file:/usr/share/doc/splashd/|file:$docdir/|g" \
        "systemd/$unit" >"$root$unitdir/$unit"
    chmod 0644 "$root$unitdir/$unit"
done
file systemd/sysusers.d/splashd.conf "$libdir/sysusers.d/splashd.conf"
file systemd/tmpfiles.d/splashd.conf "$libdir/tmpfiles.d/splashd.conf"
file systemd/splashd.catalog "$libdir/systemd/catalog/splashd.catalog"
# The native renderer in the initramfs (opt-in: SPLASH=yes in /etc/splashd/initramfs.conf):
# initramfs-tools' hook and its two boot scripts (docs/renderer-kms.md, "From the initramfs").
file initramfs/hooks/splashd-kms "$datadir/initramfs-tools/hooks/splashd-kms" 0755
file initramfs/scripts/init-top/splashd-kms "$datadir/initramfs-tools/scripts/init-top/splashd-kms" 0755
file initramfs/scripts/init-bottom/splashd-kms "$datadir/initramfs-tools/scripts/init-bottom/splashd-kms" 0755
if [[ ! -e $root$sysconfdir/splashd/initramfs.conf ]]; then
    file initramfs/initramfs.conf "$sysconfdir/splashd/initramfs.conf"
fi
sed -i "s|/usr/bin/splashd-kms|$bindir/splashd-kms|g" "$root$datadir/initramfs-tools/hooks/splashd-kms"
# The native renderer's first-frame cache (its unit's --cache-dir; docs/renderer-kms.md, "From
# power-on"): the theme's still view per output size and turn, written by the renderer.
dir /var/cache/splashd-kms

# The polkit grant for [app]'s unit (design §14): it runs splashd check, at the installed path.
dir "$datadir/polkit-1/rules.d"
sed -e "s|/usr/bin/splashd|$bindir/splashd|g" packaging/polkit/50-splashd.rules >"$root$datadir/polkit-1/rules.d/50-splashd.rules"
chmod 0644 "$root$datadir/polkit-1/rules.d/50-splashd.rules"

# Shipped external plugins: each manifest and the folder its `exec` names.
for manifest in plugins/*.toml; do
    name=$(basename "$manifest" .toml)
    file "$manifest" "$plugindir/$name.toml"
    for script in "plugins/$name"/*; do
        file "$script" "$plugindir/$name/$(basename "$script")" 0755
    done
done

# The reference renderer: its page and the shipped themes (splashd-web finds them beside its
# binary, in ../share/splashd).
for page in renderer/web/*; do
    file "$page" "$datadir/splashd/web/$(basename "$page")"
done
for theme in renderer/themes/*/; do
    for asset in "$theme"*; do
        file "$asset" "$datadir/splashd/themes/$(basename "$theme")/$(basename "$asset")"
    done
done

# The configuration: the embedded default made explicit, with control_group = "splash".
if [[ ! -e $root$sysconfdir/splashd/splashd.toml ]]; then
    file packaging/splashd.toml "$sysconfdir/splashd/splashd.toml"
fi

# Man pages, compressed as Debian policy wants them (gzip -9n: no name or time stamp inside).
for page in man/*.[0-9]; do
    section=${page##*.}
    dir "$mandir/man$section"
    gzip -9nc "$page" >"$root$mandir/man$section/$(basename "$page").gz"
    chmod 0644 "$root$mandir/man$section/$(basename "$page").gz"
done

# Shell completions, from the binaries themselves (swift-argument-parser writes them; the renderers'
# SplashCommandLine, theirs). They are
# sourced, not run: the bash script's #! line goes.
# Binaries of another architecture run under TARGET_RUN (qemu-user with that architecture's
# libraries: `make deb-arm64`).
run() { ${TARGET_RUN:-} "$@"; }
completions() { # TOOL SHELL DEST
    run "$root$bindir/$1" --generate-completion-script "$2" | sed '1{/^#!/d}' >"$root$3"
    chmod 0644 "$root$3"
}
dir "$datadir/bash-completion/completions"
dir "$datadir/zsh/vendor-completions"
dir "$datadir/fish/vendor_completions.d"
for tool in splashd splashctl splashd-web splashd-otel splashd-kms; do
    completions "$tool" bash "$datadir/bash-completion/completions/$tool"
    completions "$tool" zsh "$datadir/zsh/vendor-completions/_$tool"
    completions "$tool" fish "$datadir/fish/vendor_completions.d/$tool.fish"
done

# Docs. README's links into docs/ point at the flat directory they are installed in.
dir "$docdir"
sed -e 's|](docs/|](|g' README.md >"$root$docdir/README.md"
chmod 0644 "$root$docdir/README.md"
for doc in docs/*; do
    file "$doc" "$docdir/$(basename "$doc")"
done
file plugins/README.md "$docdir/plugins/README.md"
file examples/splashd.toml "$docdir/examples/splashd.toml"
for example in systemd/kiosk/*; do
    file "$example" "$docdir/examples/kiosk/$(basename "$example")"
done
