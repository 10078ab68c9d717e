"""Spoken announcements that never hold up the camera loop, and always a console line.

:class:`Speaker` prints each announcement at once and hands it to a worker thread that speaks it
through a :class:`Voice` (pyttsx3 + espeak-ng on the Pi). When speech cannot work here (pyttsx3
or espeak-ng missing, no audio player) :func:`open_speaker` says so in one warning line and the
referee carries on with the console only; a voice that fails mid-game does the same.

>>> speaker = RecordingSpeaker("de")
>>> speaker.say("Ben ist dran.")
>>> speaker.said
[('Ben ist dran.', 'de')]
"""

from __future__ import annotations

import ctypes.util
import importlib.util
import queue
import re
import shutil
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

#: espeak-ng voice ids per language, best first (``gmw/…`` is espeak-ng's West Germanic family).
VOICE_IDS: dict[str, tuple[str, ...]] = {
    "de": ("gmw/de", "de", "german"),
    "nl": ("gmw/nl", "nl", "dutch"),
    "en": ("gmw/en", "gmw/en-us", "en", "english"),
}


#: Words a voice says wrongly as written, respelt for speech only (the console keeps the spelling):
#: espeak-ng's Dutch reads "Uno" as [yno], Dutch players say "oe-no".
SPOKEN_RESPELLINGS: dict[str, dict[str, str]] = {"nl": {"Uno": "Oeno"}}

_STOP = object()  # tells the speaker's worker to finish


@dataclass(frozen=True)
class Sentence:
    """One announcement waiting for the voice."""

    text: str
    language: str
    routine: bool = False


def catch_up(waiting: Sequence[Sentence]) -> list[Sentence]:
    """What to say of a backlog so that speech is never more than one utterance behind the game.

    Routine sentences are left out, except the latest one (it says where the game is now); the
    rest is merged into one utterance per language. Nothing else is ever left out.

    >>> backlog = [
    ...     Sentence("Anna legt die rote Sieben.", "de", routine=True),
    ...     Sentence("Ben ist dran.", "de", routine=True),
    ...     Sentence("Falsche Karte: Ben muss eine Karte ziehen.", "de"),
    ...     Sentence("Clara ist dran.", "de", routine=True),
    ... ]
    >>> [s.text for s in catch_up(backlog)]
    ['Falsche Karte: Ben muss eine Karte ziehen. Clara ist dran.']
    >>> catch_up(backlog[:1]) == backlog[:1]
    True
    """
    if len(waiting) <= 1:
        return list(waiting)
    kept = [s for index, s in enumerate(waiting) if not s.routine or index == len(waiting) - 1]
    merged: list[Sentence] = []
    for sentence in kept:
        if merged and merged[-1].language == sentence.language:
            merged[-1] = Sentence(f"{merged[-1].text} {sentence.text}", sentence.language, routine=False)
        else:
            merged.append(sentence)
    return merged


def respelt_for_speech(text: str, language: str) -> str:
    """``text`` as the voice should read it in ``language``.

    >>> respelt_for_speech("Ben roept Uno!", "nl"), respelt_for_speech("Ben ruft Uno!", "de")
    ('Ben roept Oeno!', 'Ben ruft Uno!')
    """
    for written, spoken in SPOKEN_RESPELLINGS.get(language, {}).items():
        text = re.sub(rf"\b{written}\b", spoken, text)
    return text


class Announcer(Protocol):
    """What the referee app talks to: :class:`Speaker` at the table, :class:`RecordingSpeaker` in tests.

    ``routine``: the table can see it for itself (a card played, whose turn it is); when speech
    falls behind, such a sentence is left out unless it is the latest thing said.
    """

    def say(self, text: str, language: str | None = None, *, routine: bool = False) -> None: ...

    def close(self) -> None: ...


class Voice(Protocol):
    """Speaks one sentence and returns when it is done; only ever called from the speaker's worker."""

    def speak(self, text: str, language: str) -> None: ...


class SpeechUnavailable(Exception):
    """Why this machine cannot speak; the message is the second half of the warning line."""


def choose_voice_id(voices: Sequence[Any], language: str) -> str | None:
    """The installed voice closest to ``language``: a known id, else one whose language code matches.

    ``voices`` are pyttsx3 voice objects (``id``, ``languages``).

    >>> from types import SimpleNamespace as V
    >>> installed = [V(id="gmw/en-us", languages=["en-us"]), V(id="gmw/nl", languages=["nl"])]
    >>> choose_voice_id(installed, "nl"), choose_voice_id(installed, "en"), choose_voice_id(installed, "de")
    ('gmw/nl', 'gmw/en-us', None)
    """
    by_id = {voice.id: voice.id for voice in voices}
    for wanted in VOICE_IDS.get(language, (language,)):
        if wanted in by_id:
            return wanted
    for voice in voices:
        codes = [str(code).lower() for code in (getattr(voice, "languages", None) or [])]
        if any(code == language or code.startswith(f"{language}-") for code in codes):
            return voice.id
    return None


