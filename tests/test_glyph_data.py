"""The glyph classifier's training crops: labelled boxes as a detector would box them."""

from __future__ import annotations

import numpy as np
import pytest
from crop_networks import trained_glyph_network

from referee.lab.glyph_data import PART_OF_WIDE, _crops_of, mined_crops, part_of
from referee.vision.classes import CLASS_NAMES
from referee.vision.glyphs import BACKGROUND


@pytest.mark.parametrize("box", [np.array([10.0, 20.0, 50.0, 40.0]), np.array([10.0, 20.0, 30.0, 80.0])])
def test_a_part_of_a_wide_index_is_one_end_along_its_longer_side(box: np.ndarray) -> None:
    rng = np.random.default_rng(3)
    long_axis = 0 if box[2] - box[0] >= box[3] - box[1] else 1
    ends = set()
    for _ in range(40):
        part = part_of(box, rng)
        short_axis = 1 - long_axis
        assert (part[short_axis], part[short_axis + 2]) == (box[short_axis], box[short_axis + 2])
        share = (part[long_axis + 2] - part[long_axis]) / (box[long_axis + 2] - box[long_axis])
        assert PART_OF_WIDE[0] <= share <= PART_OF_WIDE[1]
        ends.add("start" if part[long_axis] == box[long_axis] else "end")
        assert part[long_axis] == box[long_axis] or part[long_axis + 2] == box[long_axis + 2]
    assert ends == {"start", "end"}


def test_two_character_indices_also_train_as_a_part_of_their_box() -> None:
    image = np.full((200, 200, 3), 90, np.uint8)
    rows = [(CLASS_NAMES.index("wild-draw4"), np.array([20.0, 20.0, 60.0, 45.0]))]
    rows += [(CLASS_NAMES.index("7"), np.array([120.0, 120.0, 140.0, 150.0]))]
    labels = [label for _, label in _crops_of(image, rows, np.random.default_rng(0))]
    indices = [label for label in labels if label != BACKGROUND]
    assert sorted(indices) == sorted([CLASS_NAMES.index("wild-draw4")] * 2 + [CLASS_NAMES.index("7")])


def test_a_crop_set_records_its_real_decks_and_training_refuses_one_that_does_not(tmp_path, capsys) -> None:
    from referee.lab import glyph_training

    old = tmp_path / "old.npz"
    np.savez_compressed(old, crops=np.zeros((4, 40, 40), np.uint8), labels=np.zeros(4, np.int64))
    assert glyph_training.main([str(old), "--out", str(tmp_path / "g.onnx")]) == 2
    assert capsys.readouterr().err == (
        f"glyph_training: error: {old} does not record which real decks it holds: make it again\n"
    )
    assert not (tmp_path / "g.onnx").exists()


def test_mined_boxes_on_nothing_are_background_and_boxes_on_an_index_keep_its_class() -> None:
    image = np.full((200, 200, 3), 90, np.uint8)
    seven = CLASS_NAMES.index("7")
    rows = [(seven, np.array([20.0, 20.0, 40.0, 50.0]))]
    hidden = [np.array([120.0, 20.0, 140.0, 50.0])]  # an index mostly covered: not labelled
    found = [
        np.array([21.0, 19.0, 41.0, 51.0]),  # the labelled 7, as the detector boxes it
        np.array([100.0, 120.0, 125.0, 150.0]),  # a clock's digit: nothing labelled there
        np.array([30.0, 35.0, 50.0, 65.0]),  # a quarter of the 7: teaches nothing certain
        np.array([119.0, 21.0, 139.0, 49.0]),  # the covered index: neither card nor clutter
    ]
    labels = [label for _, label in mined_crops(image, rows, found, hidden)]
    assert labels == [seven, BACKGROUND]


def test_a_picture_without_indices_mines_every_box_as_background() -> None:
    image = np.full((100, 100, 3), 200, np.uint8)
    found = [np.array([10.0, 10.0, 30.0, 40.0]), np.array([50.0, 50.0, 70.0, 80.0])]
    assert [label for _, label in mined_crops(image, [], found)] == [BACKGROUND, BACKGROUND]


