"""``uno-referee eval FOLDER``: score the detector and the card reader on labelled pictures.

A rendered dataset (``uno-referee dataset``) gives card-level scores too, and the share of its
labelled indices the detector found, by how much of each is covered and how big it is (where
recall is lost: small and covered indices, not whole ones), and for each card missed the reader's
step that dropped the last of its index boxes (the network, the corner check, the glyph
classifier, duplicates, the field test, or pairing); a YOLO folder such as
the shared Roboflow photos (add ``--roboflow`` for their class ids) gives symbol-level scores.
Writes ``report.json`` and ``confusion.png`` into ``--report`` and prints a summary. A set dealt
with a real deck's photographed faces (``dataset --faces``) is reported with that deck's name and
whether the models trained on it (then its figures are not an unseen deck's).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from referee.vision.options import add_detector_arguments, add_reader_arguments

if TYPE_CHECKING:
    from collections.abc import Iterator

    from referee.vision.reader import CardReader


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="score the card recognition on labelled pictures",
        description="Score the detector (boxes) and the card reader (cards) on labelled pictures.",
    )
    parser.add_argument(
        "folder",
        type=Path,
        nargs="?",
        help="rendered dataset folder, a YOLO folder (images/, labels/), or a folder of one-card photos "
        "named in labels.jsonl",
    )
    parser.add_argument(
        "--real",
        action="append",
        metavar="FOLDER[:NAMES]",
        help="a real deck, scored on its own (repeat for each deck): one-card photos with labels.jsonl, "
        "or a YOLO folder of photos with a names file after the colon; each deck is marked seen or "
        "unseen by the models, and only unseen decks count as leave-one-deck-out figures",
    )
    parser.add_argument(
        "--turns",
        type=_turns,
        default=(0,),
        metavar="DEGREES",
        help="with --real one-card photos: read each photo turned by each of these angles too "
        "(comma-separated degrees, e.g. 0,90,180,270; default 0): cards lie at any angle on a table, "
        "and each (deck, turn) is scored apart",
    )
    parser.add_argument(
        "--photo-px",
        type=_sizes,
        default=(0,),
        metavar="PIXELS",
        help="with --real one-card photos: read each photo also shrunk so that its longer side is this "
        "many pixels, in the middle of a plain square three times that size, as the table camera frames "
        "a card in the discard zone (comma-separated, e.g. 0,200,120; 0: as photographed, the default); "
        "each (deck, size, turn) is scored apart",
    )
    parser.add_argument(
        "--held-out-models",
        type=Path,
        action="append",
        metavar="DIR",
        help="with --real, or a set dealt a real deck's faces: networks that did not train on a real "
        "deck the shipped ones saw (any of "
        "uno_cards.onnx, uno_glyphs.onnx, uno_corners.onnx with their .json cards; one not there is "
        "the shipped one); every deck the shipped networks saw is scored again by each such folder "
        "whose reader did not see it, as its leave-one-deck-out figure (a dealt set is read by the first "
        "such folder instead of the shipped networks; repeat for several folders; "
        "default: each folder in models/lodo/ in a checkout, one per seen deck; 'none': skip)",
    )
    parser.add_argument("--split", default="val", help="split of a rendered dataset (default val)")
    parser.add_argument(
        "--roboflow", action="store_true", help="labels use the shared Roboflow set's class ids"
    )
    parser.add_argument("--limit", type=int, help="only the first N pictures")
    parser.add_argument(
        "--named",
        type=Path,
        metavar="JSON",
        help='real photos only: {"cards": {stem: "red-7"}} names the card at each photo\'s first labelled '
        "index; scores top-1 card, colour and symbol accuracy on those photos",
    )
    parser.add_argument(
        "--true-boxes",
        action="store_true",
        help="read cards from the labelled boxes, not the detector's: scores the card reader alone",
    )
    parser.add_argument(
        "--report", type=Path, default=Path("runs/eval"), help="folder for report.json and confusion.png"
    )
    parser.add_argument(
        "--errors",
        type=Path,
        metavar="DIR",
        help="rendered datasets and photos labelled by index (a real deck's YOLO folder): also draw "
        "every picture with a mistake into DIR (cards read, labelled indices, and each mistake named: "
        "doubled, on_a_card, invented, missed, wrong_symbol, wrong_colour; on photos, an index missed "
        "with the step that lost it, and a card over no labelled index as invented)",
    )
    add_detector_arguments(parser, threads=2)
    add_reader_arguments(parser)
    parser.set_defaults(handler=run)


def _whole_numbers(text: str) -> tuple[int, ...]:
    """Comma-separated whole numbers, at least one (argparse turns a ValueError into one line)."""
    numbers = tuple(int(part) for part in text.split(",") if part.strip())
    if not numbers:
        raise ValueError("no number")
    return numbers


def _turns(text: str) -> tuple[int, ...]:
    """``--turns``: whole degrees."""
    return _whole_numbers(text)


def _sizes(text: str) -> tuple[int, ...]:
    """``--photo-px``: whole pixels; 0 is the photo as it is."""
    sizes = _whole_numbers(text)
    if any(size != 0 and size < 32 for size in sizes):
        raise ValueError("sizes must be 0 or at least 32 pixels")
    return sizes


def run(args: argparse.Namespace) -> int:
    import cv2

    from referee.errors import UserError
    from referee.lab.evaluate import draw_confusion, evaluate, labelled_images
    from referee.render.dataset import dataset_faces, dataset_typefaces
    from referee.vision.options import reader_from_args, tiles_from_args

    if args.real:
        return run_per_deck(args)
    if args.turns != (0,) or args.photo_px != (0,):
        raise UserError(
            "--turns and --photo-px are for real decks of one-card photos: give them with --real FOLDER"
        )
    if args.folder is None:
        raise UserError("name a labelled folder, or real decks with --real FOLDER")
    if not args.folder.is_dir():
        raise UserError(f"no such folder: {args.folder}")
    images = labelled_images(args.folder, args.split, args.roboflow, args.named)[: args.limit]
    faces = dataset_faces(args.folder)
    reader = reader_from_args(args)
    deck = None if faces is None else str(faces.get("deck"))
    if deck in decks_seen(reader):  # a deck's faces are scored by networks that never saw them
        unseen = ((held, folder) for held, folder in held_out_readers(args) if deck not in decks_seen(held))
        held_out = next(unseen, None)
        if held_out is not None:
            reader, folder = held_out
            print(f"{deck}'s faces are read by the held-out networks in {folder}, which never saw them")
    if args.errors is not None:
        try:
            args.errors.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UserError(f"cannot create the --errors folder {args.errors}: {error.strerror}") from None

    def progress(done: int) -> None:
        if done % 50 == 0:
            print(f"  {done}/{len(images)} pictures", flush=True)

    evaluation = evaluate(
        reader, images, tiles_from_args(args), progress, true_boxes=args.true_boxes, errors=args.errors
    )
    report = {
        "folder": str(args.folder),
        **networks(reader),
        "backend": reader.detector.backend,
        "imgsz": reader.detector.imgsz,
        "conf": args.conf,
        "true_boxes": args.true_boxes,
        "faces": None if faces is None else {**faces, "seen": deck in decks_seen(reader)},
        "typefaces": dataset_typefaces(args.folder),
        **evaluation.to_json(),
    }
    try:
        args.report.mkdir(parents=True, exist_ok=True)
        (args.report / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
        cv2.imwrite(str(args.report / "confusion.png"), draw_confusion(evaluation.confusion))
    except OSError as error:
        raise UserError(f"cannot write the report into {args.report}: {error.strerror}") from error
    print(summary(report))
    print(f"report: {args.report / 'report.json'}, confusion matrix: {args.report / 'confusion.png'}")
    if args.errors is not None:
        print(f"pictures with mistakes drawn: {args.errors}")
    return 0


def networks(reader: CardReader) -> dict[str, str | None]:
    """The files of the networks a reader reads with (None: read without that one), for a report."""
    return {
        "model": str(reader.detector.info.path),
        "glyph_model": str(reader.glyphs.path) if reader.glyphs is not None else None,
        "corner_model": str(reader.corners.path) if reader.corners is not None else None,
        "pair_model": str(reader.pairs.path) if reader.pairs is not None else None,
        "centre_model": str(reader.centres.path) if reader.centres is not None else None,
    }


def decks_seen(reader: CardReader) -> set[str]:
    """The real decks the detector or any second-look network (glyphs, corners, pairs, centres)
    trained on (their cards say)."""
    seen = set(reader.detector.info.decks_seen)
    for network in (reader.glyphs, reader.corners, reader.pairs, reader.centres):
        if network is not None:
            seen |= set(network.info.get("decks_seen", []))
    return seen


def held_out_readers(args: argparse.Namespace) -> Iterator[tuple[CardReader, Path]]:
    """The readers over the ``--held-out-models`` folders, each with its folder, loaded as they are
    asked for: the networks a folder holds, the shipped ones where it holds none (their decks count
    too: a reader that saw a deck never scores it). None with ``none``, with ``--deck`` (a learnt deck
    lives in the shipped glyph classifier's space), or in an installed package (no held-out folders)."""
    from models import HELD_OUT_NETWORKS, held_out_folders
    from referee.errors import UserError
    from referee.vision.options import reader_from_args

    chosen = args.held_out_models
    if args.deck is not None or (chosen is not None and any(str(c).lower() == "none" for c in chosen)):
        return
    options = dict(zip(("model", "glyph_model", "corner_model"), HELD_OUT_NETWORKS, strict=True))
    for folder in held_out_folders() if chosen is None else chosen:
        held = {key: folder / name for key, name in options.items() if (folder / name).is_file()}
        if not held:
            raise UserError(
                f"--held-out-models {folder} holds none of {', '.join(HELD_OUT_NETWORKS)}: "
                "give a folder of held-out networks"
            )
        shown = folder.resolve()
        if shown.is_relative_to(Path.cwd()):
            shown = shown.relative_to(Path.cwd())
        yield reader_from_args(argparse.Namespace(**{**vars(args), **held})), shown


def run_per_deck(args: argparse.Namespace) -> int:
    """Score each ``--real`` deck apart: top-1, symbol and colour accuracy, doubled and missed cards,
    the worst card. A deck the shipped networks trained on is marked *seen*, and scored again by the
    held-out networks where they never saw it: every deck gets a leave-one-deck-out figure."""
    from collections import Counter
    from dataclasses import replace

    from referee.errors import UserError
    from referee.lab.evaluate import evaluate, labelled_images
    from referee.lab.provenance import deck_name
    from referee.vision.options import reader_from_args, tiles_from_args

    reader = reader_from_args(args)
    seen_by_models = decks_seen(reader)
    held_outs = [(held_out, folder, decks_seen(held_out)) for held_out, folder in held_out_readers(args)]
    decks = {}
    # Two folders of one deck (its validation and training photos) are each reported, by folder.
    specs_per_deck = Counter(deck_name(Path(spec.partition(":")[0])) for spec in args.real)
    for spec in args.real:
        folder_text, _, names = spec.partition(":")
        folder = Path(folder_text)
        if not folder.is_dir():
            raise UserError(f"no such deck folder: {folder}")
        images = labelled_images(folder, args.split, args.roboflow, Path(names) if names else None)[
            : args.limit
        ]
        if (args.turns != (0,) or args.photo_px != (0,)) and not all(
            image.one_card_photo for image in images
        ):
            raise UserError(f"{spec}: --turns and --photo-px need one-card photos named in labels.jsonl")
        name = deck_name(folder)
        scorers = [(reader, name in seen_by_models, None)]
        if name in seen_by_models:
            scorers += [
                (held_out, False, str(folder)) for held_out, folder, seen in held_outs if name not in seen
            ]
        for photo_px, turn in [(size, turn) for size in args.photo_px for turn in args.turns]:
            viewed = [replace(image, turn=turn, photo_px=photo_px or None) for image in images]
            for scorer, seen, models in scorers:
                named = evaluate(scorer, viewed, tiles_from_args(args)).to_json().get("named")
                if named is None:
                    raise UserError(
                        f"{spec}: no named cards to score (give a labels.jsonl folder or a names file)"
                    )
                entry = name if specs_per_deck[name] == 1 else f"{name} ({spec})"
                entry += f" at {photo_px} px" if photo_px else ""
                entry += f" turned {turn}°" if args.turns != (0,) else ""
                entry += f" by {models}" if models else ""
                decks[entry] = {
                    "folder": str(folder),
                    "seen": seen,
                    "models": models,
                    "turn": turn,
                    "photo_px": photo_px or None,
                    **named,
                }
    unseen = [deck for deck in decks.values() if not deck["seen"]]
    report = {
        **networks(reader),
        "deck": str(args.deck) if args.deck else None,
        "held_out_models": [str(folder) for _, folder, _ in held_outs],
        "decks": decks,
        "unseen_top1_min": min((deck["top1_accuracy"] for deck in unseen), default=None),
    }
    try:
        args.report.mkdir(parents=True, exist_ok=True)
        (args.report / "decks.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    except OSError as error:
        raise UserError(f"cannot write the report into {args.report}: {error.strerror}") from error
    for name, deck in decks.items():
        mistakes = ", ".join(f"{m['named']}→{m['read']}" for m in deck["mistakes"][:6])
        print(
            f"{name} ({'seen in training' if deck['seen'] else 'unseen: leave-one-deck-out'}), "
            f"{deck['photos']} photos: top-1 {deck['top1_accuracy']:.3f} "
            f"(symbol {deck['symbol_accuracy']:.3f}, "
            f"colour {deck['colour_accuracy']:.3f}); worst card {deck['worst_card_accuracy']:.2f}; "
            f"doubled {deck['doubled']}" + (f"; mistakes: {mistakes}" if mistakes else "")
        )
    if any(deck["seen"] for deck in decks.values()) and not held_outs and args.deck is None:
        print("seen decks have no leave-one-deck-out figure here: give --held-out-models DIR")
    print(f"report: {args.report / 'decks.json'}")
    return 0


def faces_lines(faces: dict | None) -> list[str]:
    """Which real deck's photographed faces a dealt set shows, and whether the models saw that deck."""
    if not faces:
        return []
    seen = (
        "SEEN in training by these models: not an unseen-deck figure"
        if faces.get("seen")
        else "unseen by these models"
    )
    return [f"faces: photographed deck {faces.get('deck')} ({faces.get('photos')} photos), {seen}"]


def typefaces_lines(typefaces: dict | None) -> list[str]:
    """That a rendered set's numerals are in typefaces no network trains on (``dataset --typefaces``)."""
    if not typefaces:
        return []
    return [f"typefaces: numerals in {typefaces.get('faces')} held-out faces, which no network trains on"]


def weakest_symbols(
    per_symbol: dict[str, dict], score: str, *, count: int = 5, only_imperfect: bool = False
) -> list[tuple[float, str, dict]]:
    """The labelled symbols with the lowest `score`, as (score, symbol, row), ties by name."""
    scored = (
        (row[score], symbol, row)
        for symbol, row in per_symbol.items()
        if row["truth"] and not (only_imperfect and row[score] >= 1)
    )
    return sorted(scored, key=lambda item: item[:2])[:count]


def index_symbols_line(scores: dict) -> str:
    """How often the whole reader named the symbol at a labelled index, and the five weakest symbols
    with what they were most often read as."""
    weakest = weakest_symbols(scores["per_symbol"], "recall")
    read_as: dict[str, str] = {}
    for mistake in scores["mistakes"]:
        read_as.setdefault(mistake["labelled"], f"{mistake['read']} ×{mistake['count']}")
    return (
        f"symbols read at labelled indices (colour not labelled): {scores['accuracy']:.3f} of "
        f"{scores['indices']}; weakest: "
        + ", ".join(
            f"{symbol} {row['recall']:.2f} ({row['truth']}"
            + (f"; most often {read_as[symbol]}" if symbol in read_as else "")
            + ")"
            for _, symbol, row in weakest
        )
    )


def lost_at_line(what: str, counts: dict[str, int]) -> str:
    """How many of ``what`` each step of the reader lost (the report's ``*lost_at`` tallies)."""
    return f"{what}, where the reader lost them: " + ", ".join(f"{step} {n}" for step, n in counts.items())


def aside_line(cards: dict) -> str:
    """The card figures with the cards read right from partly shown indices set aside: the renderer
    labels an index from :data:`referee.render.compose.MIN_VISIBLE` shown, and a reader that reads a
    card's narrower sliver is not wrong."""
    overall, aside = cards["overall"], cards["errors"].get("partly_shown", 0)
    read = overall["predicted"] - aside
    precision = overall["tp"] / read if read else 1.0
    return (
        f"set aside, read right from indices shown too little to be labelled: {aside} cards; without "
        f"them precision {precision:.3f}, multiset F1 per picture {cards['multiset_f1_aside_mean']:.3f}"
    )


def summary(report: dict) -> str:
    """The report's headline numbers, a few lines for the terminal."""
    boxes = report["boxes"]["overall"]
    lines = [
        f"{report['images']} pictures, "
        + ("labelled boxes (reader alone)" if report["true_boxes"] else f"model {report['model']}")
        + f" ({report['backend']}, {report['imgsz']} px)",
        *faces_lines(report.get("faces")),
        *typefaces_lines(report.get("typefaces")),
        f"boxes: precision {boxes['precision']:.3f} recall {boxes['recall']:.3f} "
        f"({boxes['tp']} of {boxes['truth']} labelled, {boxes['predicted']} detected)",
    ]
    if "cards" in report:
        cards = report["cards"]
        overall = cards["overall"]
        lines += [
            f"cards: precision {overall['precision']:.3f} recall {overall['recall']:.3f} "
            f"f1 {overall['f1']:.3f}; "
            f"multiset F1 per picture {cards['multiset_f1_mean']:.3f} "
            f"({cards['images_read_perfectly']:.1%} read perfectly)",
            "multiset F1 by scene kind: "
            + ", ".join(
                f"{kind} {scores['mean']:.3f} ({scores['pictures']})"
                for kind, scores in cards["multiset_f1_by_kind"].items()
            ),
            "colours: "
            + ", ".join(
                f"{c} P {s['precision']:.2f} R {s['recall']:.2f}" for c, s in cards["per_colour"].items()
            ),
            f"empty pictures: {cards['empty_images_with_cards']} of {cards['empty_images']} with cards "
            f"({cards['cards_on_empty_images']} false cards); colour from {cards['colour_from']}",
            "card mistakes: " + ", ".join(f"{kind} {count}" for kind, count in cards["errors"].items()),
            aside_line(cards),
        ]
        if cards.get("missed_lost_at"):
            lines.append(lost_at_line("missed cards", cards["missed_lost_at"]))
        if cards.get("indices_found"):
            lines.append(
                "indices the detector found: "
                + ", ".join(
                    f"{condition} {row['found']:.3f} ({row['labelled']})"
                    for condition, row in cards["indices_found"].items()
                )
            )
        weakest = weakest_symbols(cards["per_symbol"], "f1", only_imperfect=True)
        if weakest:
            lines.append(
                "weakest symbols: "
                + ", ".join(
                    f"{symbol} F1 {row['f1']:.2f} (P {row['precision']:.2f} R {row['recall']:.2f}, "
                    f"{row['truth']} cards)"
                    for _, symbol, row in weakest
                )
            )
        if cards["mistakes"]:
            lines.append(
                "cards read wrong: "
                + ", ".join(f"{m['truth']}→{m['read']} ×{m['count']}" for m in cards["mistakes"][:6])
            )
    if "named" in report:
        named = report["named"]
        mistakes = ", ".join(f"{m['named']}→{m['read']} ×{m['count']}" for m in named["mistakes"][:5])
        lines.append(
            f"named cards on {named['photos']} photos: top-1 {named['top1_accuracy']:.3f} "
            f"(colour {named['colour_accuracy']:.3f}, symbol {named['symbol_accuracy']:.3f})"
            + (f"; mistakes: {mistakes}" if mistakes else "")
        )
    if "index_symbols" in report:
        indices = report["index_symbols"]
        lines.append(index_symbols_line(indices))
        unbacked = indices.get("cards_over_no_label")
        if unbacked is not None:
            shown = ", ".join(Path(photo).name for photo in unbacked["examples"][:3])
            lines.append(
                f"cards read over no labelled index (invented, or an index left unlabelled): "
                f"{unbacked['cards']} on {unbacked['photos']} of {report['images']} photos"
                + (f"; e.g. {shown}" if shown else "")
            )
        if indices.get("unread_lost_at"):
            lines.append(lost_at_line("indices no card was read over", indices["unread_lost_at"]))
    worst = report["worst_confusions"][:5]
    if worst:
        lines.append(
            "worst confusions: " + ", ".join(f"{w['truth']}→{w['detected']} ×{w['count']}" for w in worst)
        )
    return "\n".join(lines)