class Pyttsx3Voice:
    """pyttsx3 with espeak-ng; the engine is made lazily, on the thread that will use it."""

    def __init__(self, rate: int = 165) -> None:
        self.rate = rate
        self._engine = None
        self._voice_ids: dict[str, str | None] = {}

    @staticmethod
    def check_available() -> None:
        """Raise :class:`SpeechUnavailable` saying what to install; cheap, no engine is started."""
        if importlib.util.find_spec("pyttsx3") is None:
            raise SpeechUnavailable("pyttsx3 is not installed (pip install pyttsx3)")
        if sys.platform.startswith("linux"):
            if not (ctypes.util.find_library("espeak-ng") or ctypes.util.find_library("espeak")):
                raise SpeechUnavailable("espeak-ng is not installed (sudo apt install espeak-ng)")
            if shutil.which("aplay") is None:  # pyttsx3's espeak driver plays through aplay
                raise SpeechUnavailable("no audio player: aplay is missing (sudo apt install alsa-utils)")

    def speak(self, text: str, language: str) -> None:
        if self._engine is None:
            import pyttsx3

            self._engine = pyttsx3.init()
            self._engine.setProperty("rate", self.rate)
        if language not in self._voice_ids:
            self._voice_ids[language] = choose_voice_id(self._engine.getProperty("voices"), language)
        voice_id = self._voice_ids[language]
        if voice_id:
            self._engine.setProperty("voice", voice_id)
        self._engine.say(text)
        self._engine.runAndWait()


class Speaker:
    """Console line now, speech soon: ``say`` returns at once whatever the voice is doing.

    While the voice speaks, what is said queues up; the worker then takes the whole backlog at once
    and, with ``keep_up`` (the default), says it as :func:`catch_up` shortens it, so the voice never
    trails the game by more than one utterance. ``keep_up=False`` says everything (measurements).
    """

    def __init__(
        self,
        voice: Voice | None,
        language: str = "en",
        console: TextIO | None = None,
        *,
        keep_up: bool = True,
    ) -> None:
        self.language = language
        self.voice = voice
        self.keep_up = keep_up
        self._console = console if console is not None else sys.stdout
        self._pending: queue.Queue[Sentence | threading.Event | object] = queue.Queue()
        self._worker: threading.Thread | None = None
        if voice is not None:
            self._worker = threading.Thread(target=self._speak_pending, name="speaker", daemon=True)
            self._worker.start()

    def say(self, text: str, language: str | None = None, *, routine: bool = False) -> None:
        print(f"» {text}", file=self._console, flush=True)
        if self.voice is not None:
            self._pending.put(Sentence(text, language or self.language, routine))

    def wait_until_quiet(self, timeout: float = 10.0) -> bool:
        """Block until everything said so far has been spoken (tests, and before the program exits)."""
        if self._worker is None:
            return True
        reached = threading.Event()
        self._pending.put(reached)  # the worker sets it when it gets there
        return reached.wait(timeout)

    def _speak_pending(self) -> None:
        stopping = False
        while not stopping:
            backlog = [self._pending.get()]
            while not self._pending.empty():  # everything said while the voice was busy
                backlog.append(self._pending.get_nowait())
            sentences = [item for item in backlog if isinstance(item, Sentence)]
            for sentence in catch_up(sentences) if self.keep_up else sentences:
                if self.voice is not None:
                    self._speak(sentence)
            for item in backlog:
                if isinstance(item, threading.Event):
                    item.set()
            stopping = _STOP in backlog

    def _speak(self, sentence: Sentence) -> None:
        try:
            self.voice.speak(respelt_for_speech(sentence.text, sentence.language), sentence.language)
        except Exception as error:  # any engine failure: keep refereeing with the console only
            warning = f"speech stopped ({type(error).__name__}: {error}); console only"
            print(f"uno-referee: warning: {warning}", file=sys.stderr)
            self.voice = None

    def close(self, timeout: float = 5.0) -> None:
        """Speak what is queued (up to ``timeout``), then stop the worker."""
        if self._worker is not None:
            self._pending.put(_STOP)
            self._worker.join(timeout)
            self._worker = None


def open_speaker(enabled: bool, language: str, rate: int = 165, console: TextIO | None = None) -> Speaker:
    """The table's speaker: with a voice where this machine can speak, else console only plus one warning."""
    if not enabled:
        return Speaker(None, language, console)
    try:
        Pyttsx3Voice.check_available()
    except SpeechUnavailable as reason:
        print(f"uno-referee: warning: speech off, console only: {reason}", file=sys.stderr)
        return Speaker(None, language, console)
    return Speaker(Pyttsx3Voice(rate), language, console)


class RecordingSpeaker:
    """The test double: remembers every announcement with its language, synchronously."""

    def __init__(self, language: str = "en") -> None:
        self.language = language
        self.said: list[tuple[str, str]] = []
        #: The sentences said as ``routine`` (left out when speech falls behind).
        self.routine: list[str] = []
        self.closed = False

    def say(self, text: str, language: str | None = None, *, routine: bool = False) -> None:
        self.said.append((text, language or self.language))
        if routine:
            self.routine.append(text)

    def close(self) -> None:
        self.closed = True
