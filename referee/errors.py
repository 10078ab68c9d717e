"""The one exception type that reaches the user.

Every bad input (a malformed scenario, an unknown card name, a broken config, a missing model
file, a camera that does not open) raises :class:`UserError` with a single line that says what to
fix. The command line prints that line and exits with status 2 — never a traceback.
"""

from __future__ import annotations


class UserError(Exception):
    """A problem the user can fix; ``str(error)`` is one line that says how."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))
