"""Evaluation: exact box and card scores on hand-made cases, the report files, the generator's format."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest
from test_vision_reader import paste, table

from referee.cli import main
from referee.commands.eval import index_symbols_line
from referee.errors import UserError
from referee.lab.evaluate import (
    BACKGROUND,
    CARD_ERRORS,
    Evaluation,
    TruthCard,
    draw_card_errors,
    labelled_images,
    lost_at,
)
from referee.vision.classes import CLASS_NAMES, ROBOFLOW_TO_CLASS, SYMBOL_CLASSES
from referee.vision.detection import Detection
from referee.vision.reader import Card, ReadTrace
from referee.vision.scripted import tensor_for_boxes, write_scripted_model

A, B, C, D = (10, 10, 30, 40), (100, 10, 120, 40), (200, 200, 220, 230), (250, 50, 270, 80)


def detection(box, name, score=0.9) -> Detection:
    return Detection(box, CLASS_NAMES.index(name), name, score)


def card(name, *boxes) -> Card:
    symbol = name if name.startswith("wild") else name.partition("-")[2]
    colour = None if name.startswith("wild") else name.partition("-")[0]
    indices = tuple(detection(box, symbol) for box in boxes)
    return Card(name, symbol, colour, 0.9, boxes[0], "hue", indices)


def test_box_matching_fills_the_confusion_matrix():
    evaluation = Evaluation()
    truth = ((CLASS_NAMES.index("7"), A), (CLASS_NAMES.index("skip"), B), (CLASS_NAMES.index("3"), C))
    evaluation.add_boxes(truth, [detection(A, "7"), detection(B, "reverse"), detection(D, "5", 0.4)])
    matrix = evaluation.confusion
    seven, skip, reverse, three, five = (CLASS_NAMES.index(n) for n in ("7", "skip", "reverse", "3", "5"))
    assert (
        matrix[seven, seven]
        == matrix[skip, reverse]
        == matrix[three, BACKGROUND]
        == matrix[BACKGROUND, five]
        == 1
    )
    assert matrix.sum() == 4
    assert evaluation.symbols.overall() == {
        "precision": pytest.approx(1 / 3, abs=1e-4),
        "recall": pytest.approx(1 / 3, abs=1e-4),
        "f1": pytest.approx(1 / 3, abs=1e-4),
        "tp": 1,
        "predicted": 3,
        "truth": 3,
    }
    assert evaluation.worst_confusions()[0]["count"] == 1
    assert {(w["truth"], w["detected"]) for w in evaluation.worst_confusions()} == {
        ("skip", "reverse"),
        ("3", "background"),
        ("background", "5"),
    }


def test_card_scores_per_name_symbol_and_colour():
    evaluation = Evaluation()
    truth = (TruthCard("red-7", (A,)), TruthCard("blue-skip", (B,)), TruthCard("yellow-2", (C,)))
    read = [card("red-7", A), card("blue-reverse", B), card("wild", D)]
    evaluation.add_cards(truth, read)
    report = evaluation.to_json()["cards"]
    assert (
        report["overall"]["tp"] == 1
        and report["overall"]["predicted"] == 3
        and report["overall"]["truth"] == 3
    )
    assert report["per_colour"]["blue"]["tp"] == 1  # right colour, wrong symbol
    assert (
        report["per_symbol"]["skip"]["recall"] == 0.0 and report["per_symbol"]["reverse"]["precision"] == 0.0
    )
    assert report["per_colour"]["wild"]["precision"] == 0.0
    assert report["multiset_f1_mean"] == pytest.approx(1 / 3, abs=1e-4)
    evaluation.add_cards((), [card("green-1", A)])
    report = evaluation.to_json()["cards"]
    assert (report["empty_images"], report["empty_images_with_cards"], report["cards_on_empty_images"]) == (
        1,
        1,
        1,
    )


def test_two_cards_of_one_name_are_matched_by_place():
    evaluation = Evaluation()
    evaluation.add_cards(
        (TruthCard("red-5", (A, C)), TruthCard("red-5", (B,))), [card("red-5", B), card("red-5", C)]
    )
    assert evaluation.cards.overall()["tp"] == 2 and evaluation.multiset_f1 == [1.0]


def test_a_narrow_glyph_inside_a_photographed_faces_label_region_is_that_card():
    """A face dealt from a photo is labelled with its deck's wide index region; a tight box on a
    flat reverse arrow inside it (IoU 0.3 or less) is that card read, not a miss and an extra card.
    A box half out of the region is not."""
    region = (100, 100, 134, 136)
    flat_arrow, beside = (104, 111, 130, 125), (120, 111, 146, 125)
    evaluation = Evaluation()
    mistakes = evaluation.add_cards(
        (TruthCard("yellow-reverse", (region,)), TruthCard("red-1", (C,))),
        [card("yellow-reverse", flat_arrow), card("red-1", beside)],
        "table",
        (),
    )
    assert [m.kind for m in mistakes] == ["invented", "missed"]
    assert evaluation.cards.overall()["tp"] == 1
    arrow = TruthCard("yellow-reverse", (region,))
    evaluation.add_indices_found((arrow,), [detection(flat_arrow, "reverse")])
    assert evaluation.indices_found == evaluation.indices_labelled


def test_card_mistakes_are_sorted_by_kind():
    """Doubled, corners disagree, on a card, partly shown, invented, missed, wrong symbol, wrong
    colour: what a reader fix targets."""
    evaluation = Evaluation()
    E, F, G = (300, 10, 320, 40), (400, 300, 420, 330), (40, 150, 60, 180)
    H, K = (300, 200, 320, 230), (360, 260, 380, 290)
    L, M = (200, 400, 220, 430), (230, 400, 250, 430)
    P, Q = (440, 100, 460, 130), (440, 200, 460, 230)  # indices shown too little to be labelled
    truth = (
        TruthCard("red-7", (A, B)),  # read at both corners, unpaired: doubled
        TruthCard("blue-1", (C,)),  # read as a 7: wrong symbol
        TruthCard("green-2", (D,)),  # read yellow: wrong colour
        TruthCard("wild", (E,)),  # not read: missed
        TruthCard("yellow-3", (H, K)),  # one corner right, the other read as an 8
        TruthCard("blue-9", (L,)),  # in a fanned row: its index paired with the next blue 9's
        TruthCard("blue-9", (M,)),
    )
    outline = ((0, 0), (150, 0), (150, 250), (0, 250))  # the red 7's card, its centre at G
    read = [
        card("red-7", A),
        card("red-7", B),
        card("blue-7", C),
        card("yellow-2", D),
        card("red-6", G),  # the centre numeral boxed as an index
        card("blue-4", F),  # on the table, off every card
        card("yellow-8", K),  # the right reading below still wins the match
        card("yellow-3", (304, 204, 324, 234)),  # overlaps its index less than the 8 does
        card("blue-9", L, M),
        card("green-5", P),  # a card's sliver of index read by its right name: partly shown
        card("red-5", Q),  # … by a wrong name: off every card (its outline is not given here)
    ]
    hidden = (("green-5", P), ("green-5", Q))
    mistakes = evaluation.add_cards(truth, read, "table", (outline,), "scene.jpg", partly_shown=hidden)
    assert sorted(mistake.kind for mistake in mistakes) == sorted([*CARD_ERRORS, "invented"])
    report = evaluation.to_json()["cards"]
    assert report["errors"] == {**dict.fromkeys(CARD_ERRORS, 1), "invented": 2}
    # Set aside, the green 5 read from its sliver is neither right nor wrong.
    assert report["multiset_f1_aside_mean"] > report["multiset_f1_mean"]
    assert report["error_examples"]["doubled"] == ["scene.jpg"]
    assert report["per_card"]["yellow-3"]["tp"] == 1
    assert {(m["truth"], m["read"]) for m in report["mistakes"]} == {
        ("blue-1", "blue-7"),
        ("green-2", "yellow-2"),
    }
    drawn = draw_card_errors(table(320, 480), truth, read, mistakes)
    assert drawn.shape == (320, 480, 3)


@pytest.fixture
def roboflow_folder(tmp_path) -> Path:
    """A one-picture YOLO folder in Roboflow ids: three labelled indices on a 320 px picture."""
    folder = tmp_path / "valid"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    cv2.imwrite(str(folder / "images" / "photo.jpg"), table(320, 320))
    rows = [(12, A), (5, B), (3, C)]  # Roboflow 12 = "7", 5 = skip, 3 = draw2

    def yolo(box):
        x1, y1, x2, y2 = box
        return f"{(x1 + x2) / 640} {(y1 + y2) / 640} {(x2 - x1) / 320} {(y2 - y1) / 320}"

    (folder / "labels" / "photo.txt").write_text("".join(f"{i} {yolo(box)}\n" for i, box in rows))
    return folder


def test_eval_command_on_a_yolo_folder(roboflow_folder, tmp_path, capsys):
    model = write_scripted_model(
        tmp_path / "model.onnx", tensor_for_boxes([A, B, D], ["7", "reverse", "wild"], scores=[0.9, 0.8, 0.7])
    )
    report_dir = tmp_path / "report"
    status = main(
        ["eval", str(roboflow_folder), "--roboflow", "--model", str(model), "--report", str(report_dir)]
    )
    assert status == 0
    report = json.loads((report_dir / "report.json").read_text())
    assert report["boxes"]["overall"]["tp"] == 1 and report["boxes"]["overall"]["truth"] == 3
    assert report["boxes"]["per_symbol"]["7"]["precision"] == 1.0
    assert "cards" not in report  # real photos carry no colours: symbol level only
    # Every network the reader read with is named, so that a figure can be reproduced.
    assert report["model"] == str(model)
    networks = ("glyph_model", "corner_model", "pair_model", "centre_model")
    assert [Path(report[key]).name for key in networks] == [
        "uno_glyphs.onnx",
        "uno_corners.onnx",
        "uno_pairs.onnx",
        "uno_centres.onnx",
    ]
    assert cv2.imread(str(report_dir / "confusion.png")).shape[0] > 500
    out = capsys.readouterr().out
    assert "boxes: precision 0.333 recall 0.333" in out
    # The draw two at C was never boxed: of the indices nothing was read over, the detector lost one.
    assert report["index_symbols"]["unread_lost_at"]["detector"] == 1
    assert "indices no card was read over, where the reader lost them: detector 1," in out


def test_eval_draws_a_real_photos_index_mistakes(roboflow_folder, tmp_path, capsys):
    model = write_scripted_model(tmp_path / "model.onnx", tensor_for_boxes([A], ["7"], scores=[0.9]))
    errors = tmp_path / "errors"
    argv = ["eval", str(roboflow_folder), "--roboflow", "--model", str(model), "--errors", str(errors)]
    assert main([*argv, "--report", str(tmp_path / "report")]) == 0
    assert f"pictures with mistakes drawn: {errors}" in capsys.readouterr().out
    drawn = cv2.imread(str(errors / "photo.jpg"))
    assert drawn.shape == (320, 320, 3)
    # Nothing is read on the bare table: every labelled index is framed as missed, beside its box.
    photo = cv2.imread(str(roboflow_folder / "images" / "photo.jpg")).astype(int)
    for x1, y1, x2, y2 in (A, B, C):
        near = (slice(y1 - 8, y2 + 8), slice(x1 - 8, x2 + 8))
        assert abs(drawn.astype(int)[near] - photo[near]).mean() > 5


def test_roboflow_ids_are_mapped(roboflow_folder):
    (item,) = labelled_images(roboflow_folder, roboflow=True)
    boxes = item.boxes(320, 320)
    assert [class_id for class_id, _ in boxes] == [ROBOFLOW_TO_CLASS[i] for i in (12, 5, 3)]
    assert [box for _, box in boxes] == [pytest.approx(box) for box in (A, B, C)]
    (item,) = labelled_images(roboflow_folder)
    assert [row[0] for row in item.rows] == [12, 5, 3]


def test_eval_command_on_a_rendered_scene(tmp_path, capsys):
    """A hand-made sidecar in the generator's format: the reader's card is scored as right."""
    for kind in ("images", "labels", "meta"):
        (tmp_path / "scenes" / kind / "val").mkdir(parents=True)
    picture = table(320, 320)
    pasted = paste(picture, "green-reverse", 90, 60, height=200)
    cv2.imwrite(str(tmp_path / "scenes/images/val/s0.png"), picture)
    boxes = [
        {"class": d.class_id, "class_name": d.class_name, "box": list(d.box), "labelled": True}
        for d in pasted.detections
    ]
    meta = {
        "image": "s0.png",
        "size": [320, 320],
        "cards": [{"name": "green-reverse", "face_up": True, "boxes": boxes}],
    }
    (tmp_path / "scenes/meta/val/s0.json").write_text(json.dumps(meta))
    rows = [
        f"{d.class_id} {(d.box[0] + d.box[2]) / 640} {(d.box[1] + d.box[3]) / 640} "
        f"{(d.box[2] - d.box[0]) / 320} {(d.box[3] - d.box[1]) / 320}\n"
        for d in pasted.detections
    ]
    (tmp_path / "scenes/labels/val/s0.txt").write_text("".join(rows))
    model = write_scripted_model(
        tmp_path / "model.onnx",
        tensor_for_boxes([d.box for d in pasted.detections], [d.class_name for d in pasted.detections]),
    )
    status = main(
        ["eval", str(tmp_path / "scenes"), "--model", str(model), "--report", str(tmp_path / "report")]
    )
    assert status == 0
    cards = json.loads((tmp_path / "report/report.json").read_text())["cards"]
    assert cards["overall"]["f1"] == 1.0 and cards["per_colour"]["green"]["recall"] == 1.0
    assert cards["multiset_f1_mean"] == 1.0
    indices = sum(d.class_name in SYMBOL_CLASSES for d in pasted.detections)
    assert cards["indices_found"] == {"whole, 24 px or more": {"labelled": indices, "found": 1.0}}
    assert f"indices the detector found: whole, 24 px or more 1.000 ({indices})" in capsys.readouterr().out
    assert "missed_lost_at" not in cards  # every card read: no step lost one


def test_indices_found_are_counted_by_cover_and_size():
    """Where the detector's recall is lost: a covered index missed, a whole one found."""
    evaluation = Evaluation()
    small, narrow = (300, 300, 308, 310), (50, 150, 56, 180)
    truth = (
        TruthCard("red-7", (A, B), (1.0, 0.5)),
        TruthCard("blue-2", (small,), (0.8,)),
        TruthCard("green-1", (narrow,), (1.0,)),
    )
    # a narrow 1 boxed 2 px to the right (IoU 0.4): found, as a card's index counts at 0.3
    detections = [detection(A, "1"), detection((400, 400, 420, 430), "2"), detection((52, 150, 60, 180), "1")]
    evaluation.add_indices_found(truth, detections)
    found = evaluation.to_json()
    assert "cards" not in found  # no card scored yet: the box counts ride with the card scores
    evaluation.add_cards(truth, [card("red-7", A)])
    assert evaluation.to_json()["cards"]["indices_found"] == {
        "whole, 24 px or more": {"labelled": 2, "found": 1.0},  # found, whatever symbol it was read as
        "partly covered, under 12 px": {"labelled": 1, "found": 0.0},
        "mostly covered, 24 px or more": {"labelled": 1, "found": 0.0},
    }


