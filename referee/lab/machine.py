"""Which machine a benchmark ran on: a figure without it cannot be compared with a Raspberry Pi's.

>>> line = describe_machine()
>>> line.startswith("machine: ") and " cores, " in line
True
"""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path


def _cpu_model(cpuinfo: str) -> str:
    """The CPU (or, on a Pi, the board) named in ``/proc/cpuinfo``.

    >>> _cpu_model("processor : 0\\nModel : Raspberry Pi 5 Model B Rev 1.0\\n")
    'Raspberry Pi 5 Model B Rev 1.0'
    >>> _cpu_model("model\\t\\t: 167\\nmodel name\\t: Intel(R) Xeon(R) Processor\\n")
    'Intel(R) Xeon(R) Processor'
    """
    found: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        key, separator, value = line.partition(":")
        if separator:
            found.setdefault(key.strip(), value.strip())
    # "Model" (capital M) names a Pi's board; x86's lower-case "model" is only a number
    return found.get("Model") or found.get("model name") or found.get("Hardware") or ""


def _os_name() -> str:
    try:
        release = Path("/etc/os-release").read_text(encoding="utf-8")
    except OSError:
        return f"{platform.system()} {platform.release()}"
    pretty = next(
        (
            line.split("=", 1)[1].strip('"')
            for line in release.splitlines()
            if line.startswith("PRETTY_NAME=")
        ),
        "",
    )
    return pretty or platform.system()


def describe_machine() -> str:
    """One line: CPU model, cores, operating system, architecture, Python."""
    try:
        cpu = _cpu_model(Path("/proc/cpuinfo").read_text(encoding="utf-8"))
    except OSError:
        cpu = ""
    cpu = cpu or platform.processor() or "unknown CPU"
    return (
        f"machine: {cpu}, {os.cpu_count() or 1} cores, {_os_name()} ({platform.machine()}), "
        f"Python {platform.python_version()}"
    )


def print_machine(_args: object = None) -> None:
    """Said by ``bench vision``, ``bench table`` and ``bench speech`` after their figures (on stderr,
    beside their other context lines: standard output keeps only the figures)."""
    print(describe_machine(), file=sys.stderr, flush=True)
