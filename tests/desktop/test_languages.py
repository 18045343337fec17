# ruff: noqa: RUF001 — the expected Chinese words carry Chinese punctuation
"""The command line and the window in Chinese or English (docs/decisions.md, "Languages"): the
system locale picks the language unless `ui-appearance.language` in the data dir's settings names
one; the catalogues have the same keys and placeholders; the window's page speaks the locale's
language from its first paint."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from desktop import i18n
from desktop.i18n import en, zh_cn
from tests.desktop.support import AppFactory, gui_test
from tests.support.scripted_llm import ScriptedLlmServer

ROOT = Path(__file__).resolve().parents[2]
CHINESE = re.compile("[\u4e00-\u9fff]")
LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def run_cli(*args: str, lang: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in (*LOCALE_VARS, "DISPLAY", "WAYLAND_DISPLAY")}
    env["LANG"] = lang
    return subprocess.run(
        [sys.executable, "-m", "desktop", *args, "--data-dir", str(data_dir)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def placeholders(message: object) -> list[str]:
    texts = list(message.values()) if isinstance(message, dict) else [message]
    found = {m for text in texts for m in re.findall(r"\{(\w+)\}|%\((\w+)\)|(%s)", str(text))}
    return sorted("".join(parts) for parts in found)


def test_both_catalogues_have_the_same_keys_and_placeholders() -> None:
    assert set(en.MESSAGES) == set(zh_cn.MESSAGES)
    differ = [k for k in en.MESSAGES if placeholders(en.MESSAGES[k]) != placeholders(zh_cn.MESSAGES[k])]
    assert differ == []
    assert all(isinstance(v, str) for v in zh_cn.MESSAGES.values())  # Chinese has no plural forms


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh-CN"),
        ({"LANG": "zh_TW.UTF-8"}, "zh-CN"),
        ({"LANG": "C"}, "en"),
        ({"LANG": "C.UTF-8", "LANGUAGE": "zh_CN"}, "en"),  # LANGUAGE is ignored under the C locale
        ({"LANG": "en_US.UTF-8", "LANGUAGE": "zh_CN:en"}, "zh-CN"),
        ({"LANG": "zh_CN.UTF-8", "LC_MESSAGES": "en_GB.UTF-8"}, "en"),
        ({"LANG": "en_US.UTF-8", "LC_ALL": "zh_CN.UTF-8"}, "zh-CN"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_system_locale_picks_the_language_as_gettext_does(environ: dict[str, str], language: str) -> None:
    assert i18n.system_language(environ) == language


def test_the_cli_speaks_chinese_under_a_chinese_locale_and_english_under_c(tmp_path: Path) -> None:
    zh = run_cli("--help", lang="zh_CN.UTF-8", data_dir=tmp_path)
    assert (
        zh.returncode == 0 and "用法：harnessdesk [选项]" in zh.stdout and "显示此帮助信息并退出" in zh.stdout
    )
    c = run_cli("--help", lang="C", data_dir=tmp_path)
    assert c.returncode == 0 and "usage: harnessdesk [options]" in c.stdout and not CHINESE.search(c.stdout)

    bad = run_cli("serve", "--port", "http", lang="zh_CN.UTF-8", data_dir=tmp_path)
    assert bad.returncode == 2
    assert bad.stderr.strip() == "harnessdesk: 参数 --port：不是端口号：'http'"
    bad = run_cli("serve", "--port", "http", lang="C", data_dir=tmp_path)
    assert bad.stderr.strip() == "harnessdesk: argument --port: not a port number: 'http'"

    doctor = run_cli("doctor", lang="zh_CN.UTF-8", data_dir=tmp_path / "d")
    assert f"数据目录：{tmp_path / 'd'}（尚未创建）" in doctor.stdout, doctor.stdout
    assert "显示：无（DISPLAY 和 WAYLAND_DISPLAY 都未设置）" in doctor.stdout
    doctor = run_cli("doctor", lang="C", data_dir=tmp_path / "d")
    assert f"data dir: {tmp_path / 'd'} (not created yet)" in doctor.stdout
    assert not CHINESE.search(doctor.stdout)


def test_the_setting_wins_over_the_locale(tmp_path: Path) -> None:
    settings: dict[str, Any] = {"version": 2, "namespaces": {"ui-appearance": {"language": "en"}}}
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    english = run_cli("--help", lang="zh_CN.UTF-8", data_dir=tmp_path)
    assert "usage: harnessdesk" in english.stdout and not CHINESE.search(english.stdout)
    settings["namespaces"]["ui-appearance"]["language"] = "zh-CN"
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    chinese = run_cli("--help", lang="C", data_dir=tmp_path)
    assert "用法：harnessdesk" in chinese.stdout
    settings["namespaces"]["ui-appearance"]["language"] = "system"
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    assert "usage: harnessdesk" in run_cli("--help", lang="C", data_dir=tmp_path).stdout
    (tmp_path / "settings.json").write_bytes(b"\xff not json")  # a file the host cannot use either
    assert "用法：harnessdesk" in run_cli("--help", lang="zh_CN.UTF-8", data_dir=tmp_path).stdout


def wait_until(predicate, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
    return value


@gui_test
def test_the_window_speaks_the_system_locales_language(
    apps: AppFactory, scripted_llm: ScriptedLlmServer, tmp_path: Path
) -> None:
    env = {"LANG": "zh_CN.UTF-8", "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": ""}
    provider = ["--provider", "openai-compatible", "--base-url", scripted_llm.base_url, "--model", "m"]
    app = apps.launch(
        "--webui", str(ROOT / "webui"), "--real-host", *provider, data_dir=tmp_path / "data", env=env
    )
    page = app.page()
    wait_until(lambda: page.evaluate("document.documentElement.dataset.connection === 'connected'"))
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    label = "document.querySelector('[data-testid=new-session]').textContent.trim()"
    assert wait_until(lambda: page.evaluate(label)) == "新建会话"
    assert app.close_window(60) == 0