def test_the_classifier_rebuilt_from_its_export_gives_the_exported_outputs(tmp_path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnx")
    onnxruntime = pytest.importorskip("onnxruntime")
    from referee.lab import glyph_training

    net = trained_glyph_network(4)
    exported = tmp_path / "glyphs.onnx"
    glyph_training.export(net, exported, {"decks_seen": []})
    rebuilt = glyph_training.build_network()
    rebuilt.load_state_dict(glyph_training.state_from_onnx(exported))
    rebuilt.eval()
    crops = np.random.default_rng(0).random((5, 3, 40, 40)).astype(np.float32)
    probabilities, embedding = onnxruntime.InferenceSession(str(exported)).run(None, {"crops": crops})
    with torch.no_grad():
        logits, rebuilt_embedding = rebuilt(torch.from_numpy(crops))
    np.testing.assert_allclose(torch.softmax(logits, 1).numpy(), probabilities, atol=1e-5)
    np.testing.assert_allclose(rebuilt_embedding.numpy(), embedding, atol=1e-5)


def test_training_from_a_start_that_is_no_classifier_is_one_line(tmp_path, capsys) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    from referee.lab import glyph_training

    crops = tmp_path / "crops.npz"
    np.savez_compressed(
        crops,
        crops=np.zeros((60, 40, 40, 3), np.uint8),
        labels=np.arange(60) % 2,
        decks_seen=np.array([], dtype=str),
    )
    damaged = tmp_path / "start.onnx"
    damaged.write_bytes(b"not a network")
    damaged.with_suffix(".json").write_text('{"decks_seen": []}', encoding="utf-8")
    out = tmp_path / "g.onnx"
    arguments = [str(crops), "--init", str(damaged), "--out", str(out), "--minutes", "0.01"]
    assert glyph_training.main(arguments) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"glyph_training: error: cannot read the classifier {damaged}")
    assert err.count("\n") == 1
    assert not out.exists()


def test_a_batch_augmented_in_a_worker_process_is_the_batch_made_in_this_one() -> None:
    torch = pytest.importorskip("torch")
    from referee.lab.glyph_training import _AugmentedBatches

    rng = np.random.default_rng(5)
    crops = rng.integers(0, 256, (70, 40, 40, 3), dtype=np.uint8)
    labels = np.arange(70) % 23
    order = rng.permutation(70)
    batches = _AugmentedBatches(crops, labels, order, 16, (7, 2))
    assert len(batches) == 5  # the last one short
    loaded = list(torch.utils.data.DataLoader(batches, batch_size=None, num_workers=2))
    for number, (x, y) in enumerate(loaded):
        here_x, here_y = batches[number]
        assert torch.equal(x, here_x) and torch.equal(y, here_y)
    assert loaded[-1][1].shape == (6,)
    assert not torch.equal(loaded[0][0][:6], _AugmentedBatches(crops, labels, order, 16, (8, 2))[0][0][:6])


@pytest.mark.parametrize("device", ["gpu0", "cuda"])
def test_a_device_this_machine_does_not_have_is_one_line(tmp_path, capsys, device: str) -> None:
    torch = pytest.importorskip("torch")
    if device == "cuda" and torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    from referee.lab import glyph_training

    crops = tmp_path / "crops.npz"
    np.savez(
        crops,
        crops=np.zeros((4, 40, 40, 3), np.uint8),
        labels=np.zeros(4, np.int64),
        decks_seen=np.array([], str),
    )
    out = tmp_path / "g.onnx"
    assert glyph_training.main([str(crops), "--out", str(out), "--device", device]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"glyph_training: error: --device {device}") and err.count("\n") == 1
    assert not out.exists()


