"""``uno-referee service``: the systemd unit's text, and install/uninstall/status through a fake systemctl."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

import referee.table.service as service
from referee.cli import main
from referee.errors import UserError
from referee.table.service import UNIT_NAME, ServiceManager, unit_text


class FakeSystemctl:
    def __init__(self, failing: str = "") -> None:
        self.calls: list[list[str]] = []
        self.failing = failing

    def __call__(self, args):
        self.calls.append(list(args))
        if self.failing and self.failing in args:
            return subprocess.CompletedProcess(
                ["systemctl", *args], 1, "", "Failed to enable unit: Access denied\n"
            )
        answers = {"is-enabled": "enabled\n", "is-active": "activating\n"}
        asked = args[-2] if len(args) > 1 else ""
        return subprocess.CompletedProcess(["systemctl", *args], 0, answers.get(asked, ""), "")


def test_the_unit_restarts_on_failure_logs_to_journald_and_waits_for_its_devices():
    text = unit_text(
        ["/home/pi/uno/.venv/bin/python", "-m", "referee", "run"], user="pi", camera_pattern="/dev/video0"
    )
    lines = text.splitlines()
    for line in (
        "User=pi",
        "Restart=on-failure",
        "StandardOutput=journal",
        "StandardError=journal",
        "SyslogIdentifier=uno-referee",
        "ExecStart=/home/pi/uno/.venv/bin/python -m referee run",
        "WantedBy=multi-user.target",
        "After=sound.target network.target",
    ):
        assert line in lines, line
    wait = next(line for line in lines if line.startswith("ExecStartPre="))
    assert "ls /dev/snd/controlC*" in wait and "ls /dev/video0" in wait and "$$(seq 60)" in wait
    user_unit = unit_text(["x"], user=None, camera_pattern="")
    assert "WantedBy=default.target" in user_unit and "User=" not in user_unit and "video" not in user_unit


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_reads_the_unit_without_a_complaint(tmp_path):
    path = tmp_path / UNIT_NAME
    path.write_text(
        unit_text([sys.executable, "-m", "referee", "run"], user="root", camera_pattern="/dev/video*")
    )
    result = subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True)
    assert result.stdout + result.stderr == ""


def test_install_status_uninstall_through_systemctl(tmp_path):
    fake = FakeSystemctl()
    manager = ServiceManager(user_service=False, runner=fake, unit_dir=tmp_path)
    told = manager.install(tmp_path / "referee.toml", "picamera")
    text = (tmp_path / UNIT_NAME).read_text()
    assert f"ExecStart={sys.executable} -m referee run --config {tmp_path / 'referee.toml'}" in text
    assert "ls /dev/video*" in text
    assert fake.calls == [["daemon-reload"], ["enable", UNIT_NAME]]
    assert told[-1] == "its log: journalctl -u uno-referee -f"
    assert manager.status()[0] == f"{tmp_path / UNIT_NAME}: enabled, activating"
    assert manager.uninstall() == [f"stopped, disabled and removed {tmp_path / UNIT_NAME}"]
    assert fake.calls[-2:] == [["disable", "--now", UNIT_NAME], ["daemon-reload"]]
    assert not (tmp_path / UNIT_NAME).exists()
    assert manager.status()[0].startswith("not installed")


def test_a_user_service_uses_systemctl_user_and_says_how_to_start_it_at_boot(tmp_path):
    fake = FakeSystemctl()
    told = ServiceManager(user_service=True, runner=fake, unit_dir=tmp_path).install(None, "0")
    assert fake.calls == [["--user", "daemon-reload"], ["--user", "enable", UNIT_NAME]]
    assert any("loginctl enable-linger" in line for line in told)
    assert "journalctl --user -u uno-referee -f" in told[-1]


def test_a_failing_systemctl_is_one_line(tmp_path):
    manager = ServiceManager(user_service=False, runner=FakeSystemctl(failing="enable"), unit_dir=tmp_path)
    with pytest.raises(
        UserError, match=r"^systemctl enable uno-referee.service failed: Failed to enable unit"
    ):
        manager.install(None, "0")


def test_the_command_installs_a_user_unit(tmp_path, monkeypatch, capsys):
    fake = FakeSystemctl()
    monkeypatch.setattr(service, "_systemctl", fake)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    config = tmp_path / "referee.toml"
    config.write_text('players = ["Anna", "Ben"]\n')
    assert main(["service", "install", "--user", "--config", str(config)]) == 0
    assert (tmp_path / "systemd" / "user" / UNIT_NAME).is_file()
    assert "installed" in capsys.readouterr().out
    assert main(["service", "status", "--user"]) == 0
    assert main(["service", "uninstall", "--user"]) == 0
    assert not (tmp_path / "systemd" / "user" / UNIT_NAME).exists()
