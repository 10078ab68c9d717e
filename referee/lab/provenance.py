"""Which real decks a model trained on, carried from data set to checkpoint to the exported model.

A figure on a deck the models saw says nothing about decks they never saw (leave-one-deck-out), so
that fact must not rest on anyone remembering it:

- ``uno-referee dataset --roboflow FOLDER`` records the real deck whose photos it mixes in
  (``decks_seen`` in ``data.yaml``);
- training records, beside its run (``runs/NAME/decks_seen.json``), the decks of its data set and of
  the checkpoint it started from (a fine-tune saw what its start saw);
- a checkpoint kept in ``models/checkpoints/`` carries the same record beside it (``NAME.decks.json``);
- the export writes the record into the model's JSON card, where ``uno-referee eval`` reads it to
  mark a deck *seen*.

A checkpoint with no record is refused in one line: an unknown history would count as unseen.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from referee.errors import UserError

#: The record a run keeps in its own folder (ultralytics writes the checkpoints into ``weights/``).
RUN_RECORD = "decks_seen.json"


def deck_name(folder: Path) -> str:
    """A deck's name: its folder's (``uno-cards-criscard``), or the parent's for a split folder."""
    folder = folder.resolve()
    return folder.parent.name if folder.name in ("train", "valid", "val", "test") else folder.name


def dataset_decks(data_yaml: Path) -> list[str]:
    """The real decks a data set mixes in (``decks_seen`` in its ``data.yaml``; none if rendered only)."""
    import yaml

    try:
        data = yaml.safe_load(data_yaml.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise UserError(f"cannot read the data set description {data_yaml}: {error}") from None
    return _deck_names(data.get("decks_seen", []) if isinstance(data, dict) else [], data_yaml)


def checkpoint_record(weights: Path) -> Path:
    """Where a checkpoint's record lies: beside it, or its run's for ultralytics' ``NAME/weights/X.pt``."""
    beside = weights.with_suffix(".decks.json")
    if beside.is_file() or weights.parent.name != "weights":
        return beside
    return weights.parent.parent / RUN_RECORD


def checkpoint_decks(weights: Path) -> list[str]:
    """The real decks ``weights`` trained on; a one-line error where nobody recorded them."""
    record = checkpoint_record(weights)
    try:
        decks = json.loads(record.read_text(encoding="utf-8"))["decks_seen"]
    except FileNotFoundError:
        raise UserError(
            f"which real decks {weights} trained on is not recorded: write {record} as "
            '{"decks_seen": ["uno-cards-roboflow"]} (the decks its data mixed in; [] for none)'
        ) from None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        raise UserError(f'{record} is damaged ({error}): it must hold {{"decks_seen": [...]}}') from None
    return _deck_names(decks, record)


def _deck_names(value: object, source: Path) -> list[str]:
    """``value`` as a record's list of deck names; a one-line error naming ``source`` otherwise."""
    if not isinstance(value, list) or not all(isinstance(deck, str) for deck in value):
        raise UserError(f"{source}: decks_seen must be a list of deck names")
    return value


def write_record(path: Path, decks: Iterable[str]) -> Path:
    """Write a record of decks seen (sorted, once each)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"decks_seen": sorted(set(decks))}) + "\n", encoding="utf-8")
    return path


def record_run(run_dir: Path, data_yaml: Path, start: Path | None) -> None:
    """Record what a new run sees: its data set's decks and its starting checkpoint's."""
    start_decks = checkpoint_decks(start) if start is not None else []
    write_record(run_dir / RUN_RECORD, [*dataset_decks(data_yaml), *start_decks])