def test_missed_cards_are_counted_by_the_step_that_lost_them():
    """Where the reader's recall goes: a card the network never boxed is lost at the detector, one
    whose box the corner check dropped at the corner check, one whose box reached the end at pairing;
    a card read, or whose index went to another card (merged), is no missed card."""
    evaluation = Evaluation()
    truth = (
        TruthCard("red-7", (A,)),
        TruthCard("blue-2", (B,)),
        TruthCard("green-1", (C,)),
        TruthCard("yellow-5", (D,)),
    )
    trace = ReadTrace(
        detected=[detection(A, "7"), detection(C, "1"), detection(D, "5")],
        on_cards=[detection(A, "7"), detection(D, "5")],
    )
    for later in ("named", "single", "coloured"):
        setattr(trace, later, [detection(A, "7"), detection(D, "5")])
    mistakes = evaluation.add_cards(truth, [card("red-7", A)], trace=trace)
    assert sorted(m.kind for m in mistakes) == ["missed", "missed", "missed"]
    lost = evaluation.to_json()["cards"]["missed_lost_at"]
    assert lost == {
        "detector": 1,  # blue-2: B was never boxed
        "corner check": 1,  # green-1: C boxed, then dropped as no card's corner
        "glyph classifier": 0,
        "duplicates": 0,
        "field test": 0,
        "pairing": 1,  # yellow-5: D survived every check and still made no card
    }
    assert lost_at((B, A), trace) == "pairing"  # one of a card's two corners is enough to go on


