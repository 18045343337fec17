"""The real thing, opt-in (HARNESSDESK_PACKAGING=1, a few minutes on 2 cores): build the bundle
and installers into a temporary directory, then run the self-test on the frozen build."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.conftest import PACKAGING

BUNDLE_BUDGET_MB = 300  # issue 17's budget; a hook pulling a toolkit back in would break it


@pytest.mark.packaging
@pytest.mark.timeout(1800)
def test_build_bundle_installers_and_self_test(tmp_path: Path) -> None:
    try:
        check_build(tmp_path)
    finally:  # ~1.5 GB of bundle, installers and PyInstaller work files
        shutil.rmtree(tmp_path / "dist", ignore_errors=True)
        shutil.rmtree(tmp_path / "build", ignore_errors=True)


def check_build(tmp_path: Path) -> None:
    env = dict(os.environ, HARNESSDESK_DIST=str(tmp_path / "dist"), HARNESSDESK_BUILD=str(tmp_path / "build"))
    subprocess.run([sys.executable, str(PACKAGING / "build.py"), "--installers"], env=env, check=True)
    dist = tmp_path / "dist"
    report = json.loads((dist / "harnessdesk-report.json").read_text(encoding="utf-8"))
    assert report["bundle_bytes"] < BUNDLE_BUDGET_MB * 1024 * 1024
    assert Path(report["deb_path"]).is_file() and Path(report["tar_path"]).is_file()
    internal = dist / "harnessdesk" / "_internal"
    for system in ("libgtk-3.so*", "libglib-2.0.so*", "libwebkit2gtk-*", "*.typelib", "libQt6*"):
        assert not list(internal.rglob(system)), f"{system} must come from the system"
    exe = dist / "harnessdesk" / "harnessdesk"
    version = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60, check=True)
    assert version.stdout.startswith("harnessdesk ")
    result = subprocess.run(
        [str(exe), "doctor", "--self-test"], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "frozen bundle" in result.stdout and "self-test: OK" in result.stdout
