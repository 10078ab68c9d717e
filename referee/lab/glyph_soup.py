"""A weight soup: crop classifiers fine-tuned from one start, averaged into one network.

Two fine-tunes of the glyph classifier from the same weights disagree, set by set, on typefaces no
network saw (by up to 0.015 of the boxes, sixty-third session), and the average of their answers is
better than either. Averaging their *weights* instead keeps that gain in one network of the same
size and speed, which runs on the Pi as the one it replaces (a "uniform soup": fine-tunes of one start
lie in one basin, where the mean of their weights is itself a good network).

The members are read from their ONNX exports (:func:`referee.lab.glyph_training.state_from_onnx`,
batch norms folded), so no checkpoint is needed. The soup's card lists every deck any member saw.

``python -m referee.lab.glyph_soup OUT.onnx A.onnx B.onnx …``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from referee.errors import UserError

#: Card entries that describe how a crop is cut and named: the members must agree on them.
SAME_IN_EVERY_MEMBER = ("classes", "crop_px", "context")


def member_cards(models: list[Path]) -> list[dict]:
    """Each member's ``.json`` card; a one-line error where one is missing or the members disagree
    on what they look at (:data:`SAME_IN_EVERY_MEMBER`)."""
    if len(models) < 2:
        raise UserError("a soup needs at least two classifiers")
    cards = []
    for model in models:
        card = model.with_suffix(".json")
        try:
            cards.append(json.loads(card.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise UserError(
                f"cannot read {card} ({error}): each classifier needs its card beside it"
            ) from None
    for key in SAME_IN_EVERY_MEMBER:
        values = {json.dumps(card.get(key)) for card in cards}
        if len(values) > 1:
            raise UserError(f"the classifiers differ in {key!r}: only fine-tunes of one network make a soup")
    return cards


def soup_card(models: list[Path], cards: list[dict]) -> dict:
    """The soup's card: the members' shared entries, every deck any of them saw, and what it is."""
    card = {key: cards[0][key] for key in SAME_IN_EVERY_MEMBER if key in cards[0]}
    if "photo_artefacts" in cards[0]:
        card["photo_artefacts"] = cards[0]["photo_artefacts"]
    card["trained_on"] = "uniform weight soup of " + "; ".join(
        f"{model.name}: {member.get('trained_on', '')}" for model, member in zip(models, cards, strict=True)
    )
    card["decks_seen"] = sorted({deck for member in cards for deck in member.get("decks_seen", [])})
    return card


def make_soup(models: list[Path], out: Path) -> dict:
    """Average the members' weights into ``out`` (and its card); returns the card."""
    from referee.lab.glyph_training import build_network, export, state_from_onnx

    cards = member_cards(models)
    states = [state_from_onnx(model) for model in models]
    if len({tuple(state["classes.bias"].shape) for state in states}) > 1:
        raise UserError("the classifiers answer different numbers of classes: they make no soup")
    averaged = {
        name: sum(state[name] for state in states) / len(states)
        if states[0][name].is_floating_point()
        else states[0][name]
        for name in states[0]
    }
    net = build_network(len(averaged["classes.bias"]))
    net.load_state_dict(averaged)
    card = soup_card(models, cards)
    export(net, out, card)
    return card


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m referee.lab.glyph_soup", description=__doc__.splitlines()[0]
    )
    parser.add_argument("out", type=Path, help="the soup's ONNX file (its card is written beside it)")
    parser.add_argument("models", type=Path, nargs="+", metavar="MODEL", help="classifier .onnx files")
    args = parser.parse_args(argv)
    try:
        card = make_soup(args.models, args.out)
    except UserError as error:
        print(f"glyph_soup: error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}: {len(args.models)} classifiers averaged; decks seen: {card['decks_seen']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
