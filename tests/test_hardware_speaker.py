"""The speaker: console at once, speech on a worker that never holds up the caller, graceful fallbacks."""

from __future__ import annotations

import io
import threading
import time

import pytest

import hardware.speaker as speaker_module
from hardware.speaker import RecordingSpeaker, Speaker, choose_voice_id, open_speaker


class SlowVoice:
    """Speaks only when the test lets it: shows that `say` does not wait for the voice."""

    def __init__(self) -> None:
        self.spoken: list[tuple[str, str]] = []
        self.release = threading.Event()

    def speak(self, text: str, language: str) -> None:
        self.release.wait(5)
        self.spoken.append((text, language))


class BrokenVoice:
    def __init__(self) -> None:
        self.calls = 0

    def speak(self, text: str, language: str) -> None:
        self.calls += 1
        raise OSError("audio device busy")


def test_say_returns_at_once_prints_now_and_speaks_in_order():
    voice, console = SlowVoice(), io.StringIO()
    speaker = Speaker(voice, "de", console)
    started = time.perf_counter()
    speaker.say("Ben ist dran.")
    speaker.say("Ben is aan de beurt.", "nl")
    elapsed = time.perf_counter() - started
    assert elapsed < 0.05, f"say() blocked for {elapsed:.3f} s"
    assert console.getvalue() == "» Ben ist dran.\n» Ben is aan de beurt.\n"
    assert voice.spoken == []
    voice.release.set()
    assert speaker.wait_until_quiet(5)
    assert voice.spoken == [("Ben ist dran.", "de"), ("Ben is aan de beurt.", "nl")]
    speaker.close()


def test_dutch_uno_is_printed_as_written_and_spoken_as_players_say_it():
    voice, console = SlowVoice(), io.StringIO()
    voice.release.set()
    speaker = Speaker(voice, "nl", console)
    speaker.say("Ben roept Uno!")
    speaker.say("Ben ruft Uno!", "de")
    assert speaker.wait_until_quiet(5)
    speaker.close()
    assert console.getvalue() == "» Ben roept Uno!\n» Ben ruft Uno!\n"
    assert voice.spoken == [("Ben roept Oeno!", "nl"), ("Ben ruft Uno!", "de")]


def test_voice_failure_leaves_the_console_and_one_warning(capsys):
    voice = BrokenVoice()
    speaker = Speaker(voice, "en", io.StringIO())
    for text in ("Anna's turn.", "Ben's turn.", "Clara's turn."):
        speaker.say(text)
    speaker.wait_until_quiet(5)
    speaker.close()
    warnings = capsys.readouterr().err.strip().splitlines()
    assert voice.calls == 1
    assert warnings == ["uno-referee: warning: speech stopped (OSError: audio device busy); console only"]


def test_speech_disabled_is_console_only(capsys):
    console = io.StringIO()
    speaker = open_speaker(False, "nl", console=console)
    speaker.say("Anna is aan de beurt.")
    speaker.close()
    assert speaker.voice is None and console.getvalue() == "» Anna is aan de beurt.\n"
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    ("espeak", "aplay", "reason"),
    [(None, "/usr/bin/aplay", "espeak-ng is not installed"), ("libespeak-ng.so.1", None, "aplay is missing")],
)
def test_missing_speech_pieces_degrade_with_one_line(monkeypatch, capsys, espeak, aplay, reason):
    monkeypatch.setattr(speaker_module.sys, "platform", "linux")
    monkeypatch.setattr(speaker_module.ctypes.util, "find_library", lambda name: espeak)
    monkeypatch.setattr(speaker_module.shutil, "which", lambda name: aplay)
    speaker = open_speaker(True, "de", console=io.StringIO())
    assert speaker.voice is None
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and reason in err and "console only" in err


def test_voice_choice_prefers_espeak_ng_ids_then_language_codes():
    from types import SimpleNamespace as V

    installed = [
        V(id="gmw/de", languages=["de"]),
        V(id="roa/fr", languages=["fr"]),
        V(id="x/nl-be", languages=["nl-be"]),
    ]
    assert choose_voice_id(installed, "de") == "gmw/de"
    assert choose_voice_id(installed, "nl") == "x/nl-be"
    assert choose_voice_id(installed, "en") is None


def test_installed_espeak_has_a_voice_per_language():
    pyttsx3 = pytest.importorskip("pyttsx3")
    try:
        engine = pyttsx3.init()
    except RuntimeError:
        pytest.skip("espeak-ng is not installed here")
    voices = engine.getProperty("voices")
    assert [choose_voice_id(voices, language) for language in ("de", "nl", "en")] == [
        "gmw/de",
        "gmw/nl",
        "gmw/en",
    ]


def test_recording_speaker_is_an_announcer():
    speaker = RecordingSpeaker("nl")
    speaker.say("Anna is aan de beurt.")
    speaker.say("Anna's turn.", "en")
    speaker.close()
    assert speaker.said == [("Anna is aan de beurt.", "nl"), ("Anna's turn.", "en")] and speaker.closed


class GatedVoice:
    """Speaks the first sentence only when the test opens the gate; every later one at once."""

    def __init__(self) -> None:
        self.spoken: list[str] = []
        self.started = threading.Event()
        self.gate = threading.Event()

    def speak(self, text: str, language: str) -> None:
        self.started.set()
        self.gate.wait(5)
        self.spoken.append(text)


def say_while_the_voice_is_busy(speaker: Speaker, voice: GatedVoice) -> None:
    speaker.say("Anna plays the red seven.", routine=True)
    assert voice.started.wait(5)  # the voice is busy with the first sentence
    speaker.say("Ben's turn.", routine=True)
    speaker.say("Ben plays the red skip.", routine=True)
    speaker.say("Wrong card: Ben has to draw one card.")
    speaker.say("Clara plays the blue two.", routine=True)
    speaker.say("Anna's turn.", routine=True)
    voice.gate.set()
    assert speaker.wait_until_quiet(5)
    speaker.close()


def test_a_backlog_is_said_as_one_utterance_without_the_stale_routine():
    voice = GatedVoice()
    say_while_the_voice_is_busy(Speaker(voice, "en", io.StringIO()), voice)
    assert voice.spoken == ["Anna plays the red seven.", "Wrong card: Ben has to draw one card. Anna's turn."]


def test_without_keeping_up_every_sentence_is_said():
    voice = GatedVoice()
    say_while_the_voice_is_busy(Speaker(voice, "en", io.StringIO(), keep_up=False), voice)
    assert len(voice.spoken) == 6