def test_an_index_mostly_covered_trains_as_background_and_a_half_covered_one_teaches_nothing() -> None:
    from types import SimpleNamespace

    from referee.lab.glyph_data import COVERED_VISIBLE, covered_boxes
    from referee.render.compose import LabelBox

    seven, star = CLASS_NAMES.index("7"), CLASS_NAMES.index("cb-star")
    low, high = COVERED_VISIBLE
    boxes = [
        LabelBox(seven, (20.0, 20.0, 40.0, 50.0), 0.9, True),  # in view: labelled
        LabelBox(seven, (120.0, 20.0, 140.0, 50.0), (low + high) / 2, False),  # mostly covered
        LabelBox(seven, (60.0, 120.0, 80.0, 150.0), 0.55, False),  # about half: nothing certain
        LabelBox(seven, (150.0, 150.0, 170.0, 180.0), low / 2, False),  # all but gone
        LabelBox(star, (90.0, 20.0, 100.0, 30.0), (low + high) / 2, False),  # not an index
    ]
    cards = [SimpleNamespace(face_up=True, boxes=boxes), SimpleNamespace(face_up=False, boxes=boxes)]
    covered = covered_boxes(cards)
    assert [tuple(box) for box in covered] == [(120.0, 20.0, 140.0, 50.0)]

    image = np.full((200, 200, 3), 90, np.uint8)
    rows = [(seven, np.array(boxes[0].box))]
    hidden = [np.array(box.box) for box in boxes[1:]]
    found = [
        np.array([21.0, 19.0, 41.0, 51.0]),  # the labelled 7
        np.array([121.0, 22.0, 139.0, 36.0]),  # the visible part of the covered 7
        np.array([61.0, 121.0, 79.0, 137.0]),  # the visible part of the half-covered 7
    ]
    labels = [label for _, label in mined_crops(image, rows, found, hidden, covered=covered)]
    assert labels == [seven, BACKGROUND]
    without = [label for _, label in _crops_of(image, rows, np.random.default_rng(0))]
    rendered = [label for _, label in _crops_of(image, rows, np.random.default_rng(0), covered=covered)]
    assert rendered.count(seven) == without.count(seven) == 1
    assert rendered.count(BACKGROUND) == without.count(BACKGROUND) + 1


def test_photo_artefacts_blur_fine_strokes_and_keep_the_colours() -> None:
    """A compressed photo's small index: one-pixel strokes melt (JPEG blocks, shrinking), the print
    colour stays where it was (the colour of the field is not the classifier's job, but the crop must
    still look like that card)."""
    from referee.lab.glyph_training import photo_artefacts

    crop = np.zeros((40, 40, 3), np.uint8)
    crop[:, :] = (40, 60, 200)  # a red field (BGR)
    crop[8:32, 8:32:2] = 255  # white one-pixel strokes
    rng = np.random.default_rng(3)
    for _ in range(20):
        out = photo_artefacts(crop, rng)
        assert out.shape == crop.shape and out.dtype == np.uint8
        strokes = np.abs(np.diff(out[8:32, 8:32].astype(np.int16), axis=1)).mean()
        assert strokes < 0.8 * np.abs(np.diff(crop[8:32, 8:32].astype(np.int16), axis=1)).mean()
        border = out[:4].reshape(-1, 3).mean(axis=0)
        assert np.abs(border - (40, 60, 200)).max() < 25


def test_a_photo_artefact_share_of_0_touches_no_crop_and_of_1_every_crop() -> None:
    from referee.lab.glyph_training import augment

    crops = np.random.default_rng(0).integers(0, 256, (16, 40, 40, 3), dtype=np.uint8)
    without = augment(crops, np.random.default_rng(7), photo_share=0.0)
    again = augment(crops, np.random.default_rng(7), photo_share=0.0)
    every = augment(crops, np.random.default_rng(7), photo_share=1.0)
    np.testing.assert_array_equal(without, again)
    # noise crops lose most of their pixel-to-pixel contrast once shrunk and compressed
    assert np.abs(np.diff(every, axis=3)).mean() < 0.7 * np.abs(np.diff(without, axis=3)).mean()


