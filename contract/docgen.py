"""The tables of docs/architecture.md that the contract owns: the error codes ("Errors") and the
method map ("Method map"), generated between markers so that they cannot drift from the code.

`python -m contract --docs` rewrites them; `python -m contract --check` fails when they are stale.
Everything outside the markers is the page's own prose and is left as it is.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from contract.error_when import ERROR_WHEN
from contract.errors import ERROR_DETAILS
from contract.methods import METHODS, AnyMethod

ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
TABLES = ("errors", "methods")


def begin(name: str) -> str:
    return f"<!-- BEGIN GENERATED {name}: `python -m contract --docs` writes this table -->"


def end(name: str) -> str:
    return f"<!-- END GENERATED {name} -->"


def details_shape(model: type[BaseModel]) -> str:
    """`{sessionId, existingCwd?}`: the wire names, `?` on the optional ones."""
    names = [(f.alias or n) + ("" if f.is_required() else "?") for n, f in model.model_fields.items()]
    return "{" + ", ".join(names) + "}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_errors() -> str:
    missing = [code for code in ERROR_DETAILS if code not in ERROR_WHEN]
    stray = [code for code in ERROR_WHEN if code not in ERROR_DETAILS]
    if missing or stray:
        raise ValueError(f"contract/error_when.py: no sentence for {missing}, no such code {stray}")
    rows = ["| code | details | when |", "|---|---|---|"]
    for code, model in ERROR_DETAILS.items():
        rows.append(f"| `{code}` | `{details_shape(model)}` | {_cell(ERROR_WHEN[code])} |")
    return "\n".join(rows)


def _fence(m: AnyMethod) -> str:
    if m.subagent_fenced:
        return "fenced"
    return f"open: {_cell(m.unfenced_because)}" if m.unfenced_because else ""


def render_methods() -> str:
    rows = [
        "| method | request → value | privileged | user-paced | session | on a subagent's session |",
        "|---|---|---|---|---|---|",
    ]
    for m in METHODS.values():
        cells = [
            f"`{m.key}`",
            f"`{m.request.__name__}` → `{m.value.__name__}`",
            "yes" if m.privileged else "",
            "yes" if m.user_paced else "",
            m.session or "",
            _fence(m),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def render(text: str) -> str:
    """`text` with each generated table replaced by what the contract gives now."""
    bodies = {"errors": render_errors(), "methods": render_methods()}
    for name in TABLES:
        head, tail = begin(name), end(name)
        start, stop = text.find(head), text.find(tail)
        if start < 0 or stop < start:
            raise ValueError(f"the page has no {head!r} … {tail!r} markers")
        text = text[: start + len(head)] + "\n" + bodies[name] + "\n" + text[stop:]
    return text


def write(path: Path = ARCHITECTURE) -> Path:
    """Regenerate the tables in the page at `path` (written whole, then renamed into place)."""
    fresh = render(path.read_text(encoding="utf-8"))
    temp = path.with_name(path.name + ".tmp")
    temp.write_text(fresh, encoding="utf-8")
    temp.replace(path)
    return path


def is_current(path: Path = ARCHITECTURE) -> bool:
    """Whether the page's tables are exactly what the contract generates now."""
    try:
        text = path.read_text(encoding="utf-8")
        return text == render(text)
    except (FileNotFoundError, ValueError):
        return False
