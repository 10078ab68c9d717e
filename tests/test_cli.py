"""The command line's contract: help works, bad input is one line on stderr, never a traceback."""

from __future__ import annotations

import subprocess
import sys

from referee.cli import main
from referee.errors import UserError


def test_help_lists_commands(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def main_raising(monkeypatch, error: Exception) -> int:
    """The command line with a command that fails with ``error``."""
    import referee.cli as cli

    def failing(_args):
        raise error

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    parser.set_defaults(handler=failing)
    return main([])


def test_user_error_is_one_line(monkeypatch, capsys):
    assert main_raising(monkeypatch, UserError("the file   x.yaml\n is broken: fix line 3")) == 2
    err = capsys.readouterr().err
    assert err == "uno-referee: error: the file x.yaml is broken: fix line 3\n"


def test_module_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "referee", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("uno-referee ")


def _cli_without_opencv(*argv: str) -> subprocess.CompletedProcess:
    """The command line in a fresh Python where ``import cv2`` fails, as on a Pi OS Lite without libxcb."""
    script = (
        "import sys\n"
        "sys.modules['cv2'] = None\n"
        "from referee.cli import main\n"
        f"raise SystemExit(main({list(argv)!r}))\n"
    )
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)


def test_help_and_version_need_no_opencv():
    for argv in (["--version"], ["--help"], ["bench", "--help"], ["scenarios", "--help"]):
        result = _cli_without_opencv(*argv)
        assert result.returncode == 0, (argv, result.stderr)
        assert "Traceback" not in result.stderr


def test_a_command_that_needs_opencv_says_what_to_install():
    result = _cli_without_opencv("bench", "table", "--quick")
    assert result.returncode == 2
    assert result.stderr == (
        "uno-referee: error: OpenCV is not installed in this Python: .venv/bin/pip install opencv-python "
        "(docs/hardware.md §1)\n"
    )


def test_a_missing_system_library_names_the_debian_packages(monkeypatch, capsys):
    missing = ImportError("libxcb.so.1: cannot open shared object file: No such file or directory")
    assert main_raising(monkeypatch, missing) == 2
    assert capsys.readouterr().err == (
        "uno-referee: error: a system library is missing: libxcb.so.1; install it with: "
        "sudo apt install libxcb1 libgl1 libglib2.0-0 (docs/hardware.md §1)\n"
    )


def test_an_import_error_of_our_own_stays_an_internal_error(monkeypatch, capsys):
    assert main_raising(monkeypatch, ImportError("cannot import name 'nothing' from 'referee.rules'")) == 3
    assert "internal error: ImportError" in capsys.readouterr().err


def test_every_command_has_help(capsys):
    """Every sub-command's --help prints (argparse formats help texts with %: one stray % crashed it)."""
    from referee.cli import COMMAND_MODULES, main

    for name in COMMAND_MODULES:
        assert main([name, "--help"]) == 0, name
        assert "usage:" in capsys.readouterr().out
