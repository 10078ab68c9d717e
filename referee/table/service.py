"""The referee as a systemd service: it starts with the Pi, restarts after a crash, logs to journald.

:func:`unit_text` writes the unit; :class:`ServiceManager` installs, removes and reports it through
``systemctl``, which is reached through one small runner so that the tests use a fake one.

The unit waits for the camera and the sound card before it starts the referee (up to a minute, for
a USB camera that is slow to appear); when ``uno-referee run`` still refuses (its fatal checks:
calibration, camera, …) it exits with an error and systemd starts it again ten seconds later.
"""

from __future__ import annotations

import getpass
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from referee.errors import UserError

UNIT_NAME = "uno-referee.service"
#: Seconds the unit waits for its devices before giving up (and systemd trying again).
DEVICE_WAIT_S = 60

Runner = Callable[[Sequence[str]], subprocess.CompletedProcess]


def camera_devices(source: str) -> str:
    """The device files that show the camera is there, as a shell pattern ('' for a file or a stream).

    >>> camera_devices("0"), camera_devices("picamera"), camera_devices("game.mp4")
    ('/dev/video0', '/dev/video*', '')
    """
    text = str(source).strip()
    if text.isdigit():
        return f"/dev/video{text}"
    if text.lower() in ("picamera", "picamera2", "pi"):
        return "/dev/video*"  # libcamera's nodes; their numbers differ between Pi models
    return ""


def unit_text(
    command: Sequence[str], *, user: str | None, camera_pattern: str, wait_s: int = DEVICE_WAIT_S
) -> str:
    """The unit file: ``user`` None is a user service (``systemctl --user``), else a system one as ``user``.

    The device wait is a shell loop; ``$$`` is how a unit file writes the shell's ``$``.
    """
    waits = ["/dev/snd/controlC*"] + ([camera_pattern] if camera_pattern else [])
    found = " && ".join(f"ls {pattern} >/dev/null 2>&1" for pattern in waits)
    wait = (
        f"for i in $$(seq {wait_s}); do {found} && exit 0; sleep 1; done; "
        "echo no camera or sound card; exit 1"
    )
    lines = [
        "# Written by `uno-referee service install`; remove with `uno-referee service uninstall`.",
        "# The referee's log: journalctl -u uno-referee (docs/hardware.md, section 11).",
        "[Unit]",
        "Description=UNO referee over the table (uno-referee run)",
        "After=sound.target network.target",
        "Wants=sound.target",
        "StartLimitIntervalSec=0",
        "",
        "[Service]",
        "Type=simple",
    ]
    if user is not None:
        lines.append(
            f"User={user}"
        )  # in the groups video, audio and gpio, as Raspberry Pi OS's first user is
    lines += [
        f'ExecStartPre=/bin/sh -c "{wait}"',
        f"ExecStart={shlex.join(command)}",
        "Restart=on-failure",
        "RestartSec=10",
        "Environment=PYTHONUNBUFFERED=1",
        "StandardOutput=journal",
        "StandardError=journal",
        "SyslogIdentifier=uno-referee",
        "",
        "[Install]",
        f"WantedBy={'multi-user.target' if user is not None else 'default.target'}",
        "",
    ]
    return "\n".join(lines)


def _systemctl(args: Sequence[str]) -> subprocess.CompletedProcess:
    if shutil.which("systemctl") is None:
        raise UserError("systemctl not found: `uno-referee service` needs systemd (Raspberry Pi OS, Debian)")
    return subprocess.run(["systemctl", *args], capture_output=True, text=True)


@dataclass
class ServiceManager:
    """Install, remove and report the unit, for the user (``--user``) or for the whole system."""

    user_service: bool
    #: Runs ``systemctl ARGS``; None: the real one.
    runner: Runner | None = None
    unit_dir: Path | None = None

    @property
    def unit_path(self) -> Path:
        if self.unit_dir is not None:
            return self.unit_dir / UNIT_NAME
        if self.user_service:
            config_home = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
            return Path(config_home) / "systemd" / "user" / UNIT_NAME
        return Path("/etc/systemd/system") / UNIT_NAME

    def journal_command(self) -> str:
        """How to read the referee's log."""
        return f"journalctl {'--user ' if self.user_service else ''}-u uno-referee -f"

    def install(self, config: Path | None, camera_source: str) -> list[str]:
        """Write the unit and enable it; returns what to tell the user."""
        command = [sys.executable, "-m", "referee", "run"]
        if config is not None:
            command += ["--config", str(config.expanduser().resolve())]
        user = None if self.user_service else (os.environ.get("SUDO_USER") or getpass.getuser())
        text = unit_text(command, user=user, camera_pattern=camera_devices(camera_source))
        try:
            self.unit_path.parent.mkdir(parents=True, exist_ok=True)
            self.unit_path.write_text(text, encoding="utf-8")
        except PermissionError:
            raise UserError(
                f"cannot write {self.unit_path}: run it with sudo, or install a user service with --user"
            ) from None
        self._systemctl("daemon-reload")
        self._systemctl("enable", UNIT_NAME)
        told = [f"installed {self.unit_path} and enabled it: the referee starts with the Pi"]
        if self.user_service:
            told.append(
                f"to start it at boot without a login: sudo loginctl enable-linger {getpass.getuser()}"
            )
        scope = "--user " if self.user_service else ""
        told += [f"start it now: systemctl {scope}start uno-referee", f"its log: {self.journal_command()}"]
        return told

    def uninstall(self) -> list[str]:
        if not self.unit_path.exists():
            return [f"no service installed ({self.unit_path} does not exist)"]
        self._systemctl("disable", "--now", UNIT_NAME)
        try:
            self.unit_path.unlink()
        except PermissionError:
            raise UserError(f"cannot remove {self.unit_path}: run it with sudo") from None
        self._systemctl("daemon-reload")
        return [f"stopped, disabled and removed {self.unit_path}"]

    def status(self) -> list[str]:
        if not self.unit_path.exists():
            return [f"not installed ({self.unit_path} does not exist): uno-referee service install"]
        enabled = self._systemctl("is-enabled", UNIT_NAME, check=False).stdout.strip() or "unknown"
        active = self._systemctl("is-active", UNIT_NAME, check=False).stdout.strip() or "unknown"
        return [f"{self.unit_path}: {enabled}, {active}", f"its log: {self.journal_command()}"]

    def _systemctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        scope = ["--user"] if self.user_service else []
        result = (self.runner or _systemctl)([*scope, *args])
        if check and result.returncode != 0:
            why = (result.stderr or result.stdout).strip().splitlines()
            raise UserError(
                f"systemctl {' '.join([*scope, *args])} failed: {why[-1] if why else result.returncode}"
            )
        return result