def test_a_photo_artefact_share_outside_0_to_1_is_one_line(tmp_path, capsys) -> None:
    from referee.lab import glyph_training

    crops = tmp_path / "crops.npz"
    np.savez_compressed(crops, crops=np.zeros((4, 40, 40, 3), np.uint8), labels=np.zeros(4, np.int64))
    out = tmp_path / "g.onnx"
    assert glyph_training.main([str(crops), "--out", str(out), "--photo-artefacts", "1.5"]) == 2
    err = capsys.readouterr().err
    assert err == "glyph_training: error: --photo-artefacts is a share between 0 and 1 (got 1.5)\n"
    assert not out.exists()


def test_a_reshaped_glyph_keeps_its_crop_and_changes_its_slant_width_or_strokes() -> None:
    from referee.lab.glyph_training import augment, reshaped
    from referee.vision.glyphs import CROP_PX

    crop = np.full((CROP_PX, CROP_PX, 3), 40, np.uint8)
    crop[8:32, 18:22] = 230  # a white upright stroke: a 1 without its flag
    rng = np.random.default_rng(5)
    shapes = [reshaped(crop, rng) for _ in range(12)]
    assert all(shape.shape == crop.shape and shape.dtype == np.uint8 for shape in shapes)
    assert all(not np.array_equal(shape, crop) for shape in shapes)
    widths = {int((shape[20, :, 0] > 135).sum()) for shape in shapes}  # the stroke's width across its middle
    assert min(widths) < 4 < max(widths)  # lighter and bolder faces both drawn
    # Off by default: the shipped recipe's augmentation does not change.
    batch = np.repeat(crop[None], 4, axis=0)
    assert np.array_equal(
        augment(batch, np.random.default_rng(1)), augment(batch, np.random.default_rng(1), shapes=0)
    )


def test_a_shapes_share_outside_0_to_1_is_a_one_line_error(tmp_path, capsys) -> None:
    from referee.lab import glyph_training

    assert (
        glyph_training.main([str(tmp_path / "c.npz"), "--out", str(tmp_path / "g.onnx"), "--shapes", "2"])
        == 2
    )
    assert capsys.readouterr().err == "glyph_training: error: --shapes is a share between 0 and 1 (got 2.0)\n"


def test_a_run_of_so_many_epochs_trains_exactly_that_many_however_little_time_it_is_given() -> None:
    pytest.importorskip("torch")
    from referee.lab.glyph_training import CROP_PX, train

    rng = np.random.default_rng(3)
    crops = rng.integers(0, 256, (48, CROP_PX, CROP_PX, 3), dtype=np.uint8)
    lines: list[str] = []
    train(crops, np.arange(48) % 3, minutes=0.0, batch=16, threads=1, log=lines.append, classes=3, epochs=2)
    assert [line.split(":")[0] for line in lines] == ["epoch 1", "epoch 2"]


def test_a_number_of_epochs_under_1_is_a_one_line_error(tmp_path, capsys) -> None:
    from referee.lab import glyph_training

    arguments = [str(tmp_path / "c.npz"), "--out", str(tmp_path / "g.onnx"), "--epochs", "0"]
    assert glyph_training.main(arguments) == 2
    expected = "glyph_training: error: --epochs is a whole number of at least 1 (got 0)\n"
    assert capsys.readouterr().err == expected


def test_crops_of_one_scene_kind_are_the_indices_of_that_kind_of_scene(tmp_path) -> None:
    """`--kind row` crops the rows the detector's row fine-tune saw, not the training mix."""
    from collections import Counter

    from referee.lab.evaluate import yolo_boxes
    from referee.lab.glyph_data import WIDE_INDICES, build
    from referee.render.scenes import render_scene

    out = tmp_path / "rows.npz"
    build(out, scenes=3, seed=11, size=320, roboflow=None, workers=1, kind="row")
    labels = np.load(out)["labels"]
    expected: Counter[int] = Counter()
    for index in range(3):
        scene = render_scene(np.random.default_rng([11, index]), 320, "row")
        assert len([c for c in scene.scene.cards if c.face_up]) >= 2  # a hand in a row, not one card
        for class_id, _ in yolo_boxes(scene.labels, 320, 320):
            expected[class_id] += 2 if class_id in WIDE_INDICES else 1
    assert Counter(labels[labels != BACKGROUND].tolist()) == expected
