#!/usr/bin/env python3
"""Makes DEST hold exactly the files of the git work tree SOURCE, rewriting only what differs.

    scripts/sync-tree.py SOURCE DEST

The files are the ones git would commit: tracked, and untracked ones no .gitignore names, as
they are in the work tree (uncommitted changes included). A file whose contents and mode are
already DEST's is left alone, its modification time and inode too; one that differs is written
anew (a new inode, the time of now); whatever else DEST holds (build outputs, files since
deleted) is removed. So DEST is what a fresh clone of SOURCE would be, and a build in DEST
recompiles only the modules whose sources changed since the last sync: README's test command
builds there, at one path, to keep its build cache close (docs/benchmarks.md, "The test
command"). Prints what it did on one line. Exit 1, with the reason, if SOURCE is not a git work
tree or DEST is inside it.
"""
import os
import shutil
import stat
import subprocess
import sys


def listed(source):
    """The work tree's files, as git names them (relative, '/'-separated)."""
    out = subprocess.run(
        ["git", "-C", source, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        check=True, capture_output=True).stdout
    names = set()
    for raw in out.split(b"\0"):
        name = os.fsdecode(raw)
        # (--cached names files deleted from the work tree but not from the index.)
        if name and os.path.lexists(os.path.join(source, name)):
            names.add(name)
    return names


def same(path, data, mode):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_size != len(data):
        return False
    with open(path, "rb") as f:
        if f.read() != data:
            return False
    if stat.S_IMODE(st.st_mode) != mode:
        os.chmod(path, mode)
    return True


def remove(path):
    """Removes PATH: a directory with all it holds (links in it not followed), or a file or link."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def make_parent(dest, name):
    """Makes NAME's directories in DEST, removing a file that stands where one must be."""
    parent = dest
    for part in name.split("/")[:-1]:
        parent = os.path.join(parent, part)
        if os.path.islink(parent) or (os.path.lexists(parent) and not os.path.isdir(parent)):
            os.unlink(parent)
        if not os.path.isdir(parent):
            os.mkdir(parent)


def sync(source, dest):
    names = listed(source)
    os.makedirs(dest, exist_ok=True)
    written = kept = 0
    for name in sorted(names):
        src, dst = os.path.join(source, name), os.path.join(dest, name)
        make_parent(dest, name)
        st = os.lstat(src)
        if stat.S_ISLNK(st.st_mode):
            target = os.readlink(src)
            if os.path.islink(dst) and os.readlink(dst) == target:
                kept += 1
                continue
            remove(dst)
            os.symlink(target, dst)
            written += 1
            continue
        with open(src, "rb") as f:
            data = f.read()
        mode = stat.S_IMODE(st.st_mode)
        if same(dst, data, mode):
            kept += 1
            continue
        if os.path.isdir(dst) and not os.path.islink(dst):
            remove(dst)
        # Written beside it, then renamed over it: never through a link, never into a file
        # someone else made.
        new = dst + ".sync-tree-new"
        if os.path.lexists(new):
            os.unlink(new)
        fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(new, mode)
        os.replace(new, dst)
        written += 1
    # Everything else goes: the directories git's files are in stay.
    parents = {""}
    for name in names:
        parts = name.split("/")
        for i in range(1, len(parts)):
            parents.add("/".join(parts[:i]))
    removed = 0
    for root, dirs, files in os.walk(dest, topdown=True):
        rel = os.path.relpath(root, dest)
        rel = "" if rel == "." else rel
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            path = name if not rel else f"{rel}/{name}"
            if path not in names:
                os.unlink(os.path.join(root, name))
                removed += 1
        keep = []
        for name in dirs:
            full = os.path.join(root, name)
            if os.path.islink(full):
                continue
            path = name if not rel else f"{rel}/{name}"
            if path in parents:
                keep.append(name)
            else:
                remove(full)
                removed += 1
        dirs[:] = keep
    return len(names), written, kept, removed


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    source, dest = (os.path.realpath(p) for p in sys.argv[1:])
    inside = subprocess.run(["git", "-C", source, "rev-parse", "--is-inside-work-tree"],
                            capture_output=True, text=True)
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        print(f"sync-tree: {source} is not a git work tree", file=sys.stderr)
        return 1
    if dest == source or dest.startswith(source + os.sep):
        print(f"sync-tree: {dest} is inside {source}", file=sys.stderr)
        return 1
    files, written, kept, removed = sync(source, dest)
    print(f"sync-tree: {dest}: {files} files, {written} written anew, {kept} unchanged, "
          f"{removed} removed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
