"""The name the desktop window's save dialog suggests for an export: the exact UTF-8 name the
host sends (`filename*`, a title in any script), else the ASCII fallback; never a path."""

from __future__ import annotations

from desktop.bridge import download_name
from host.fetch.export import content_disposition


def test_the_exact_utf8_name_wins_over_the_ascii_fallback() -> None:
    headers = [("Content-Disposition", content_disposition("修复-登录-2025-01-15.zip"))]
    assert download_name(headers) == "修复-登录-2025-01-15.zip"
    assert download_name([("content-disposition", 'attachment; filename="plain.zip"')]) == "plain.zip"


def test_a_name_is_never_a_path() -> None:
    sneaky = "attachment; filename*=UTF-8''..%2F..%2F.bashrc.zip"
    assert download_name([("content-disposition", sneaky)]) == ".bashrc.zip"
    dots = [("content-disposition", "attachment; filename*=UTF-8''..")]
    assert download_name(dots) == download_name([]) == "harnessdesk-export.zip"
