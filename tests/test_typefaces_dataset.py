"""``uno-referee dataset --typefaces held-out``: the rendered stand-in for a deck we do not have.

Its numerals are drawn in typefaces no network trains on, in the very scenes the same seed renders
without it, so a model can be chosen on decks it never saw without scoring a real deck. CI installs
none of the held-out font packages, so the tests hand it vendored faces as the held-out pool.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

import referee.render.cards as cards
import referee.render.glyphs as glyphs
from referee.cli import main
from referee.render.cards import render_card
from referee.render.glyphs import FONT_DIR, HELD_OUT_FAMILIES, NUMERAL_FAMILIES, held_out_fonts, numeral_fonts
from referee.render.scenes import Retype
from referee.vision.scripted import tensor_for_boxes, write_scripted_model

#: Vendored faces standing in for the held-out pool (two families: DejaVuSerif and DejaVuSansMono).
POOL = (str(FONT_DIR / "DejaVuSerif-Bold.ttf"), str(FONT_DIR / "DejaVuSansMono-Bold.ttf"))


@pytest.fixture
def held_out_pool(monkeypatch) -> tuple[str, ...]:
    monkeypatch.setattr(glyphs, "held_out_fonts", lambda: POOL)
    return POOL


def _dataset(out: Path, *extra: str, kind: str = "table", count: int = 2) -> list[str]:
    return ["dataset", str(out), "--count", str(count), "--seed", "5", "--size", "320", "--workers", "1",
            "--kind", kind, "--val-fraction", "1", *extra]  # fmt: skip


def _sidecars(out: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "meta" / "val").glob("*.json"))]


def test_no_held_out_family_is_a_training_family() -> None:
    for held_out in HELD_OUT_FAMILIES:
        for training in NUMERAL_FAMILIES:
            assert not held_out.startswith(training) and not training.startswith(held_out), (
                held_out,
                training,
            )
    assert not set(held_out_fonts()) & set(numeral_fonts())  # whatever this machine has installed


def test_a_retyped_face_draws_its_numerals_only_in_the_faces_it_is_given(monkeypatch) -> None:
    used: list[str] = []

    def recording_text_mask(text, height, font_name, *args, **kwargs):
        used.append(font_name)
        return glyphs.text_mask(text, height, font_name, *args, **kwargs)

    rendered = render_card("blue-8", "classic", False, 200, np.random.default_rng(4), variety=True)
    monkeypatch.setattr(cards, "text_mask", recording_text_mask)
    retyped = Retype(POOL, seed=2)
    faces = [retyped(rendered) for _ in range(12)]
    assert used and set(used) <= set(POOL)
    assert set(used) == set(POOL)  # both families, in a dozen draws
    assert all(face.name == "blue-8" and face.size == rendered.size for face in faces)
    assert {r.class_id for face in faces for r in face.regions} == {r.class_id for r in rendered.regions}


def test_a_retyped_set_lays_out_the_same_scenes_in_other_faces(held_out_pool, tmp_path, capsys) -> None:
    retyped, rendered = tmp_path / "retyped", tmp_path / "rendered"
    assert main(_dataset(retyped, "--typefaces", "held-out")) == 0
    assert "numerals in 2 held-out faces" in capsys.readouterr().out
    assert main(_dataset(rendered)) == 0
    for a, b in zip(_sidecars(retyped), _sidecars(rendered), strict=True):
        assert [card["polygon"] for card in a["cards"]] == [card["polygon"] for card in b["cards"]]
        assert [card["name"] for card in a["cards"]] == [card["name"] for card in b["cards"]]
        assert a["objects"] == b["objects"] and a["typefaces"] == "held-out" and "typefaces" not in b
        assert (retyped / "images" / "val" / a["image"]).read_bytes() != (
            rendered / "images" / "val" / b["image"]
        ).read_bytes()
    data = yaml.safe_load((retyped / "data.yaml").read_text())
    assert data["typefaces"]["faces"] == 2 and "evaluation only" in data["typefaces"]["use"]
    assert data["typefaces"]["families"] == list(HELD_OUT_FAMILIES)
    assert "typefaces" not in yaml.safe_load((rendered / "data.yaml").read_text())


def test_eval_says_a_set_is_in_held_out_typefaces(held_out_pool, tmp_path, capsys) -> None:
    out = tmp_path / "retyped"
    assert main(_dataset(out, "--typefaces", "held-out", kind="discard", count=1)) == 0
    blind = write_scripted_model(tmp_path / "blind.onnx", tensor_for_boxes([(0, 0, 1, 1)], ["0"], scores=0.0))
    report_dir = tmp_path / "report"
    arguments = [
        "eval",
        str(out),
        "--model",
        str(blind),
        "--glyph-model",
        "none",
        "--report",
        str(report_dir),
    ]
    assert main(arguments) == 0
    assert "typefaces: numerals in 2 held-out faces, which no network trains on" in capsys.readouterr().out
    assert json.loads((report_dir / "report.json").read_text())["typefaces"]["faces"] == 2


@pytest.mark.parametrize(
    ("extra", "pool", "message"),
    [
        (("--faces", "somewhere"), POOL, "--typefaces held-out makes an evaluation set of rendered faces"),
        (("--roboflow", "somewhere"), POOL, "leave out --faces and --roboflow"),
        ((), (), "no held-out face is installed: apt-get install fonts-inter"),
    ],
)
def test_a_held_out_set_that_cannot_be_made_is_a_one_line_error(
    monkeypatch, tmp_path, capsys, extra, pool, message
):
    monkeypatch.setattr(glyphs, "held_out_fonts", lambda: pool)
    assert main(_dataset(tmp_path / "out", "--typefaces", "held-out", *extra)) == 2
    err = capsys.readouterr().err
    assert err.startswith("uno-referee: error: ") and err.count("\n") == 1, err
    assert message in err


def test_held_out_typefaces_are_not_added_to_a_rendered_set_or_the_other_way(held_out_pool, tmp_path, capsys):
    rendered, retyped = tmp_path / "rendered", tmp_path / "retyped"
    assert main(_dataset(rendered, count=1)) == 0
    assert main(_dataset(retyped, "--typefaces", "held-out", count=1)) == 0
    capsys.readouterr()
    assert main(_dataset(rendered, "--typefaces", "held-out", count=2)) == 2
    assert (
        "holds scenes with rendered faces, not rendered faces in held-out typefaces"
        in capsys.readouterr().err
    )
    assert main(_dataset(retyped, count=2)) == 2
    assert (
        "holds scenes with rendered faces in held-out typefaces, not rendered faces"
        in capsys.readouterr().err
    )
    assert len(list((rendered / "images" / "val").glob("*.jpg"))) == 1  # nothing was added
