"""Shared fixtures: where the shared rules and data live, and hard failures in CI when they are missing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def shared_dir() -> Path:
    """``$UNO_SHARED_DIR`` or ``../shared`` beside the repository."""
    return Path(os.environ.get("UNO_SHARED_DIR", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def shared() -> Path:
    """The shared folder; skipped visibly on a clone without it, but a failure in CI."""
    path = shared_dir()
    if not (path / "rules").is_dir():
        message = f"shared material not found at {path} (set UNO_SHARED_DIR)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def shipped_imgsz() -> int:
    """The input size the shipped detector's card names (tests must not assume one)."""
    from models import METADATA_FILE, model_file

    return int(json.loads(model_file(METADATA_FILE).read_text())["imgsz"])


@pytest.fixture
def held_out_folder(tmp_path):
    """Makes held-out folders: the shipped reader's networks under another name, their cards saying
    they saw the decks given (``held_out_folder(seen=[...], name=...)``)."""
    from models import HELD_OUT_NETWORKS, model_file

    def make(seen: list[str], name: str = "held-out") -> Path:
        folder = tmp_path / name
        folder.mkdir()
        for network in HELD_OUT_NETWORKS:
            (folder / network).symlink_to(model_file(network))
            card = json.loads(model_file(network).with_suffix(".json").read_text())
            (folder / network).with_suffix(".json").write_text(json.dumps({**card, "decks_seen": seen}))
        return folder

    return make


@pytest.fixture(scope="session")
def roboflow_held_out() -> dict[str, str]:
    """The networks that never saw the Roboflow deck (``models/lodo/roboflow``) as ``card_reader``'s
    keyword arguments; skipped where the folder is absent (an installed package has none)."""
    from models import HELD_OUT_FOLDER, HELD_OUT_NETWORKS, model_file

    folder = model_file(HELD_OUT_FOLDER) / "roboflow"
    if not folder.is_dir():
        pytest.skip("models/lodo/ is in a checkout only")
    keys = ("model", "glyph_model", "corner_model")
    return {key: str(folder / name) for key, name in zip(keys, HELD_OUT_NETWORKS, strict=True)}
