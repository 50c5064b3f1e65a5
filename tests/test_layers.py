"""The package's layers stand one above the other: the command line (``lastmile.cli*``) uses
the library, never the other way round. The report, the plots, sweeps and reproductions
take what they need from library modules (e.g. `lastmile.run_dir`), so that they work
from Python without the CLI and a change to the CLI cannot break them.

Read from the source with `ast` (imports inside functions included), not by importing.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "lastmile"


def _is_cli(module: str) -> bool:
    leaf = module.rsplit(".", 1)[-1]
    return leaf == "cli" or leaf.startswith("cli_") or leaf == "__main__"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module of the lastmile package that `source` (the module `module`) imports,
    by absolute name."""
    package = module if is_package else module.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in found if m == "lastmile" or m.startswith("lastmile.")}


def test_no_library_module_imports_the_command_line() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = _module_name(path)
        if _is_cli(name):
            continue
        source = path.read_text(encoding="utf-8")
        imported = _imports(source, name, is_package=path.name == "__init__.py")
        cli = sorted(m for m in imported if _is_cli(m))
        if cli:
            offenders.append(f"{name} imports {', '.join(cli)}")
    assert not offenders, "library modules importing the CLI:\n" + "\n".join(offenders)


def test_the_check_sees_imports_inside_functions_and_relative_ones() -> None:
    source = "def page():\n    from lastmile.cli_view import read_summary\n"
    assert "lastmile.cli_view" in _imports(source, "lastmile.report.run")
    assert "lastmile.cli_view" in _imports("from ..cli_view import x\n", "lastmile.report.run")
    assert "lastmile.cli" in _imports("from . import cli\n", "lastmile", is_package=True)
