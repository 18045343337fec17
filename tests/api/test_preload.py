"""The first screen's module preload list (host/server/preload.py): read from the real files.

The list is computed when the page is first served, so it cannot go stale; these tests pin the
parser against the import forms webui/ uses, check the real webui/ graph against an independent
reading of its files, and show that a module added to the tree is in the next host's list.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from host.server.preload import ENTRY, OFF, PreloadedPage, imports_of, module_graph, render

ROOT = Path(__file__).resolve().parents[2]
WEBUI = ROOT / "webui"
INDEX = """<head>
  <script type="module" src="js/main.js"></script>
</head>"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_every_static_import_form_is_read_and_comments_are_not() -> None:
    source = """// import { x } from "./commented.js";
/** @param {import("../state/typed.js").Thing} t */
import { a } from "./a.js";
import {
  b,
  c as d,
} from './b.js';
import "./side-effect.js";
import Default, * as all from "../up.js";
export { e } from "./e.js";
export * from "./star.js";
/* import { f } from "./block.js"; */
const url = "http://example.com/"; import { g } from "./after-url.js";
const text = 'import { h } from "./in-a-string.js"';
"""
    assert imports_of(source) == [
        "./a.js",
        "./b.js",
        "./side-effect.js",
        "../up.js",
        "./e.js",
        "./star.js",
        "./after-url.js",
    ]


def test_levels_follow_the_browsers_discovery_and_missing_files_are_left_out(tmp_path: Path) -> None:
    webui = write(
        tmp_path,
        {
            "js/main.js": 'import "./a.js";\nimport { b } from "./views/b.js";\n',
            "js/a.js": 'import "./views/b.js";\nimport "./gone.js";\n',
            "js/views/b.js": 'import "../../vendor/lib.mjs";\nimport "../../../outside.js";\n',
            "vendor/lib.mjs": "export default 1;\n",
            "js/unused.js": "export const never = 1;\n",
        },
    )
    (tmp_path.parent / "outside.js").write_text("export {};\n", encoding="utf-8")
    graph = module_graph(webui)
    assert graph.levels == (("js/main.js",), ("js/a.js", "js/views/b.js"), ("vendor/lib.mjs",))
    assert graph.edges["js/a.js"] == ("js/views/b.js",)


def test_the_links_go_before_the_entry_script_and_a_page_without_it_is_left_alone(tmp_path: Path) -> None:
    webui = write(tmp_path, {"js/main.js": 'import "./a.js";\n', "js/a.js": "export {};\n"})
    page = render(INDEX, module_graph(webui))
    assert '<link rel="modulepreload" href="js/a.js">' in page
    assert page.index('href="js/a.js"') < page.index('src="js/main.js"')
    assert 'href="js/main.js"' not in page  # the script tag fetches the entry itself
    assert render("<p>no entry</p>", module_graph(webui)) == "<p>no entry</p>"


def test_a_module_added_to_the_tree_is_in_the_next_hosts_list(tmp_path: Path) -> None:
    webui = write(tmp_path, {"index.html": INDEX, "js/main.js": 'import "./a.js";\n', "js/a.js": ""})
    first = PreloadedPage(webui).body().decode()
    (webui / "js" / "a.js").write_text('import "./added.js";\n', encoding="utf-8")
    (webui / "js" / "added.js").write_text("export {};\n", encoding="utf-8")
    second = PreloadedPage(webui).body().decode()
    assert 'href="js/added.js"' not in first
    assert 'href="js/added.js"' in second


def test_the_real_page_preloads_exactly_what_main_js_reaches() -> None:
    """Checked against an independent, naive reading of every file (each import on its own
    line, as webui/ writes them): the parser misses nothing and adds nothing."""
    naive = re.compile(r"""^(?:import|export)\b[^;]*?["'](\.{1,2}/[^"']+)["'];""", re.MULTILINE | re.DOTALL)
    reached, todo = {ENTRY}, [ENTRY]
    while todo:
        module = todo.pop()
        for spec in naive.findall((WEBUI / module).read_text(encoding="utf-8")):
            target = (WEBUI / module).parent.joinpath(spec).resolve().relative_to(WEBUI).as_posix()
            if target not in reached:
                reached.add(target)
                todo.append(target)
    graph = module_graph(WEBUI)
    assert set(graph.modules) == reached
    assert len(graph.levels) > 2  # a real waterfall to flatten
    page = PreloadedPage(WEBUI).body().decode()
    assert set(re.findall(r'<link rel="modulepreload" href="([^"]+)">', page)) == reached - {ENTRY}


def test_a_page_without_the_entry_or_with_an_unreadable_module_is_served_as_it_is(tmp_path: Path) -> None:
    other = write(tmp_path / "other", {"index.html": "<p>another page</p>"})
    assert PreloadedPage(other).body() == b"<p>another page</p>"
    no_entry = write(tmp_path / "no-entry", {"index.html": INDEX})
    assert PreloadedPage(no_entry).body().decode() == INDEX
    broken = write(tmp_path / "broken", {"index.html": INDEX, "js/main.js": 'import "./a.js";\n'})
    (broken / "js" / "a.js").write_bytes(b"\xff\xfe not utf-8")
    assert PreloadedPage(broken).body().decode() == INDEX


def test_the_list_can_be_switched_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    webui = write(tmp_path, {"index.html": INDEX, "js/main.js": 'import "./a.js";\n', "js/a.js": ""})
    monkeypatch.setenv(OFF, "1")
    assert PreloadedPage(webui).body().decode() == INDEX
