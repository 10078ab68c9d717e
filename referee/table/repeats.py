"""Say a repeated sentence once, then at most every few seconds.

A refusal or a prompt that repeats while nothing else is said (the same card refused again and
again, a prompt nobody answers) helps nobody the tenth time: the table heard it. The referee still
judges and records every one (journal, event stream); only the voice holds back.

>>> quiet = RepeatFilter(every_s=5.0)
>>> [quiet.should_say("Anna, not your turn.", t) for t in (0.0, 1.0, 4.0, 5.5, 6.0)]
[True, False, False, True, False]
>>> quiet.should_say("Ben's turn.", 6.1), quiet.should_say("Anna, not your turn.", 6.2)
(True, True)
"""

from __future__ import annotations

#: Seconds before a sentence that keeps repeating is said again.
REPEAT_EVERY_S = 5.0


class RepeatFilter:
    """Remembers the last sentence said and when; any other sentence starts afresh."""

    def __init__(self, every_s: float = REPEAT_EVERY_S) -> None:
        self.every_s = every_s
        self._last: str | None = None
        self._said_at = 0.0

    def should_say(self, sentence: str, now: float) -> bool:
        """True when ``sentence`` is news, or repeats and was last said ``every_s`` or longer ago."""
        if sentence == self._last and now - self._said_at < self.every_s:
            return False
        self._last, self._said_at = sentence, now
        return True
