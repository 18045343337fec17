"""The .deb and .tar.gz steps on a tiny stand-in bundle: layout, control fields, modes, owners.

The real bundle takes minutes to build; the installer logic does not depend on its contents.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from pathlib import Path

import linux

from tests.support.machine import needs

needs_dpkg = needs(shutil.which("dpkg-deb") is not None, "needs dpkg-deb")


def fake_bundle(tmp_path: Path) -> Path:
    bundle = tmp_path / "dist" / "harnessdesk"
    (bundle / "_internal" / "webui").mkdir(parents=True)
    exe = bundle / "harnessdesk"
    exe.write_text("#!/bin/sh\necho harnessdesk 0.0.0\n", encoding="utf-8")
    exe.chmod(0o755)
    (bundle / "_internal" / "webui" / "index.html").write_text("<!doctype html>", encoding="utf-8")
    return bundle


@needs_dpkg
def test_deb_layout_and_control(tmp_path: Path) -> None:
    bundle = fake_bundle(tmp_path)
    deb = linux.build_deb(bundle, "9.8.7", tmp_path / "out", tmp_path / "work", "gzip")
    assert deb.name == f"harnessdesk_9.8.7_{linux.deb_arch()}.deb"
    info = subprocess.run(["dpkg-deb", "-f", str(deb)], capture_output=True, text=True, check=True).stdout
    assert "Package: harnessdesk" in info and "Version: 9.8.7" in info
    assert "libwebkit2gtk-4.1-0" in info and "gir1.2-webkit2-4.1" in info
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    rows = {line.split()[-1]: line.split()[:2] for line in listing.splitlines()}
    assert rows["./opt/harnessdesk/harnessdesk"][0] == "-rwxr-xr-x"
    assert rows["./usr/bin/harnessdesk"] == ["-rwxr-xr-x", "root/root"]
    assert "./opt/harnessdesk/_internal/webui/index.html" in rows
    assert "./usr/share/applications/harnessdesk.desktop" in rows
    assert "./usr/share/icons/hicolor/256x256/apps/harnessdesk.png" in rows
    assert "./usr/share/icons/hicolor/scalable/apps/harnessdesk.svg" in rows
    assert all(owner == "root/root" for _, owner in rows.values())
    scripts = subprocess.run(["dpkg-deb", "-I", str(deb)], capture_output=True, text=True, check=True).stdout
    assert "postinst" in scripts and "postrm" in scripts
    assert not (tmp_path / "work" / "deb-root").exists(), "staging tree is cleaned up"


def test_tarball_holds_the_folder_with_root_owner(tmp_path: Path) -> None:
    bundle = fake_bundle(tmp_path)
    out = linux.build_tar(bundle, "9.8.7", tmp_path, "x86_64")
    assert out.name == "harnessdesk-9.8.7-linux-x86_64.tar.gz"
    with tarfile.open(out) as tar:
        members = {m.name: m for m in tar.getmembers()}
    assert "harnessdesk/harnessdesk" in members
    assert members["harnessdesk/harnessdesk"].mode & 0o111
    assert {m.uid for m in members.values()} == {0}


def test_strip_and_link_check_leave_a_clean_bundle_alone(tmp_path: Path) -> None:
    bundle = fake_bundle(tmp_path)
    assert linux.strip_debug(bundle) == []
    links = linux.check_links(bundle)
    assert links.missing == {}
