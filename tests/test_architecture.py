"""The sizes docs/ARCHITECTURE.md and CONTRIBUTING.md hold the code to, checked rather
than only written: no class over 250 lines (from its `class` line to its last), and a
README that stays a front door (under 200 lines, none over 400 characters). The page's
functions are held under 200 lines by ESLint (`max-lines-per-function`, eslint.config.mjs)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "flyingchess"
LONGEST_CLASS = 250
README_LINES = 200
README_LINE_CHARACTERS = 400


def long_classes(source: str, name: str) -> list[str]:
    """Every class in `source` over LONGEST_CLASS lines, as `name:line Class (N lines)`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
            lines = node.end_lineno - node.lineno + 1
            if lines > LONGEST_CLASS:
                found.append(f"{name}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_the_check_sees_a_class_over_the_limit() -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(LONGEST_CLASS))
    assert long_classes(f"class Big:\n{body}", "big.py") == [f"big.py:1 Big ({LONGEST_CLASS + 1} lines)"]
    assert long_classes(f"class Fits:\n{body[: body.rindex('    x')]}", "fits.py") == []


def test_no_class_in_the_package_is_over_250_lines() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 50, "the package's modules were not found"
    found = [item for path in modules for item in long_classes(path.read_text(), str(path.relative_to(ROOT)))]
    assert found == [], "split these by concern:\n" + "\n".join(found)


def test_the_readme_stays_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_LINES, f"README.md has {len(lines)} lines: move detail into docs/"
    long = [
        f"line {number}: {len(line)} characters"
        for number, line in enumerate(lines, 1)
        if len(line) > README_LINE_CHARACTERS
    ]
    assert long == [], "\n".join(long)


def test_the_static_sites_archive_leaves_out_what_a_page_cannot_run() -> None:
    """The browser's copy of the package (server/site.py, LEFT_OUT) holds the engine, the
    bots and the in-browser app, but not the command, the clients, the simulator in
    processes or the cluster: a folder moved without its entry there would ship again."""
    import io
    import zipfile

    from flyingchess.server.site import python_archive

    names = zipfile.ZipFile(io.BytesIO(python_archive())).namelist()
    assert "flyingchess/engine/game.py" in names and "flyingchess/server/transport/in_browser.py" in names
    for left_out in (
        "flyingchess/cli/",
        "flyingchess/clients/",
        "flyingchess/simulation/",
        "flyingchess/server/cluster/",
    ):
        assert not [name for name in names if name.startswith(left_out)], left_out