def test_without_a_trace_no_step_is_blamed():
    evaluation = Evaluation()
    evaluation.add_cards((TruthCard("red-7", (A,)),), [])
    assert "missed_lost_at" not in evaluation.to_json()["cards"]


def test_generator_sidecars_load(tmp_path):
    """The real dataset generator's output parses: visible cards with labelled index boxes."""
    from referee.render.dataset import main as dataset_main

    assert (
        dataset_main([str(tmp_path / "ds"), "--count", "6", "--workers", "1", "--val-fraction", "0.5"]) == 0
    )
    items = labelled_images(tmp_path / "ds", "val")
    assert len(items) == 3 and all(item.path.is_file() for item in items)
    cards = [card for item in items for card in item.cards]
    assert cards and all(card.boxes for card in cards)
    # An index shown too little to be labelled is kept apart, with its card's name.
    shown_in_part = 0
    for item in items:
        meta = json.loads((tmp_path / "ds" / "meta" / "val" / f"{item.path.stem}.json").read_text())
        slivers = {
            (card["name"], tuple(box["box"]))
            for card in meta["cards"]
            if card["face_up"]
            for box in card["boxes"]
            if not box["labelled"] and box["visible"] > 0 and not box["class_name"].startswith("cb-")
        }
        assert set(item.partly_shown) == slivers
        shown_in_part += len(slivers)
    assert shown_in_part  # the scenes hold some (else the check above says nothing)


