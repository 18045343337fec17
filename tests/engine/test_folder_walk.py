"""The link-refusing walk the undo journal and the worktree hand-off share (host/engine/files/folder_walk.py):
real folders on a real file system, a planted symbolic link, a root swapped for one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from host.engine.files.folder_walk import open_parent


class Refused(OSError):
    pass


def test_it_opens_the_folder_of_a_path_and_makes_missing_ones_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    fd = open_parent(str(tmp_path), "a/b/file.txt", Refused)
    assert fd is not None
    try:
        assert os.path.samefile(f"/proc/self/fd/{fd}", tmp_path / "a" / "b")
    finally:
        os.close(fd)
    assert open_parent(str(tmp_path), "x/y/file.txt", Refused) is None
    assert not (tmp_path / "x").exists()
    made = open_parent(str(tmp_path), "x/y/file.txt", Refused, create=True)
    assert made is not None
    os.close(made)
    assert (tmp_path / "x" / "y").is_dir()


@pytest.mark.parametrize("rel", ["../outside.txt", "/etc/passwd", "a/../../b", ""])
def test_a_path_that_leaves_the_folder_is_refused_with_the_callers_error(tmp_path: Path, rel: str) -> None:
    with pytest.raises(Refused, match="not a path inside the folder"):
        open_parent(str(tmp_path), rel, Refused)


def test_a_link_on_the_way_is_refused_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    (root / "sub").symlink_to(outside)
    with pytest.raises(Refused, match="a link or not a folder"):
        open_parent(str(root), "sub/secret.txt", Refused, create=True)
    assert list(outside.iterdir()) == []


def test_a_root_that_became_a_link_is_refused_when_it_is_fixed(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    checked = str(root)
    root.rmdir()
    root.symlink_to(real)  # swapped after the caller checked its real path
    with pytest.raises(Refused, match="is not the folder it was"):
        open_parent(checked, "file.txt", Refused, fixed_root=True)
    fd = open_parent(checked, "file.txt", Refused)  # without the check the link is the root
    assert fd is not None
    os.close(fd)
