"""The model card describes the networks actually shipped: a new network, or one that saw another
real deck, must change the card in the same commit (the card is what a user reads before trusting
the referee with a deck)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CARD = ROOT / "models" / "MODEL_CARD.md"
#: How the card names each real deck a network's ``.json`` may list in ``decks_seen``.
DECK_NAMES = {"uno-cards-roboflow": "Roboflow", "uno-cards-criscard": "criscard"}


def _network_rows() -> dict[str, str]:
    """File name → its "decks seen" cell, from the card's table of networks."""
    text = CARD.read_text(encoding="utf-8")
    section = text.split("## The networks", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        found = re.match(r"\| `(uno_[\w.]+\.onnx)`", line)
        if found:
            rows[found.group(1)] = line.strip().strip("|").split("|")[-1].strip()
    return rows


def _shipped_networks() -> list[Path]:
    return sorted((ROOT / "models").glob("uno_*.onnx"))


def test_the_card_has_a_row_for_every_shipped_network_and_no_other() -> None:
    assert sorted(_network_rows()) == [path.name for path in _shipped_networks()]


@pytest.mark.parametrize("network", _shipped_networks(), ids=lambda path: path.name)
def test_the_card_names_the_real_decks_each_network_saw(network: Path) -> None:
    record = json.loads(network.with_suffix(".json").read_text(encoding="utf-8"))
    unknown = [deck for deck in record["decks_seen"] if deck not in DECK_NAMES]
    assert not unknown, f"name {unknown} in DECK_NAMES and in the card's table of networks"
    expected = {DECK_NAMES[deck] for deck in record["decks_seen"]} or {"none"}
    cell = _network_rows()[network.name]
    assert {name.strip() for name in cell.split(",")} == expected, f"{network.name}: {cell!r}"


def test_the_cards_links_lead_somewhere() -> None:
    text = CARD.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)\)", text)
    assert targets
    missing = [target for target in targets if not (CARD.parent / target).resolve().exists()]
    assert not missing