def test_not_a_dataset_is_one_line(tmp_path):
    with pytest.raises(UserError, match="neither a rendered dataset"):
        labelled_images(tmp_path)


def test_true_boxes_score_the_reader_alone(tmp_path, capsys, roboflow_folder):
    """With --true-boxes a network that sees nothing still yields perfect boxes (they are the labels)."""
    blind = write_scripted_model(tmp_path / "blind.onnx", tensor_for_boxes([(0, 0, 1, 1)], ["0"], scores=0.0))
    arguments = [
        "eval",
        str(roboflow_folder),
        "--roboflow",
        "--model",
        str(blind),
        "--report",
        str(tmp_path / "r"),
    ]
    assert main(arguments) == 0
    assert json.loads((tmp_path / "r/report.json").read_text())["boxes"]["overall"]["recall"] == 0.0
    assert main([*arguments, "--true-boxes"]) == 0
    report = json.loads((tmp_path / "r/report.json").read_text())
    assert report["true_boxes"] and report["boxes"]["overall"]["f1"] == 1.0
    # Each labelled index is scored by the card the reader read over it (no colour labels here).
    assert report["index_symbols"]["indices"] == report["boxes"]["overall"]["truth"]
    out = capsys.readouterr().out
    assert "labelled boxes (reader alone)" in out and "symbols read at labelled indices" in out
    assert report["index_symbols"]["cards_over_no_label"]["cards"] == 0  # every card read is on a label
    assert "cards read over no labelled index (invented, or an index left unlabelled): 0 on 0 of 1" in out


