"""The command line's contract: help works, bad input is one line on stderr, never a traceback."""

from __future__ import annotations

import subprocess
import sys

from referee.cli import main
from referee.errors import UserError


def test_help_lists_commands(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out


def test_user_error_is_one_line(monkeypatch, capsys):
    import referee.cli as cli

    def failing(_args):
        raise UserError("the file   x.yaml\n is broken: fix line 3")

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    parser.set_defaults(handler=failing)
    assert main([]) == 2
    err = capsys.readouterr().err
    assert err == "uno-referee: error: the file x.yaml is broken: fix line 3\n"


def test_module_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "referee", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("uno-referee ")
