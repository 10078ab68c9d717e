"""``uno-referee bench speech``: how far speech trails a fast game, with espeak-ng writing files."""

from __future__ import annotations

import re
import shutil
from types import SimpleNamespace

import pytest

from referee.cli import main
from referee.lab.speech_bench import measure


def test_sentences_are_matched_to_the_utterance_that_said_them():
    said = [
        (0.0, "Anna legt die rote Sieben.", "de"),
        (0.5, "Ben ist dran.", "de"),
        (0.6, "Ben muss aussetzen.", "de"),
    ]
    voice = SimpleNamespace(
        utterances=[
            (0.0, "Anna legt die rote Sieben."),
            (2.0, "Ben muss aussetzen."),
            (4.0, "Clara legt die rote Eins."),
            (9.0, "Ben ist dran."),
        ],
        audio_s=4.0,
    )
    lag = measure(said, voice, observation_times=[0.0, 0.5, 1.0, 1.5])
    # "Ben ist dran." was left out: the later utterance with the same words is another sentence
    assert (lag.left_out, lag.delays_s, lag.observations_behind) == (1, [0.0, 1.4], [0, 2])


@pytest.mark.skipif(
    shutil.which("espeak-ng") is None, reason="espeak-ng is not installed (apt install espeak-ng)"
)
def test_keeping_up_leaves_out_routine_and_trails_less(capsys):
    argv = ["bench", "speech", "--steps", "6", "--interval", "0.2", "--rate", "400", "--language", "en"]
    assert main(argv) == 0
    keeping_up = capsys.readouterr().out
    assert main([*argv, "--no-keep-up"]) == 0
    every_sentence = capsys.readouterr().out
    pattern = (
        r"(\d+) sentences in (\d+) utterances, (\d+) routine left out; "
        r"speech trails by median [\d.]+ s, max ([\d.]+) s"
    )
    said, utterances, left_out, worst = re.search(pattern, keeping_up).groups()
    assert int(left_out) > 0 and int(utterances) < int(said)
    said_all, utterances_all, left_out_all, worst_all = re.search(pattern, every_sentence).groups()
    assert (said_all, left_out_all) == (said, "0") and utterances_all == said
    assert float(worst) < float(worst_all)