def test_named_cards_score_top1_per_card_colour_and_symbol():
    evaluation = Evaluation()
    evaluation.add_named(TruthCard("red-7", (A,)), [card("blue-skip", B), card("red-7", A)])
    evaluation.add_named(TruthCard("blue-5", (B,)), [card("red-6", B)])  # wrong colour and symbol
    evaluation.add_named(TruthCard("green-2", (C,)), [card("green-3", C)])  # right colour only
    evaluation.add_named(TruthCard("wild", (D,)), [card("wild", A)])  # read elsewhere: missed
    named = evaluation.to_json()["named"]
    assert named["photos"] == 4
    assert named["top1_accuracy"] == 0.25
    assert named["colour_accuracy"] == 0.5 and named["symbol_accuracy"] == 0.25
    assert named["per_card"]["red-7"]["recall"] == 1.0 and named["per_colour"]["blue"]["recall"] == 0.0
    assert {(m["named"], m["read"]) for m in named["mistakes"]} == {
        ("blue-5", "red-6"),
        ("green-2", "green-3"),
        ("wild", "nothing"),
    }


def test_every_labelled_index_of_an_unlabelled_photo_scores_the_symbol_read_over_it():
    """A real deck's YOLO folder labels symbols, not colours: each index is scored by the symbol of the
    card read over it, whatever its colour, so every index of every photo counts per symbol."""
    evaluation = Evaluation()
    three, eight, draw4, cb = (CLASS_NAMES.index(name) for name in ("3", "8", "wild-draw4", "cb-star"))
    evaluation.add_index_symbols(
        ((three, A), (three, B), (draw4, C), (cb, D)),
        [card("yellow-3", A), card("blue-8", B), card("wild-draw4", D)],  # the draw four read elsewhere
        photo="first.jpg",
    )
    evaluation.add_index_symbols(((eight, A),), [card("red-8", A)], photo="second.jpg")
    scores = evaluation.to_json()["index_symbols"]
    # The draw four read over the colour-blind symbol lies on no labelled index: invented, or unlabelled.
    assert scores["cards_over_no_label"] == {"cards": 1, "photos": 1, "examples": ["first.jpg"]}
    assert scores["indices"] == 4  # the colour-blind symbol is no card's index
    assert scores["accuracy"] == 0.5
    assert scores["per_symbol"]["3"]["recall"] == 0.5 and scores["per_symbol"]["wild-draw4"]["truth"] == 1
    assert {(m["labelled"], m["read"], m["count"]) for m in scores["mistakes"]} == {
        ("3", "8", 1),
        ("wild-draw4", "nothing", 1),
    }
    line = index_symbols_line(scores)
    assert line.startswith("symbols read at labelled indices (colour not labelled): 0.500 of 4; weakest: ")
    assert "wild-draw4 0.00 (1; most often nothing ×1), 3 0.50 (2; most often 8 ×1), 8 1.00 (1)" in line


