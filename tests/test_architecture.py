"""The dependency rule of the design: the rules core is pure, and everything else depends on it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORE = REPO / "referee" / "rules"
#: The one module outside the core that the core may use: the user-facing error type.
CORE_MAY_IMPORT = ("referee.rules", "referee.errors")
#: Standard-library modules that do I/O, processes or clocks: none of them belong in the core.
IMPURE_STDLIB = {
    "os",
    "io",
    "sys",
    "time",
    "socket",
    "sqlite3",
    "subprocess",
    "multiprocessing",
    "threading",
    "pathlib",
    "shutil",
    "tempfile",
    "logging",
    "datetime",
    "cProfile",
    "pstats",
    "builtins",
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_rules_core_imports_only_the_standard_library_and_itself():
    offenders = []
    for path in sorted(CORE.glob("*.py")):
        for name in imported_modules(path):
            top = name.split(".")[0]
            if name.startswith(CORE_MAY_IMPORT):
                continue
            if top not in sys.stdlib_module_names or top in IMPURE_STDLIB:
                offenders.append(f"{path.relative_to(REPO)} imports {name}")
    assert offenders == []


def test_rules_core_calls_no_print_or_open():
    offenders = []
    for path in sorted(CORE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("print", "open", "input")
            ):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno} calls {node.func.id}()")
    assert offenders == []


#: What runs at the table. The workbench (simulation, benchmarks, evaluation, training) and the
#: renderer sit beside it and may use it, never the other way round.
RUNTIME_ROOMS = ("referee/rules", "referee/vision", "referee/table", "hardware", "calibration")
WORKBENCH = ("referee.lab", "referee.render")


def test_runtime_never_imports_the_workbench():
    offenders = []
    for room in RUNTIME_ROOMS:
        for path in sorted((REPO / room).rglob("*.py")):
            for name in imported_modules(path):
                if name.startswith(WORKBENCH):
                    offenders.append(f"{path.relative_to(REPO)} imports {name}")
    assert offenders == []
