"""Per-deck evaluation (``uno-referee eval --real``): each deck scored apart, seen decks marked, and a
folder of one-card photos read as such."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from referee.cli import main
from referee.errors import UserError
from referee.lab.evaluate import Evaluation, TruthCard, at_table_scale, card_photos, turned_photo
from referee.render.cards import render_card
from referee.vision.reader import Card

NAMES = ["red-4", "blue-skip", "green-8", "yellow-2", "wild"]


def _deck_folder(root, name: str):
    folder = root / name
    (folder / "images").mkdir(parents=True)
    lines = []
    for k, card in enumerate(NAMES):
        sprite = render_card(card, "modern", height=300, rng=np.random.default_rng(k))
        photo = np.full((340, 240, 3), 235, np.uint8)
        h, w = sprite.bgr.shape[:2]
        alpha = sprite.alpha[..., None] / 255.0
        region = photo[20 : 20 + h, 20 : 20 + w]
        region[:] = (region * (1 - alpha) + sprite.bgr * alpha).astype(np.uint8)
        cv2.imwrite(str(folder / "images" / f"{k}.jpg"), photo)
        lines.append(json.dumps({"image": f"images/{k}.jpg", "card": card}))
    (folder / "labels.jsonl").write_text("\n".join(lines) + "\n")
    return folder


def test_photos_of_one_card_are_scored_by_the_surest_card_read():
    evaluation = Evaluation()

    def card(name: str, confidence: float) -> Card:
        return Card(name, name, None, confidence, (0, 0, 1, 1), "hue", ())

    evaluation.add_named(TruthCard("red-1", ()), [card("red-7", 0.4), card("red-1", 0.9)])  # doubled, right
    evaluation.add_named(TruthCard("blue-reverse", ()), [card("blue-4", 0.8)])
    evaluation.add_named(TruthCard("wild", ()), [])
    named = evaluation.to_json()["named"]
    assert named["photos"] == 3
    assert named["top1_accuracy"] == pytest.approx(1 / 3, abs=1e-3)
    assert named["doubled"] == 1
    assert named["worst_card_accuracy"] == 0.0


def test_each_deck_is_reported_apart_and_seen_decks_are_marked(tmp_path, capsys):
    criscard_like = _deck_folder(tmp_path, "some-unseen-deck")
    seen = _deck_folder(tmp_path, "uno-cards-roboflow")  # the shipped detector trained on this name
    report = tmp_path / "report"
    code = main(["eval", "--real", str(criscard_like), "--real", str(seen), "--report", str(report)])
    assert code == 0
    out = capsys.readouterr().out
    assert "some-unseen-deck (unseen: leave-one-deck-out), 5 photos" in out
    assert "uno-cards-roboflow (seen in training)" in out
    decks = json.loads((report / "decks.json").read_text())
    assert decks["decks"]["some-unseen-deck"]["seen"] is False
    assert decks["decks"]["uno-cards-roboflow"]["seen"] is True
    assert decks["decks"]["some-unseen-deck"]["top1_accuracy"] >= 0.8  # rendered modern cards
    assert decks["unseen_top1_min"] == decks["decks"]["some-unseen-deck"]["top1_accuracy"]


def test_two_folders_of_one_deck_are_each_reported(tmp_path, capsys):
    """A deck's validation and training photos given as two ``--real`` folders: each gets its line
    (the second once replaced the first, under the deck's one name)."""
    valid = _deck_folder(tmp_path / "some-deck", "valid")
    train = _deck_folder(tmp_path / "some-deck", "train")
    report = tmp_path / "report"
    assert main(["eval", "--real", str(valid), "--real", str(train), "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert f"some-deck ({valid}) (unseen: leave-one-deck-out), 5 photos" in out
    assert f"some-deck ({train}) (unseen: leave-one-deck-out), 5 photos" in out
    assert len(json.loads((report / "decks.json").read_text())["decks"]) == 2


def test_bad_labels_are_one_line_errors(tmp_path):
    folder = tmp_path / "deck"
    folder.mkdir()
    (folder / "labels.jsonl").write_text('{"image": "images/a.jpg", "card": "purple-12"}\n')
    with pytest.raises(UserError) as caught:
        card_photos(folder)
    assert "labels.jsonl:1" in str(caught.value)
    (folder / "labels.jsonl").write_text('{"image": "images/missing.jpg", "card": "red-3"}\n')
    with pytest.raises(UserError) as caught:
        card_photos(folder)
    assert "missing.jpg" in str(caught.value)


def test_a_deck_is_scored_at_each_turn_apart(tmp_path, capsys):
    deck = _deck_folder(tmp_path, "some-unseen-deck")
    report = tmp_path / "report"
    code = main(["eval", "--real", str(deck), "--turns", "0,90,30", "--report", str(report)])
    assert code == 0
    out = capsys.readouterr().out
    for turn in (0, 90, 30):
        assert f"some-unseen-deck turned {turn}° (unseen: leave-one-deck-out), 5 photos" in out
    decks = json.loads((report / "decks.json").read_text())["decks"]
    assert [deck["turn"] for deck in decks.values()] == [0, 90, 30]
    assert all(deck["top1_accuracy"] >= 0.8 for deck in decks.values())  # rendered modern cards


def test_a_turned_photo_keeps_all_of_the_card():
    photo = np.full((60, 40, 3), 200, np.uint8)
    photo[5:55, 5:35] = (0, 0, 255)  # the card: red, all of it inside the photo
    for turn in (45, 90, 135, 200):
        turned = turned_photo(photo, turn)
        red = (turned[..., 2] > 150) & (turned[..., 0] < 100)
        assert red.sum() == pytest.approx(50 * 30, rel=0.08)  # nothing of the card cut off
        assert tuple(turned[0, 0]) == (200, 200, 200)  # the canvas is the photo's edge colour
    assert np.array_equal(turned_photo(photo, 360), photo)


def test_turns_are_for_one_card_photos_only(tmp_path, capsys):
    assert main(["eval", "--real", str(tmp_path), "--turns", "ninety"]) != 0
    assert "argument --turns: invalid" in capsys.readouterr().err
    assert main(["eval", str(tmp_path), "--turns", "90"]) != 0
    error = capsys.readouterr().err.strip()
    assert "--turns and --photo-px are for real decks" in error and "\n" not in error


def test_a_deck_is_scored_at_the_table_cameras_scale_too(tmp_path, capsys):
    """Close-up photos show a corner index ten times larger than the camera over the table does:
    ``--photo-px`` scores each deck again as the discard zone frames it."""
    deck = _deck_folder(tmp_path, "some-unseen-deck")
    report = tmp_path / "report"
    code = main(
        ["eval", "--real", str(deck), "--photo-px", "0,150", "--turns", "0,45", "--report", str(report)]
    )
    assert code == 0
    out = capsys.readouterr().out
    for shown in ("", " at 150 px"):
        for turn in (0, 45):
            assert f"some-unseen-deck{shown} turned {turn}° (unseen: leave-one-deck-out), 5 photos" in out
    decks = json.loads((report / "decks.json").read_text())["decks"]
    assert [(deck["photo_px"], deck["turn"]) for deck in decks.values()] == [
        (None, 0),
        (None, 45),
        (150, 0),
        (150, 45),
    ]
    assert all(deck["top1_accuracy"] >= 0.8 for deck in decks.values())  # rendered modern cards
    assert main(["eval", "--real", str(deck), "--photo-px", "12"]) != 0
    assert "argument --photo-px: invalid" in capsys.readouterr().err


def test_a_photo_at_table_scale_is_the_whole_card_shrunk_on_its_own_ground():
    photo = np.full((300, 200, 3), 200, np.uint8)
    photo[10:290, 10:190] = (0, 0, 255)  # the card: red, inside the photo
    small = at_table_scale(photo, 120)
    assert small.shape == (360, 360, 3)
    red = (small[..., 2] > 150) & (small[..., 0] < 100)
    assert red.sum() == pytest.approx(112 * 72, rel=0.08)  # the card, 120/300 of its size, all of it
    ys, xs = np.nonzero(red)
    assert abs(ys.mean() - 180) < 3 and abs(xs.mean() - 180) < 3  # in the middle
    assert tuple(small[0, 0]) == (200, 200, 200)  # on the photo's edge colour


def test_a_seen_deck_is_scored_again_by_networks_that_never_saw_it(tmp_path, capsys, held_out_folder):
    seen = _deck_folder(tmp_path, "uno-cards-roboflow")  # the shipped networks trained on this name
    unseen = _deck_folder(tmp_path, "some-unseen-deck")
    held_out = held_out_folder(seen=[])
    report = tmp_path / "report"
    arguments = ["eval", "--real", str(seen), "--real", str(unseen), "--report", str(report)]
    assert main([*arguments, "--held-out-models", str(held_out)]) == 0
    out = capsys.readouterr().out
    assert "uno-cards-roboflow (seen in training), 5 photos" in out
    assert f"uno-cards-roboflow by {held_out} (unseen: leave-one-deck-out), 5 photos" in out
    assert f"some-unseen-deck by {held_out}" not in out  # unseen by the shipped ones: scored once
    decks = json.loads((report / "decks.json").read_text())["decks"]
    assert [deck["seen"] for deck in decks.values()] == [True, False, False]
    assert decks[f"uno-cards-roboflow by {held_out}"]["models"] == str(held_out)
    # the same networks, so the same reads: only who saw the deck differs
    assert (
        decks[f"uno-cards-roboflow by {held_out}"]["top1_accuracy"]
        == decks["uno-cards-roboflow"]["top1_accuracy"]
    )


def test_held_out_networks_that_saw_the_deck_too_give_no_figure(tmp_path, capsys, held_out_folder):
    seen = _deck_folder(tmp_path, "uno-cards-roboflow")
    held_out = held_out_folder(seen=["uno-cards-roboflow"])
    assert (
        main(["eval", "--real", str(seen), "--held-out-models", str(held_out), "--report", str(tmp_path)])
        == 0
    )
    assert " by " not in capsys.readouterr().out
    assert main(["eval", "--real", str(seen), "--held-out-models", "none", "--report", str(tmp_path)]) == 0
    assert "seen decks have no leave-one-deck-out figure here" in capsys.readouterr().out


def test_each_held_out_folder_that_never_saw_a_seen_deck_scores_it(tmp_path, capsys, held_out_folder):
    seen = _deck_folder(tmp_path, "uno-cards-roboflow")
    saw_it = held_out_folder(seen=["uno-cards-roboflow"], name="saw-it")
    other_deck = held_out_folder(seen=["some-other-deck"], name="other-deck")
    report = tmp_path / "report"
    folders = ["--held-out-models", str(saw_it), "--held-out-models", str(other_deck)]
    assert main(["eval", "--real", str(seen), *folders, "--report", str(report)]) == 0
    out = capsys.readouterr().out
    assert f"uno-cards-roboflow by {other_deck} (unseen: leave-one-deck-out)" in out
    assert f"by {saw_it}" not in out
    written = json.loads((report / "decks.json").read_text())
    assert written["held_out_models"] == [str(saw_it), str(other_deck)]
    assert list(written["decks"]) == ["uno-cards-roboflow", f"uno-cards-roboflow by {other_deck}"]


def test_a_held_out_folder_borrows_the_shipped_networks_it_lacks(tmp_path, capsys, held_out_folder):
    deck = _deck_folder(tmp_path, "uno-cards-roboflow")
    held_out = held_out_folder(seen=[])
    (held_out / "uno_corners.onnx").unlink()  # the shipped corner check saw Roboflow: so does this reader
    assert main(["eval", "--real", str(deck), "--held-out-models", str(held_out)]) == 0
    assert " by " not in capsys.readouterr().out
    (held_out / "uno_glyphs.onnx").unlink()
    (held_out / "uno_cards.onnx").unlink()
    assert main(["eval", "--real", str(deck), "--held-out-models", str(held_out)]) != 0
    error = capsys.readouterr().err.strip()
    assert "holds none of uno_cards.onnx, uno_glyphs.onnx, uno_corners.onnx" in error and "\n" not in error


def test_the_checkout_holds_a_held_out_scorer_for_each_real_deck_the_shipped_networks_saw(tmp_path, capsys):
    from models import HELD_OUT_FOLDER, HELD_OUT_NETWORKS, held_out_folders, model_file

    def decks_of(path) -> set[str]:
        return set(json.loads(path.with_suffix(".json").read_text())["decks_seen"])

    def decks_of_reader(folder) -> set[str]:  # a network the folder lacks is the shipped one
        return set().union(
            *(decks_of(folder / n if (folder / n).is_file() else model_file(n)) for n in HELD_OUT_NETWORKS)
        )

    shipped = set().union(*(decks_of(model_file(name)) for name in HELD_OUT_NETWORKS))
    assert "uno-cards-roboflow" in shipped
    folders = held_out_folders()
    assert folders and all(folder.parent == model_file(HELD_OUT_FOLDER) for folder in folders)
    for deck in shipped:  # each deck keeps a leave-one-deck-out score
        assert any(deck not in decks_of_reader(folder) for folder in folders), deck
    seen = _deck_folder(tmp_path, "uno-cards-roboflow")
    assert main(["eval", "--real", str(seen), "--report", str(tmp_path / "report")]) == 0
    out = capsys.readouterr().out
    assert "uno-cards-roboflow (seen in training)" in out
    assert f"{HELD_OUT_FOLDER}/roboflow (unseen: leave-one-deck-out), 5 photos" in out  # the default folder
