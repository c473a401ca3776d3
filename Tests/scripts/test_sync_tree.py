"""scripts/sync-tree.py: the tree README's test command builds in (docs/benchmarks.md, "The test
command"). What it must keep is what keeps the build cache close: a file whose contents did not
change keeps its inode and time, so the build does not compile it again; and the tree must be
exactly the clone's, so nothing stale is built or tested."""
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "sync-tree.py"


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


def sync(source, dest):
    return subprocess.run([sys.executable, str(SCRIPT), str(source), str(dest)],
                          capture_output=True, text=True)


def tree(root):
    """Every file and link under ROOT: its relative path, what it holds, its mode."""
    found = {}
    for path in sorted(Path(root).rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[rel] = ("link", os.readlink(path))
        elif path.is_file():
            found[rel] = (path.read_bytes(), path.stat().st_mode & 0o777)
    return found


def identity(path):
    st = os.lstat(path)
    return st.st_ino, st.st_mtime_ns


def make_repo(tmp_path):
    repo = tmp_path / "clone"
    (repo / "Sources" / "Core").mkdir(parents=True)
    (repo / "Sources" / "Core" / "Graph.swift").write_text("struct Graph {}\n")
    (repo / "Sources" / "Core" / "Phase.swift").write_text("enum Phase {}\n")
    (repo / "scripts").mkdir()
    (repo / "scripts" / "run.sh").write_text("#!/bin/sh\n")
    (repo / "scripts" / "run.sh").chmod(0o755)
    (repo / "README.md").write_text("splashd\n")
    (repo / "docs").symlink_to("Sources")
    (repo / ".gitignore").write_text("/dist/\n*.o\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    return repo


def test_the_tree_is_the_work_trees_files_as_git_would_commit_them(tmp_path):
    repo = make_repo(tmp_path)
    (repo / "dist").mkdir()
    (repo / "dist" / "splashd.deb").write_text("built")
    (repo / "Sources" / "Core" / "Graph.o").write_text("object")
    (repo / "Sources" / "Core" / "New.swift").write_text("// not yet added\n")
    (repo / "README.md").write_text("splashd, changed and not committed\n")
    (repo / "Sources" / "Core" / "Phase.swift").unlink()
    dest = tmp_path / "cache" / "src"

    result = sync(repo, dest)

    assert result.returncode == 0, result.stderr
    expected = {k: v for k, v in tree(repo).items()
                if not k.startswith((".git/", "dist")) and not k.endswith(".o")}
    assert tree(dest) == expected
    assert "Sources/Core/New.swift" in expected and "Sources/Core/Phase.swift" not in expected
    assert tree(dest)["scripts/run.sh"][1] == 0o755
    assert tree(dest)["docs"] == ("link", "Sources")


def test_an_unchanged_file_keeps_its_inode_and_time_and_the_rest_is_made_exact(tmp_path):
    repo = make_repo(tmp_path)
    dest = tmp_path / "cache" / "src"
    assert sync(repo, dest).returncode == 0
    graph = identity(dest / "Sources" / "Core" / "Graph.swift")
    phase = identity(dest / "Sources" / "Core" / "Phase.swift")
    # What the last run left behind: its outputs, and a file its source has since lost.
    (dest / "dist").mkdir()
    (dest / "dist" / "splashd_0.1_amd64.deb").write_text("an old version")
    (dest / "Sources" / "Core" / "Old.swift").write_text("struct Old {}\n")
    (dest / "Stale" / "Deep").mkdir(parents=True)
    (dest / "Stale" / "Deep" / "x").write_text("x")
    # A fresh clone: every file new, one of them changed, one gone, one added.
    fresh = tmp_path / "fresh"
    subprocess.run(["git", "clone", "-q", str(repo), str(fresh)], check=True)
    (fresh / "Sources" / "Core" / "Phase.swift").write_text("enum Phase { case loading }\n")
    (fresh / "README.md").unlink()
    (fresh / "Sources" / "Core" / "Step.swift").write_text("struct Step {}\n")
    (fresh / "scripts" / "run.sh").chmod(0o700)

    result = sync(fresh, dest)

    assert result.returncode == 0, result.stderr
    assert identity(dest / "Sources" / "Core" / "Graph.swift") == graph
    assert identity(dest / "Sources" / "Core" / "Phase.swift") != phase
    expected = {k: v for k, v in tree(fresh).items() if not k.startswith(".git/")}
    assert tree(dest) == expected
    assert tree(dest)["scripts/run.sh"][1] == 0o700
    assert "written anew" in result.stdout


def test_a_source_that_is_not_a_work_tree_or_a_destination_inside_it_is_refused(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "file").write_text("x")
    result = sync(plain, tmp_path / "dest")
    assert result.returncode == 1 and "not a git work tree" in result.stderr
    assert not (tmp_path / "dest").exists()

    repo = make_repo(tmp_path)
    result = sync(repo, repo / "build" / "src")
    assert result.returncode == 1 and "inside" in result.stderr
    assert not (repo / "build").exists()