def test_an_index_no_card_was_read_over_is_blamed_on_the_step_that_lost_it():
    """A symbol misread is the glyph's doing, but an index with nothing read over it may have been lost
    by the detector or by any later check: the reader's trace says which."""
    evaluation = Evaluation()
    three, draw2, skip = (CLASS_NAMES.index(name) for name in ("3", "draw2", "skip"))
    trace = ReadTrace(detected=[detection(A, "3"), detection(C, "skip")], on_cards=[detection(A, "3")])
    for later in ("named", "single", "coloured"):
        setattr(trace, later, [detection(A, "3")])
    evaluation.add_index_symbols(
        ((three, A), (draw2, B), (skip, C), (three, D)), [card("red-3", A), card("blue-8", D)], trace
    )
    scores = evaluation.to_json()["index_symbols"]
    assert scores["unread_lost_at"] == {
        "detector": 1,  # the draw two at B was never boxed
        "corner check": 1,  # the skip at C was boxed, then dropped
        "glyph classifier": 0,
        "duplicates": 0,
        "field test": 0,
        "pairing": 0,
    }  # the 3 read as an 8 at D was read, wrongly: not an unread index
    without = Evaluation()
    without.add_index_symbols(((draw2, B),), [])
    assert "unread_lost_at" not in without.to_json()["index_symbols"]


def test_a_photos_index_mistakes_are_returned_to_be_drawn_with_the_step_that_lost_each():
    """`eval --errors` draws real photos too: each index read wrong or not at all, named with the
    step that lost it, and each card read over no labelled index."""
    three, draw2 = CLASS_NAMES.index("3"), CLASS_NAMES.index("draw2")
    trace = ReadTrace(detected=[detection(A, "3")])
    mistakes = Evaluation().add_index_symbols(
        ((three, A), (draw2, B)), [card("blue-8", A), card("wild", D)], trace, "photo.jpg"
    )
    assert [(m.kind, m.box, m.text) for m in mistakes] == [
        ("invented", D, "wild over no label"),
        ("wrong_symbol", A, "3 read as blue-8"),
        ("missed", B, "draw2, lost at detector"),
    ]
    untraced = Evaluation().add_index_symbols(((draw2, B),), [])
    assert [(m.kind, m.text) for m in untraced] == [("missed", "draw2")]
    assert Evaluation().add_index_symbols(((three, A),), [card("red-3", A)]) == []


def test_names_file_keeps_the_named_photos_and_rejects_bad_names(roboflow_folder, tmp_path):
    names = tmp_path / "names.json"
    names.write_text(json.dumps({"cards": {"photo": "red-7", "elsewhere": "blue-1"}}))
    (item,) = labelled_images(roboflow_folder, roboflow=True, named=names)
    assert item.named.name == "red-7"
    assert item.named.boxes[0] == pytest.approx(tuple(v / 320 for v in A))  # the first labelled index
    names.write_text(json.dumps({"cards": {"photo": "purple-7"}}))
    with pytest.raises(UserError, match="not a names file"):
        labelled_images(roboflow_folder, roboflow=True, named=names)
    with pytest.raises(UserError, match="cannot read the names file"):
        labelled_images(roboflow_folder, roboflow=True, named=tmp_path / "missing.json")
