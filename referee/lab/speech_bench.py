"""``uno-referee bench speech``: does the voice keep up with a fast game?

A simulated match (the rules simulator's random players) is refereed through the real
:class:`~referee.table.app.RefereeApp` at a fixed pace, ``--interval`` seconds per observation, and
its sentences go to the real :class:`~hardware.speaker.Speaker`. Its voice is espeak-ng
synthesising each utterance to a WAV file and then staying busy for as long as that audio lasts,
as if it were played: real synthesis and real sentence lengths, no sound card needed.

Printed: sentences, utterances, routine sentences left out, and how far speech trails the game,
as the delay from a sentence being printed to its utterance starting and as the number of
observations made meanwhile. ``--no-keep-up`` says every sentence, for comparison.
"""

from __future__ import annotations

import argparse
import bisect
import io
import shutil
import statistics
import subprocess
import tempfile
import time
import wave
from dataclasses import dataclass, field
from pathlib import Path

from hardware.speaker import VOICE_IDS, Speaker, respelt_for_speech
from referee.errors import UserError
from referee.rules import Rules, Table, observation_from_dict
from referee.rules.simulator import RandomPlayer, Simulator
from referee.table.app import RefereeApp
from referee.table.phrases import LANGUAGES, PhraseBook

NAMES = ("Anna", "Ben", "Clara")


class EspeakFileVoice:
    """espeak-ng into a WAV file, then busy for the audio's length: a speaker without a sound card."""

    def __init__(self, folder: Path, rate: int = 165, clock=time.monotonic) -> None:
        if shutil.which("espeak-ng") is None:
            raise UserError("espeak-ng is not installed: sudo apt install espeak-ng")
        self.folder = folder
        self.rate = rate
        self.clock = clock
        #: (start, text) of every utterance, and the seconds of audio made.
        self.utterances: list[tuple[float, str]] = []
        self.audio_s = 0.0

    def speak(self, text: str, language: str) -> None:
        started = self.clock()
        self.utterances.append((started, text))
        path = self.folder / f"{len(self.utterances):05d}.wav"
        voice = VOICE_IDS[language][0]
        command = ["espeak-ng", "-v", voice, "-s", str(self.rate), "-w", str(path), text]
        subprocess.run(command, check=True, capture_output=True)
        with wave.open(str(path), "rb") as audio:
            seconds = audio.getnframes() / audio.getframerate()
        self.audio_s += seconds
        time.sleep(max(0.0, started + seconds - self.clock()))


@dataclass
class TimedSpeaker:
    """The table's speaker, noting when each sentence was said and how many observations came before."""

    speaker: Speaker
    #: (when, text, language) of every sentence said.
    said: list[tuple[float, str, str]] = field(default_factory=list)

    def say(self, text: str, language: str | None = None, *, routine: bool = False) -> None:
        language = language or self.speaker.language
        self.said.append((time.monotonic(), text, language))
        self.speaker.say(text, language, routine=routine)

    def close(self) -> None:
        self.speaker.close(timeout=120)


@dataclass(frozen=True)
class SpeechLag:
    sentences: int
    utterances: int
    left_out: int
    delays_s: list[float]
    observations_behind: list[int]
    audio_s: float

    def summary(self) -> str:
        delays, behind = self.delays_s or [0.0], self.observations_behind or [0]
        return (
            f"{self.sentences} sentences in {self.utterances} utterances, {self.left_out} routine left out; "
            f"speech trails by median {statistics.median(delays):.1f} s, max {max(delays):.1f} s "
            f"(at most {max(behind)} observations behind); {self.audio_s:.0f} s of audio"
        )


def measure(
    said: list[tuple[float, str, str]], voice: EspeakFileVoice, observation_times: list[float]
) -> SpeechLag:
    """Match every sentence to the utterance that said it.

    The speaker takes its whole backlog when it starts an utterance, so a sentence is in one of the
    first two utterances that start after it was said (two: it may arrive while the backlog is
    being shortened), or it was left out; a later utterance with the same words is a later sentence.
    """
    delays, behind, left_out = [], [], 0
    starts = [start for start, _ in voice.utterances]
    one_each = len(starts) == len(said)  # nothing merged or left out (--no-keep-up): in order
    for index, (said_at, text, language) in enumerate(said):
        spoken = respelt_for_speech(text, language)
        first = index if one_each else bisect.bisect_left(starts, said_at)
        candidates = range(first, min(first + 2, len(starts)))
        found = next((i for i in candidates if spoken in voice.utterances[i][1]), None)
        if found is None:
            left_out += 1
            continue
        started = starts[found]
        delays.append(started - said_at)
        behind.append(sum(1 for t in observation_times if said_at < t <= started))
    return SpeechLag(len(said), len(voice.utterances), left_out, delays, behind, voice.audio_s)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--steps", type=int, default=60, help="observations to referee (default 60)")
    parser.add_argument(
        "--interval", type=float, default=1.0, help="seconds between observations (default 1: a fast table)"
    )
    parser.add_argument("--language", choices=LANGUAGES, default="de")
    parser.add_argument(
        "--rate", type=int, default=165, help="words a minute, as [speech] rate (default 165)"
    )
    parser.add_argument("--seed", type=int, default=1, help="which simulated match")
    parser.add_argument("--no-keep-up", action="store_true", help="say every sentence (the old behaviour)")


def run(args: argparse.Namespace) -> int:
    if args.steps < 1 or args.interval < 0:
        raise UserError("--steps must be at least 1 and --interval not negative")
    with tempfile.TemporaryDirectory(prefix="uno-speech-") as folder:
        voice = EspeakFileVoice(Path(folder), args.rate)
        lag = play(args, voice)
    mode = "every sentence said" if args.no_keep_up else "keeping up"
    print(
        f"speech ({mode}, espeak-ng {VOICE_IDS[args.language][0]} at {args.rate} wpm), "
        f"{args.steps} observations {args.interval:g} s apart: {lag.summary()}"
    )
    return 0


def play(args: argparse.Namespace, voice: EspeakFileVoice) -> SpeechLag:
    """Referee ``args.steps`` simulated observations at the pace asked, speaking through ``voice``."""
    rules = Rules.preset("official")
    simulator = Simulator({name: RandomPlayer() for name in NAMES}, rules, seed=args.seed)
    speaker = TimedSpeaker(Speaker(voice, args.language, console=io.StringIO(), keep_up=not args.no_keep_up))
    app = RefereeApp(Table.deal(NAMES, rules), speaker, PhraseBook(args.language))
    observation_times: list[float] = []
    started = time.monotonic()
    for index, step in enumerate(simulator):
        if index == args.steps:
            break
        time.sleep(max(0.0, started + index * args.interval - time.monotonic()))
        observation_times.append(time.monotonic())
        app.submit(observation_from_dict(step.observation))
    speaker.close()
    return measure(speaker.said, voice, observation_times)
