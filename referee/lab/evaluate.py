"""How well the vision runtime reads cards: symbol-level and card-level scores, a confusion matrix.

Two kinds of labelled folders:

* **rendered scenes** written by ``uno-referee dataset`` (``images/SPLIT``, ``labels/SPLIT`` and the
  card-level sidecars ``meta/SPLIT/*.json``): the reader's *cards* are scored against the visible
  cards (per card name, per symbol, per colour, the card multiset of each picture, false cards on
  pictures without any), and the detector's *boxes* against the labels;
* **YOLO folders** (``images/`` + ``labels/``), such as the shared Roboflow photos (``--roboflow``
  maps their class ids): boxes only — those photos carry no colour labels — unless a *names file*
  names the card of each photo's first labelled index (colour checked by eye): then the reader is
  scored on those real cards too, as top-1 accuracy per card, colour and symbol.

Boxes are matched greedily by score at IoU ≥ 0.5 regardless of class, so a wrong class counts as a
confusion (and as a miss plus a false detection); unmatched predictions land in the background row.

On rendered scenes every card mistake is also sorted by kind (:data:`CARD_ERRORS`) — a card read
twice (under one name, or as two cards when one corner is misread), a card read where a card
shows no labelled index (its centre symbol, a hidden corner), a card invented off the cards
(clutter, hands), two cards read as one (their corners paired), a card missed, a wrong symbol, a
wrong colour — with the pictures where each happened, and ``errors`` draws them: the families a
reader fix targets.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from referee.errors import UserError
from referee.render.compose import MIN_VISIBLE
from referee.vision.classes import CLASS_NAMES, COLOURS, ROBOFLOW_TO_CLASS, SYMBOL_CLASSES
from referee.vision.detection import Detection, box_iou, box_share_inside
from referee.vision.images import IMAGE_SUFFIXES, read_image
from referee.vision.reader import Card, CardReader, ReadTrace

BOX_IOU = 0.5  # a detection finds a labelled box (the usual mAP50 criterion)
CARD_IOU = 0.3  # a read card is a labelled card when one of its indices overlaps one of the card's
#: … or when one of its index boxes lies at least this share inside one of the card's: a face dealt
#: from a photo (``dataset --faces``) is labelled with the region its deck prints indices in
#: (:data:`referee.lab.photo_faces.INDEX_REGION`, wide enough for "+4"), and a narrow 1 or a flat
#: reverse arrow boxed tight inside it overlaps that region by less than CARD_IOU.
INSIDE_LABEL = 0.8
BACKGROUND = len(CLASS_NAMES)  # the extra row/column of the confusion matrix
WILD = "wild"  # the colour column of wild cards in the per-colour scores
#: The kinds of card mistakes on rendered scenes, and what each means.
CARD_ERRORS: dict[str, str] = {
    "doubled": "a card read twice under one name (its two corners not paired)",
    "corners_disagree": "a card read twice as two cards (one corner misread, so the corners could not pair)",
    "on_a_card": "a card read where a card shows no labelled index (its centre symbol, a hidden corner)",
    "partly_shown": (
        f"a card read by its right name from an index under {MIN_VISIBLE:.0%} shown, which the renderer"
        " leaves unlabelled: the card is there (counted apart, and set aside in the figures that say so)"
    ),
    "invented": "a card read off every card (clutter, a hand, the table)",
    "merged": "a visible card whose index was read as part of another card (two cards' corners paired)",
    "missed": "a visible card not read",
    "wrong_symbol": "a card read with the wrong symbol",
    "wrong_colour": "a card read with the right symbol in the wrong colour",
}
#: A rendered scene's face-up index boxes shown too little to be labelled: (card name, box) each.
PartlyShown = tuple[tuple[str, tuple[float, float, float, float]], ...]
#: Pictures kept as examples per kind of card mistake.
EXAMPLES_PER_ERROR = 8


@dataclass(frozen=True)
class TruthCard:
    """A card the reader should see: its name and its labelled index boxes (with, for rendered
    scenes, the share of each box left uncovered)."""

    name: str
    boxes: tuple[tuple[float, float, float, float], ...]
    visible: tuple[float, ...] = ()


@dataclass(frozen=True)
class CardError:
    """One card mistake on a picture: its kind (:data:`CARD_ERRORS`), where, and what was read."""

    kind: str
    box: tuple[float, float, float, float]  # around the indices read, or a missed card's labelled ones
    text: str


def _union(boxes: tuple[tuple[float, float, float, float], ...]) -> tuple[float, float, float, float]:
    x1, y1, x2, y2 = np.asarray(boxes, np.float64).reshape(-1, 4).T
    return float(x1.min()), float(y1.min()), float(x2.max()), float(y2.max())


def _read_from(card: Card) -> tuple[float, float, float, float]:
    """The box around the indices a card was read from: where its mistake is framed."""
    return _union(tuple(d.box for d in card.indices))


@dataclass(frozen=True)
class LabelledImage:
    """One picture with its labelled boxes and, for rendered scenes, its visible cards."""

    path: Path
    rows: tuple[tuple[int, float, float, float, float], ...]  # YOLO rows: class id, cx, cy, w, h (0…1)
    cards: tuple[TruthCard, ...] | None  # None: no card-level labels (real photos)
    named: TruthCard | None = None  # a real photo's card named by hand, at its first labelled index
    kind: str | None = None  # a rendered scene's kind: discard, table, fan, negative
    outlines: tuple[tuple[tuple[float, float], ...], ...] = ()  # a scene's card outlines, any side up
    partly_shown: PartlyShown = ()  # index boxes shown too little to be labelled
    turn: int = 0  # a one-card photo is read turned by this many degrees anticlockwise (:func:`turned_photo`)
    photo_px: int | None = None  # … and shrunk to a table camera's scale first (:func:`at_table_scale`)

    @property
    def one_card_photo(self) -> bool:
        """A photo of one named card (``labels.jsonl``), scored by the surest card read anywhere in it."""
        return self.named is not None and not self.named.boxes

    def boxes(self, width: int, height: int) -> tuple[tuple[int, tuple[float, float, float, float]], ...]:
        """The labelled boxes as (class id, xyxy) in the pixels of a ``width`` × ``height`` picture."""
        return yolo_boxes(self.rows, width, height)


def yolo_boxes(rows, width: int, height: int) -> tuple[tuple[int, tuple[float, float, float, float]], ...]:
    """YOLO rows (class id, cx, cy, w, h; 0…1) as (class id, xyxy) in a ``width`` × ``height`` picture."""
    return tuple(
        (
            int(class_id),
            ((cx - w / 2) * width, (cy - h / 2) * height, (cx + w / 2) * width, (cy + h / 2) * height),
        )
        for class_id, cx, cy, w, h in rows
    )


def labelled_images(
    folder: Path, split: str = "val", roboflow: bool = False, named: Path | None = None
) -> list[LabelledImage]:
    """The pictures of a rendered dataset split or of a YOLO folder, with their labels.

    ``named`` (YOLO folders only) keeps just the photos a names file names, each with its card.
    """
    if (folder / PHOTO_LABELS).is_file():
        return card_photos(folder)
    if (folder / "meta" / split).is_dir():
        if named is not None:
            raise UserError("a names file is for YOLO folders of photos; rendered scenes name every card")
        return _rendered_split(folder, split)
    if (folder / "images").is_dir() and (folder / "labels").is_dir():
        images = _yolo_folder(folder / "images", folder / "labels", roboflow)
        return images if named is None else _with_names(images, named)
    raise UserError(
        f"{folder} is neither a rendered dataset (meta/{split}/) nor a YOLO folder (images/ and labels/)"
    )


#: A folder of single-card photos names each photo's card in this file, one JSON object a line:
#: ``{"image": "images/Blue_011_card_Reverse.jpg", "card": "blue-reverse"}`` (the criscard layout).
PHOTO_LABELS = "labels.jsonl"


def card_photos(folder: Path) -> list[LabelledImage]:
    """The photos of a single-card deck folder, each with its named card (no boxes: the whole photo)."""
    from referee.rules.cards import CardError, parse_card

    result = []
    labels = folder / PHOTO_LABELS
    for number, line in enumerate(labels.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            path, name = folder / record["image"], record["card"]
            parse_card(name)
        except (ValueError, KeyError, TypeError, CardError) as error:
            raise UserError(
                f'{labels}:{number} is not {{"image": "images/x.jpg", "card": "red-7"}} ({error})'
            ) from error
        if not path.is_file():
            raise UserError(f"{labels}:{number} names {record['image']}, which is not in {folder}")
        result.append(LabelledImage(path, (), None, TruthCard(name, ()), kind="photo"))
    if not result:
        raise UserError(f"{labels} names no photo")
    return result


def _yolo_rows(label_file: Path, roboflow: bool) -> list[tuple[int, float, float, float, float]]:
    rows = []
    text = label_file.read_text(encoding="utf-8") if label_file.is_file() else ""
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            class_id, cx, cy, w, h = line.split()
            class_id = ROBOFLOW_TO_CLASS[int(class_id)] if roboflow else int(class_id)
            if not 0 <= class_id < len(CLASS_NAMES):
                raise KeyError(class_id)
            rows.append((class_id, float(cx), float(cy), float(w), float(h)))
        except (ValueError, KeyError) as error:
            raise UserError(
                f"{label_file}:{number} is not a YOLO row of a known class ({line.strip()!r})"
            ) from error
    return rows


def _yolo_folder(images: Path, labels: Path, roboflow: bool) -> list[LabelledImage]:
    result = []
    for path in sorted(p for p in images.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        rows = _yolo_rows(labels / f"{path.stem}.txt", roboflow)
        result.append(LabelledImage(path, tuple(rows), None))
    if not result:
        raise UserError(f"{images} holds no pictures")
    return result


def _with_names(images: list[LabelledImage], names_file: Path) -> list[LabelledImage]:
    """The photos that ``names_file`` (``{"cards": {stem: card name}}``) names, with their named card."""
    from referee.rules.cards import CardError, parse_card

    try:
        names = json.loads(names_file.read_text(encoding="utf-8"))["cards"]
        for name in names.values():
            parse_card(name)
    except OSError as error:
        raise UserError(f"cannot read the names file {names_file}: {error.strerror}") from error
    except (ValueError, KeyError, TypeError, CardError) as error:
        raise UserError(
            f'{names_file} is not a names file {{"cards": {{"photo stem": "red-7", ...}}}} ({error})'
        ) from error
    result = []
    for item in images:
        if item.path.stem in names and item.rows:
            _, cx, cy, w, h = item.rows[0]
            box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)  # relative; scaled when scored
            result.append(LabelledImage(item.path, item.rows, None, TruthCard(names[item.path.stem], (box,))))
    if not result:
        raise UserError(f"no photo of the folder is named in {names_file} (names are file stems)")
    return result


def _rendered_split(folder: Path, split: str) -> list[LabelledImage]:
    result = []
    for meta_path in sorted((folder / "meta" / split).glob("*.json")):
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            image_path = folder / "images" / split / meta["image"]
            cards = []
            for card in meta["cards"]:
                labelled = [
                    box for box in card["boxes"] if box["labelled"] and box["class_name"] in SYMBOL_CLASSES
                ]
                if card["face_up"] and labelled:
                    boxes = tuple(tuple(box["box"]) for box in labelled)
                    visible = tuple(float(box.get("visible", 1.0)) for box in labelled)
                    cards.append(TruthCard(card["name"], boxes, visible))
            outlines = tuple(
                tuple((float(x), float(y)) for x, y in card["polygon"])
                for card in meta["cards"]
                if card.get("visible_fraction", 1.0) > 0 and "polygon" in card
            )
            partly_shown = tuple(
                (card["name"], tuple(box["box"]))
                for card in meta["cards"]
                if card["face_up"]
                for box in card["boxes"]
                if not box["labelled"] and box.get("visible", 0.0) > 0 and box["class_name"] in SYMBOL_CLASSES
            )
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise UserError(f"sidecar {meta_path} is not a scene description ({error})") from error
        rows = _yolo_rows(folder / "labels" / split / f"{meta_path.stem}.txt", roboflow=False)
        result.append(
            LabelledImage(
                image_path,
                tuple(rows),
                tuple(cards),
                kind=meta.get("kind"),
                outlines=outlines,
                partly_shown=partly_shown,
            )
        )
    if not result:
        raise UserError(f"{folder / 'meta' / split} holds no sidecars")
    return result


# --- scoring ------------------------------------------------------------------------------------


@dataclass
class PrecisionRecall:
    """Counts per label: true positives, predictions, truths."""

    tp: Counter = field(default_factory=Counter)
    predicted: Counter = field(default_factory=Counter)
    truth: Counter = field(default_factory=Counter)

    def add(self, truth: str | None, predicted: str | None) -> None:
        """One matched pair (both given), a miss (predicted None) or a false reading (truth None)."""
        if truth is not None:
            self.truth[truth] += 1
        if predicted is not None:
            self.predicted[predicted] += 1
        if truth is not None and truth == predicted:
            self.tp[truth] += 1

    def table(self) -> dict[str, dict[str, float | int]]:
        labels = sorted(set(self.truth) | set(self.predicted))
        return {label: _scores(self.tp[label], self.predicted[label], self.truth[label]) for label in labels}

    def overall(self) -> dict[str, float | int]:
        return _scores(sum(self.tp.values()), sum(self.predicted.values()), sum(self.truth.values()))


def _scores(tp: int, predicted: int, truth: int) -> dict[str, float | int]:
    precision = tp / predicted if predicted else 1.0
    recall = tp / truth if truth else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "tp": tp,
        "predicted": predicted,
        "truth": truth,
    }


@dataclass
class Evaluation:
    """Everything measured over a set of pictures."""

    images: int = 0
    confusion: np.ndarray = field(default_factory=lambda: np.zeros((BACKGROUND + 1,) * 2, np.int64))
    symbols: PrecisionRecall = field(default_factory=PrecisionRecall)  # detector boxes
    cards: PrecisionRecall = field(default_factory=PrecisionRecall)  # reader, by card name
    card_symbols: PrecisionRecall = field(default_factory=PrecisionRecall)
    card_colours: PrecisionRecall = field(default_factory=PrecisionRecall)
    multiset_f1: list[float] = field(default_factory=list)
    #: … with the cards read right from partly shown indices (``partly_shown``) set aside.
    multiset_f1_aside: list[float] = field(default_factory=list)
    multiset_f1_by_kind: dict[str, list[float]] = field(default_factory=dict)
    empty_images: int = 0
    empty_images_with_cards: int = 0
    cards_on_empty_images: int = 0
    colour_from: Counter = field(default_factory=Counter)
    named_cards: PrecisionRecall = field(default_factory=PrecisionRecall)  # real photos, top-1
    named_colours: PrecisionRecall = field(default_factory=PrecisionRecall)
    named_symbols: PrecisionRecall = field(default_factory=PrecisionRecall)
    named_mistakes: Counter = field(default_factory=Counter)  # (named, read or "nothing") → count
    named_doubled: int = 0  # one-card photos read as two or more different cards
    #: Photos without card labels (a real deck's YOLO folder): the symbol of the card the whole reader
    #: read over each labelled index. Colour is not labelled there, but every index counts, not only
    #: a named one: a per-symbol figure on thousands of real indices instead of one card a photo.
    index_symbols: PrecisionRecall = field(default_factory=PrecisionRecall)
    index_symbol_mistakes: Counter = field(default_factory=Counter)  # (labelled, read or "nothing") → count
    card_errors: Counter = field(default_factory=Counter)  # CARD_ERRORS kind → count
    card_mistakes: Counter = field(default_factory=Counter)  # (true card, read card) → count
    error_examples: dict[str, list[str]] = field(default_factory=dict)  # kind → pictures
    #: Labelled indices of rendered scenes, and those the detector found, by how much of each is
    #: uncovered and how big it is (:func:`index_condition`): where the recall is lost.
    indices_labelled: Counter = field(default_factory=Counter)
    indices_found: Counter = field(default_factory=Counter)
    #: Missed cards by the reader's step that dropped the last of their index boxes
    #: (:data:`LOST_AT`): the network, a check, or pairing.
    missed_lost_at: Counter = field(default_factory=Counter)
    #: On a real deck's YOLO folder, the labelled indices no card was read over, by the step that
    #: dropped the last box over them (:data:`LOST_AT`).
    unread_index_lost_at: Counter = field(default_factory=Counter)
    #: On a real deck's YOLO folder, the cards read whose indices lie on no labelled index: invented
    #: cards (a pattern, a centre symbol) or real ones whose indices were left unlabelled, the photos
    #: that have any, and the first few of those photos, to be looked at.
    cards_over_no_label: int = 0
    photos_with_cards_over_no_label: int = 0
    cards_over_no_label_examples: list[str] = field(default_factory=list)

    def add_indices_found(self, truth: tuple[TruthCard, ...], detections: list[Detection]) -> None:
        """Count each labelled index as found when a detection of any symbol overlaps it as much as a
        card's index must to count (:data:`CARD_IOU`): a deck photographed and labelled by hand boxes
        its indices looser or tighter than the renderer, and a narrow "1" boxed 3 px wider misses the
        0.5 of the box scores although it was found."""
        found = _xyxy(detections)
        for card in truth:
            for box, visible in zip(card.boxes, card.visible or (1.0,) * len(card.boxes), strict=True):
                condition = index_condition(box, visible)
                self.indices_labelled[condition] += 1
                self.indices_found[condition] += _found(box, found)

    def add_boxes(self, truth: tuple[tuple[int, tuple], ...], detections: list[Detection]) -> None:
        """Match detections to labelled boxes; fill the confusion matrix and the symbol counts."""
        truth_boxes = np.asarray([box for _, box in truth], np.float64).reshape(-1, 4)
        unmatched = np.ones(len(truth), bool)
        for detection in sorted(detections, key=lambda d: -d.score):
            truth_class = BACKGROUND
            if unmatched.any():
                overlaps = np.where(unmatched, box_iou(np.asarray(detection.box), truth_boxes), 0.0)
                best = int(overlaps.argmax())
                if overlaps[best] >= BOX_IOU:
                    unmatched[best] = False
                    truth_class = truth[best][0]
            self.confusion[truth_class, detection.class_id] += 1
            truth_name = CLASS_NAMES[truth_class] if truth_class != BACKGROUND else None
            if truth_name is not None and truth_name != detection.class_name:
                self.symbols.add(truth_name, None)
                self.symbols.add(None, detection.class_name)
            else:
                self.symbols.add(truth_name, detection.class_name)
        for index in np.flatnonzero(unmatched):
            self.confusion[truth[index][0], BACKGROUND] += 1
            self.symbols.add(CLASS_NAMES[truth[index][0]], None)

    def add_cards(
        self,
        truth: tuple[TruthCard, ...],
        cards: list[Card],
        kind: str | None = None,
        outlines: tuple[tuple[tuple[float, float], ...], ...] = (),
        picture: str | None = None,
        trace: ReadTrace | None = None,
        partly_shown: PartlyShown = (),
    ) -> list[CardError]:
        """Match read cards to visible cards by their index boxes; score names, symbols, colours.

        Returns the picture's card mistakes, each of a :data:`CARD_ERRORS` kind; ``outlines`` (every
        card's corners in the scene) tell a card read on a card from one invented off the cards;
        ``trace`` (the reader's, of this picture) tells where each missed card was lost;
        ``partly_shown`` (index boxes shown too little to be labelled) tells a card read right there."""
        self.colour_from.update(card.colour_from for card in cards)
        overlaps = np.zeros((len(cards), len(truth)))
        for i, card in enumerate(cards):
            index_boxes = np.asarray([d.box for d in card.indices], np.float64)
            for j, expected in enumerate(truth):
                overlaps[i, j] = max(index_overlap(box, index_boxes).max() for box in expected.boxes)
        # A card read at both corners, once right and once wrong, is matched to its right reading.
        pairs = sorted(
            (
                (cards[i].name == truth[j].name, overlaps[i, j], i, j)
                for i in range(len(cards))
                for j in range(len(truth))
                if overlaps[i, j] >= CARD_IOU
            ),
            reverse=True,
        )
        read_matched: dict[int, int] = {}
        truth_matched: dict[int, str] = {}  # truth index → the name read there
        errors: list[CardError] = []
        for _, _, i, j in pairs:
            if i not in read_matched and j not in truth_matched:
                read_matched[i] = j
                truth_matched[j] = cards[i].name
                self._score_card(truth[j].name, cards[i].name)
                if cards[i].name != truth[j].name:
                    self.card_mistakes[(truth[j].name, cards[i].name)] += 1
                    same_symbol = _symbol(cards[i].name) == _symbol(truth[j].name)
                    errors.append(
                        CardError(
                            "wrong_colour" if same_symbol else "wrong_symbol",
                            _read_from(cards[i]),
                            f"{truth[j].name} read {cards[i].name}",
                        )
                    )
        set_aside: Counter = Counter()  # the names of cards read right from partly shown indices
        for i in sorted(set(range(len(cards))) - set(read_matched)):
            self._score_card(None, cards[i].name)
            extra = self._extra_kind(cards[i], overlaps[i], truth_matched, outlines, partly_shown)
            if extra == "partly_shown":
                set_aside[cards[i].name] += 1
            errors.append(CardError(extra, _read_from(cards[i]), cards[i].name))
        for j in sorted(set(range(len(truth))) - set(truth_matched)):
            self._score_card(truth[j].name, None)
            merged = any(overlaps[i, j] >= CARD_IOU for i in read_matched)  # its index went to another card
            errors.append(CardError("merged" if merged else "missed", _union(truth[j].boxes), truth[j].name))
            if trace is not None and not merged:
                self.missed_lost_at[lost_at(truth[j].boxes, trace)] += 1
        expected, read = Counter(card.name for card in truth), Counter(card.name for card in cards)
        f1 = _multiset_f1(expected, read)
        self.multiset_f1.append(f1)
        self.multiset_f1_aside.append(_multiset_f1(expected, read - set_aside))
        if kind is not None:
            self.multiset_f1_by_kind.setdefault(kind, []).append(f1)
        if not truth:
            self.empty_images += 1
            self.empty_images_with_cards += bool(cards)
            self.cards_on_empty_images += len(cards)
        for error in errors:
            self.card_errors[error.kind] += 1
            examples = self.error_examples.setdefault(error.kind, [])
            if picture is not None and picture not in examples and len(examples) < EXAMPLES_PER_ERROR:
                examples.append(picture)
        return errors

    @staticmethod
    def _extra_kind(
        card: Card,
        overlaps: np.ndarray,
        truth_matched: dict[int, str],
        outlines: tuple[tuple[tuple[float, float], ...], ...],
        partly_shown: PartlyShown = (),
    ) -> str:
        """Why a read card matched no visible card: a second reading of a card already read (under
        the same name or another), its right name read from an index shown too little to be
        labelled, a reading on a card away from its labelled indices, or one off every card."""
        also_read = [name for j, name in truth_matched.items() if overlaps[j] >= CARD_IOU]
        if also_read:
            return "doubled" if card.name in also_read else "corners_disagree"
        if any(_card_over(box, [card]) == name for name, box in partly_shown):
            return "partly_shown"
        centres = [((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2) for d in card.indices]
        for outline in outlines:
            polygon = np.asarray(outline, np.float32).reshape(-1, 1, 2)
            if any(cv2.pointPolygonTest(polygon, centre, False) >= 0 for centre in centres):
                return "on_a_card"
        return "invented"

    def add_named(self, named: TruthCard, cards: list[Card]) -> None:
        """Score the card read over a photo's named index (or, for a photo of one card, the surest
        card read anywhere in it): right, wrong, or not read at all. A one-card photo read as more
        than one card is also counted as doubled."""
        if not named.boxes:
            self.named_doubled += len({card.name for card in cards}) > 1
            read = max(cards, key=lambda card: card.confidence).name if cards else None
        else:
            read = _card_over(named.boxes[0], cards)
        tallies = ((self.named_cards, _name), (self.named_symbols, _symbol), (self.named_colours, _colour))
        for tally, part in tallies:
            tally.add(part(named.name), part(read) if read else None)
        if read != named.name:
            self.named_mistakes[(named.name, read or "nothing")] += 1

    def add_index_symbols(
        self,
        boxes: tuple[tuple[int, tuple[float, float, float, float]], ...],
        cards: list[Card],
        trace: ReadTrace | None = None,
        photo: str = "",
    ) -> list[CardError]:
        """Score the symbol of the card read over each labelled card index (xyxy pixels) of a photo;
        with the reader's ``trace``, an index no card was read over is blamed on the step that lost it.
        Cards read over no labelled index at all are counted apart (``photo`` names the picture).

        Returns the photo's mistakes, to draw (:func:`draw_card_errors`): each index read as another
        symbol ("wrong_symbol") or not at all ("missed", with the step that lost it), and each card
        read over no labelled index ("invented": or over an index its labeller left out)."""
        symbol_boxes = [box for class_id, box in boxes if CLASS_NAMES[class_id] in SYMBOL_CLASSES]
        overlaps = {box: _card_overlaps(box, cards) for box in symbol_boxes}
        backed = {i for row in overlaps.values() for i, share in enumerate(row) if share >= CARD_IOU}
        mistakes = [
            CardError("invented", _read_from(card), f"{card.name} over no label")
            for i, card in enumerate(cards)
            if i not in backed
        ]
        if mistakes:
            self.cards_over_no_label += len(mistakes)
            self.photos_with_cards_over_no_label += 1
            if len(self.cards_over_no_label_examples) < EXAMPLES_PER_ERROR:
                self.cards_over_no_label_examples.append(photo)
        for class_id, box in boxes:
            labelled = CLASS_NAMES[class_id]
            if labelled not in SYMBOL_CLASSES:
                continue
            read = _best_card(overlaps[box], cards)
            symbol = _symbol(read) if read else None
            self.index_symbols.add(labelled, symbol)
            if symbol is not None and symbol != labelled:
                self.index_symbol_mistakes[(labelled, symbol)] += 1
                mistakes.append(CardError("wrong_symbol", box, f"{labelled} read as {read}"))
            elif symbol is None:
                self.index_symbol_mistakes[(labelled, "nothing")] += 1
                told = labelled
                if trace is not None:
                    step = lost_at((box,), trace)
                    self.unread_index_lost_at[step] += 1
                    told += f", lost at {step}"
                mistakes.append(CardError("missed", box, told))
        return mistakes

    def _score_card(self, truth: str | None, read: str | None) -> None:
        """One card pair; a wrong name is a miss of the true card and a false reading of the other."""
        for tally, part in ((self.cards, _name), (self.card_symbols, _symbol), (self.card_colours, _colour)):
            truth_part = part(truth) if truth else None
            read_part = part(read) if read else None
            if truth_part is not None and read_part is not None and truth_part != read_part:
                tally.add(truth_part, None)
                tally.add(None, read_part)
            else:
                tally.add(truth_part, read_part)

    def worst_confusions(self, count: int = 10) -> list[dict[str, object]]:
        """The most frequent (true symbol → detected symbol) mistakes, misses and false boxes included."""
        names = [*CLASS_NAMES, "background"]
        mistakes = self.confusion.copy()
        np.fill_diagonal(mistakes, 0)
        mistakes[BACKGROUND, BACKGROUND] = 0
        order = np.dstack(np.unravel_index(np.argsort(-mistakes, axis=None), mistakes.shape))[0]
        return [
            {"truth": names[t], "detected": names[p], "count": int(mistakes[t, p])}
            for t, p in order[:count]
            if mistakes[t, p] > 0
        ]

    def to_json(self) -> dict[str, object]:
        report: dict[str, object] = {
            "images": self.images,
            "boxes": {"overall": self.symbols.overall(), "per_symbol": self.symbols.table()},
            "worst_confusions": self.worst_confusions(),
            "confusion": {"labels": [*CLASS_NAMES, "background"], "matrix": self.confusion.tolist()},
        }
        if self.multiset_f1:
            report["cards"] = {
                "overall": self.cards.overall(),
                "per_card": self.cards.table(),
                "per_symbol": self.card_symbols.table(),
                "per_colour": self.card_colours.table(),
                "multiset_f1_mean": round(float(np.mean(self.multiset_f1)), 4),
                "multiset_f1_aside_mean": round(float(np.mean(self.multiset_f1_aside)), 4),
                "multiset_f1_by_kind": {
                    kind: {"pictures": len(scores), "mean": round(float(np.mean(scores)), 4)}
                    for kind, scores in sorted(self.multiset_f1_by_kind.items())
                },
                "images_read_perfectly": round(float(np.mean(np.asarray(self.multiset_f1) == 1.0)), 4),
                "empty_images": self.empty_images,
                "empty_images_with_cards": self.empty_images_with_cards,
                "cards_on_empty_images": self.cards_on_empty_images,
                "colour_from": dict(self.colour_from),
                "errors": {kind: self.card_errors[kind] for kind in CARD_ERRORS},
                "error_examples": {
                    kind: self.error_examples[kind] for kind in CARD_ERRORS if kind in self.error_examples
                },
                "mistakes": [
                    {"truth": truth, "read": read, "count": count}
                    for (truth, read), count in self.card_mistakes.most_common(20)
                ],
            }
        if self.multiset_f1 and self.indices_labelled:
            report["cards"]["indices_found"] = {
                condition: {
                    "labelled": self.indices_labelled[condition],
                    "found": round(self.indices_found[condition] / self.indices_labelled[condition], 4),
                }
                for condition in INDEX_CONDITIONS
                if self.indices_labelled[condition]
            }
        if self.multiset_f1 and self.missed_lost_at:
            report["cards"]["missed_lost_at"] = {step: self.missed_lost_at[step] for step in LOST_AT}
        if self.named_cards.truth:
            # One named card per photo, so each tally's recall (right / named) is its accuracy.
            report["named"] = {
                "photos": sum(self.named_cards.truth.values()),
                "top1_accuracy": self.named_cards.overall()["recall"],
                "colour_accuracy": self.named_colours.overall()["recall"],
                "symbol_accuracy": self.named_symbols.overall()["recall"],
                "doubled": self.named_doubled,
                "worst_card_accuracy": min(
                    (float(row["recall"]) for row in self.named_cards.table().values() if row["truth"]),
                    default=1.0,
                ),
                "per_card": self.named_cards.table(),
                "per_colour": self.named_colours.table(),
                "per_symbol": self.named_symbols.table(),
                "mistakes": [
                    {"named": named, "read": read, "count": count}
                    for (named, read), count in self.named_mistakes.most_common()
                ],
            }
        if self.index_symbols.truth:
            # Every index is one labelled symbol, so each row's recall (right / labelled) is its accuracy.
            report["index_symbols"] = {
                "indices": sum(self.index_symbols.truth.values()),
                "accuracy": self.index_symbols.overall()["recall"],
                "per_symbol": self.index_symbols.table(),
                "mistakes": [
                    {"labelled": labelled, "read": read, "count": count}
                    for (labelled, read), count in self.index_symbol_mistakes.most_common()
                ],
            }
            report["index_symbols"]["cards_over_no_label"] = {
                "cards": self.cards_over_no_label,
                "photos": self.photos_with_cards_over_no_label,
                "examples": self.cards_over_no_label_examples,
            }
            if self.unread_index_lost_at:
                report["index_symbols"]["unread_lost_at"] = {
                    step: self.unread_index_lost_at[step] for step in LOST_AT
                }
        return report


def _card_over(index_box: tuple[float, float, float, float], cards: list[Card]) -> str | None:
    """The name of the read card whose indices overlap ``index_box`` most, if they overlap it enough
    (:data:`CARD_IOU`); None where no card was read there."""
    return _best_card(_card_overlaps(index_box, cards), cards)


def _card_overlaps(index_box: tuple[float, float, float, float], cards: list[Card]) -> list[float]:
    """How well each read card lies on ``index_box``: the best of its indices (:func:`index_overlap`)."""
    return [float(index_overlap(index_box, np.asarray([d.box for d in c.indices])).max()) for c in cards]


def _best_card(overlaps: list[float], cards: list[Card]) -> str | None:
    """The name of the card that overlaps most (``overlaps`` from :func:`_card_overlaps`), if enough."""
    best = int(np.argmax(overlaps)) if overlaps else -1
    return cards[best].name if best >= 0 and overlaps[best] >= CARD_IOU else None


def _multiset_f1(expected: Counter, read: Counter) -> float:
    """F1 of the cards read against the cards expected, as multisets of names (1.0 when both are empty).

    >>> _multiset_f1(Counter(["red-7", "red-7"]), Counter(["red-7", "blue-2"]))
    0.5
    """
    common = sum((expected & read).values())
    precision = common / sum(read.values()) if read else 1.0
    recall = common / sum(expected.values()) if expected else 1.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _name(card: str) -> str:
    return card


def _symbol(card: str) -> str:
    colour, _, symbol = card.partition("-")
    return symbol if colour in COLOURS else card


def _colour(card: str) -> str:
    colour = card.partition("-")[0]
    return colour if colour in COLOURS else WILD


#: How a labelled index lies: wholly or partly uncovered, and its longer side in the picture.
INDEX_CONDITIONS = tuple(
    f"{cover}, {size}"
    for cover in ("whole", "partly covered", "mostly covered")
    for size in ("24 px or more", "12-24 px", "under 12 px")
)


#: Where the reader can lose a card: each step of :class:`ReadTrace`, then pairing.
LOST_AT: tuple[str, ...] = (*ReadTrace.STEPS, "pairing")


def lost_at(boxes: tuple[tuple[float, float, float, float], ...], trace: ReadTrace) -> str:
    """The first step of ``trace`` after which none of a card's labelled index ``boxes`` is left
    (a box is left when one kept overlaps it by :data:`CARD_IOU`); "pairing" when one survived every
    step, and the card was still not read.

    >>> trace = ReadTrace(detected=[Detection((0, 0, 10, 10), 7, "7", 0.9)])
    >>> lost_at(((0, 0, 10, 10),), trace), lost_at(((50, 50, 60, 60),), trace)
    ('corner check', 'detector')
    """
    for step, kept in trace.steps():
        found = _xyxy(kept)
        if not any(_found(box, found) for box in boxes):
            return step
    return "pairing"


def _xyxy(detections: list[Detection]) -> np.ndarray:
    """The detections' boxes as an (N, 4) array."""
    return np.asarray([d.box for d in detections], np.float64).reshape(-1, 4)


def _found(box: tuple[float, float, float, float], found: np.ndarray) -> bool:
    """Whether one of the ``found`` boxes (:func:`_xyxy`) overlaps a labelled index ``box`` as a
    card's index must (:data:`CARD_IOU`), whatever symbol it was named."""
    return bool(len(found)) and bool(index_overlap(box, found).max() >= CARD_IOU)


def index_overlap(labelled: tuple[float, float, float, float], read: np.ndarray) -> np.ndarray:
    """How well each ``read`` box (N × 4) lies on a ``labelled`` index box, as CARD_IOU asks: their
    IoU, raised to CARD_IOU where the read box lies :data:`INSIDE_LABEL` inside the labelled one (a
    tight box on a narrow glyph in a photographed face's wide label region).

    >>> region = (0.0, 0.0, 30.0, 30.0)
    >>> index_overlap(region, np.array([[10.0, 5.0, 18.0, 25.0], [25.0, 5.0, 45.0, 25.0]])).round(2).tolist()
    [0.3, 0.08]
    >>> index_overlap(region, np.array([[0.0, 0.0, 30.0, 24.0]])).round(2).tolist()
    [0.8]
    """
    box = np.asarray(labelled, np.float64)
    read = np.asarray(read, np.float64).reshape(-1, 4)
    iou = box_iou(box, read)
    return np.where(box_share_inside(box, read) >= INSIDE_LABEL, np.maximum(iou, CARD_IOU), iou)


def index_condition(box: tuple[float, float, float, float], visible: float) -> str:
    """The :data:`INDEX_CONDITIONS` entry of an index box with this uncovered share.

    >>> index_condition((0, 0, 10, 30), 1.0), index_condition((0, 0, 8, 11), 0.5)
    ('whole, 24 px or more', 'mostly covered, under 12 px')
    """
    cover = "whole" if visible >= 0.99 else "partly covered" if visible >= 0.7 else "mostly covered"
    side = max(box[2] - box[0], box[3] - box[1])
    size = "24 px or more" if side >= 24 else "12-24 px" if side >= 12 else "under 12 px"
    return f"{cover}, {size}"


def evaluate(
    reader: CardReader,
    images: list[LabelledImage],
    tiles: bool | None = None,
    progress: Callable[[int], None] | None = None,
    true_boxes: bool = False,
    errors: Path | None = None,
) -> Evaluation:
    """Score the reader on every picture; ``progress(done)`` is called after each one.

    ``true_boxes`` hands the reader the labelled boxes instead of the network's: the card scores
    then measure the reader alone (colour, pairing, rejection), the ceiling for a perfect detector.
    ``errors``: a folder that receives every rendered scene with a card mistake, and every photo
    labelled by index (a real deck's YOLO folder) with an index mistake, drawn
    (:func:`draw_card_errors`), to look at what the figures count.
    """
    evaluation = Evaluation()
    for item in images:
        image = read_image(item.path)
        if item.turn or item.photo_px:
            if not item.one_card_photo:
                raise UserError(
                    f"{item.path}: only one-card photos (labels.jsonl) can be read turned or shrunk"
                )
            if item.photo_px:
                image = at_table_scale(image, item.photo_px)
            image = turned_photo(image, item.turn)
        boxes = item.boxes(image.shape[1], image.shape[0])
        if true_boxes:
            detections = [Detection(box, class_id, CLASS_NAMES[class_id], 1.0) for class_id, box in boxes]
        else:
            detections = reader.detect(image, tiles=tiles)
        evaluation.images += 1
        evaluation.add_boxes(boxes, detections)
        if item.cards is not None:
            if not true_boxes:
                evaluation.add_indices_found(item.cards, detections)
            trace = ReadTrace()
            cards = reader.cards_from_detections(image, detections, trace)
            mistakes = evaluation.add_cards(
                item.cards, cards, item.kind, item.outlines, str(item.path), trace, item.partly_shown
            )
            if errors is not None and mistakes:
                _write_errors(errors, item.path, draw_card_errors(image, item.cards, cards, mistakes))
        if item.one_card_photo:
            evaluation.add_named(item.named, reader.cards_from_detections(image, detections))
        elif item.cards is None:
            trace = ReadTrace()
            photo_cards = reader.cards_from_detections(image, detections, trace)
            mistakes = evaluation.add_index_symbols(boxes, photo_cards, trace, str(item.path))
            if errors is not None and mistakes:
                labelled = tuple(TruthCard(CLASS_NAMES[class_id], (box,)) for class_id, box in boxes)
                _write_errors(errors, item.path, draw_card_errors(image, labelled, photo_cards, mistakes))
            if item.named is not None:
                x1, y1, x2, y2 = item.named.boxes[0]
                width, height = image.shape[1], image.shape[0]
                named = TruthCard(item.named.name, ((x1 * width, y1 * height, x2 * width, y2 * height),))
                evaluation.add_named(named, photo_cards)
        if progress is not None:
            progress(evaluation.images)
    return evaluation


def _write_errors(folder: Path, picture: Path, drawn: np.ndarray) -> None:
    """A picture's drawn mistakes into the ``--errors`` folder, under the picture's own name."""
    target = folder / f"{picture.stem}.jpg"
    if not cv2.imwrite(str(target), drawn):
        raise UserError(f"cannot write {target}: check that {folder} is writable")


def at_table_scale(image: np.ndarray, longer_side: int) -> np.ndarray:
    """A one-card photo as the table camera frames a card in the discard zone: shrunk so that its
    longer side is ``longer_side`` pixels (a tight photo's card then stands that tall, as a Pi
    camera shows a card at 100-200 px), in the middle of a square three times that side, of the
    photo's own edge colour. A close-up photo shows a corner index ten times larger than the
    camera does; this scores a deck where the table reads it.

    >>> at_table_scale(np.zeros((400, 260, 3), np.uint8), 120).shape
    (360, 360, 3)
    """
    height, width = image.shape[:2]
    scale = longer_side / max(height, width)
    small = cv2.resize(
        image, (max(1, round(width * scale)), max(1, round(height * scale))), interpolation=cv2.INTER_AREA
    )
    side = 3 * longer_side
    canvas = np.empty((side, side, 3), np.uint8)
    canvas[:] = _edge_colour(image)
    top, left = (side - small.shape[0]) // 2, (side - small.shape[1]) // 2
    canvas[top : top + small.shape[0], left : left + small.shape[1]] = small
    return canvas


def _edge_colour(image: np.ndarray) -> tuple[float, ...]:
    """The median pixel of a photo's border: what the card was photographed on."""
    border = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    return tuple(float(v) for v in np.median(border, axis=0))


def turned_photo(image: np.ndarray, degrees: int) -> np.ndarray:
    """A photo turned anticlockwise by ``degrees``, nothing of it cut off: quarter turns exactly; other
    angles on a canvas of the photo's own edge colour (its median border pixel), so the card lies at
    that angle on what it was photographed on, as a user's photo of a card laid askew would show it.

    >>> photo = np.zeros((40, 20, 3), np.uint8)
    >>> turned_photo(photo, 90).shape, turned_photo(photo, 45).shape
    ((20, 40, 3), (45, 45, 3))
    """
    quarter = {90: cv2.ROTATE_90_COUNTERCLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_CLOCKWISE}
    degrees %= 360
    if degrees == 0:
        return image
    if degrees in quarter:
        return cv2.rotate(image, quarter[degrees])
    height, width = image.shape[:2]
    side = int(np.ceil(np.hypot(height, width)))
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0)
    turn[:, 2] += ((side - width) / 2, (side - height) / 2)
    return cv2.warpAffine(image, turn, (side, side), flags=cv2.INTER_LINEAR, borderValue=_edge_colour(image))


#: Pen (BGR) per kind of card mistake in :func:`draw_card_errors`.
_ERROR_PEN: dict[str, tuple[int, int, int]] = {
    "doubled": (0, 140, 255),
    "corners_disagree": (0, 80, 200),
    "on_a_card": (255, 0, 255),
    "partly_shown": (200, 200, 200),
    "invented": (0, 0, 255),
    "merged": (255, 128, 0),
    "missed": (255, 255, 0),
    "wrong_symbol": (0, 255, 255),
    "wrong_colour": (0, 255, 128),
}


def draw_card_errors(
    image: np.ndarray, truth: tuple[TruthCard, ...], cards: list[Card], mistakes: list[CardError]
) -> np.ndarray:
    """The picture with every labelled index (thin white), every index the reader read a card from
    (thin green, with the card's name) and each mistake framed and named in its kind's pen (the
    pens are listed on top). Indices only, not the estimated card extents: small cards stay legible."""
    canvas = image.copy()
    scale = max(canvas.shape[:2]) / 1000
    thickness = max(1, round(2 * scale))
    font_scale = max(0.35, 0.45 * scale)
    for card in truth:
        for x1, y1, x2, y2 in card.boxes:
            cv2.rectangle(canvas, (round(x1), round(y1)), (round(x2), round(y2)), (255, 255, 255), 1)
    for card in cards:
        for index in card.indices:
            x1, y1, x2, y2 = (round(v) for v in index.box)
            cv2.rectangle(canvas, (x1 - 1, y1 - 1), (x2 + 1, y2 + 1), (0, 200, 0), 1)
        x1, y1 = (round(v) for v in card.indices[0].box[:2])
        _outlined_text(canvas, card.name, (x1, y1 - 3), font_scale, (0, 200, 0), 1)
    for mistake in mistakes:
        pen = _ERROR_PEN[mistake.kind]
        x1, y1, x2, y2 = (round(v) for v in mistake.box)
        pad = 3 * thickness
        cv2.rectangle(canvas, (x1 - pad, y1 - pad), (x2 + pad, y2 + pad), pen, thickness)
        label = f"{mistake.kind}: {mistake.text}"
        _outlined_text(canvas, label, (x1 - pad, y2 + pad + round(14 * scale) + 2), font_scale, pen, 1)
    x = 6
    for kind, pen in _ERROR_PEN.items():
        _outlined_text(canvas, kind, (x, round(22 * scale) + 8), font_scale, pen, thickness)
        x += cv2.getTextSize(kind, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)[0][0] + round(20 * scale)
    return canvas


def _outlined_text(
    canvas: np.ndarray, text: str, origin: tuple[int, int], font_scale: float, pen, thickness: int
) -> None:
    """Text in ``pen`` with a black outline: legible on any table and any card."""
    for colour, width in (((0, 0, 0), thickness + 2), (pen, thickness)):
        cv2.putText(canvas, text, origin, cv2.FONT_HERSHEY_SIMPLEX, font_scale, colour, width, cv2.LINE_AA)


def draw_confusion(confusion: np.ndarray, cell: int = 34) -> np.ndarray:
    """The confusion matrix as a picture: rows = truth, columns = detected, shade = row share."""
    names = [*CLASS_NAMES, "backgr."]
    count = len(names)
    margin = 110
    canvas = np.full((margin + cell * count + 10, margin + cell * count + 10, 3), 255, np.uint8)
    totals = confusion.sum(axis=1, keepdims=True)
    shares = np.divide(confusion, totals, out=np.zeros(confusion.shape), where=totals > 0)
    for row in range(count):
        for column in range(count):
            x, y = margin + column * cell, margin + row * cell
            shade = int(255 * (1 - shares[row, column]))
            colour = (shade, shade, 255) if row != column else (shade, 255, shade)
            cv2.rectangle(canvas, (x, y), (x + cell - 1, y + cell - 1), colour, -1)
            cv2.rectangle(canvas, (x, y), (x + cell - 1, y + cell - 1), (225, 225, 225), 1)
            if confusion[row, column]:
                text = str(int(confusion[row, column]))
                cv2.putText(
                    canvas, text, (x + 3, y + cell // 2 + 4), cv2.FONT_HERSHEY_PLAIN, 0.8, (0, 0, 0), 1
                )
    for k, name in enumerate(names):
        cv2.putText(
            canvas, name, (4, margin + k * cell + cell // 2 + 4), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 0, 0), 1
        )
        label = np.full((cell, margin - 4, 3), 255, np.uint8)
        cv2.putText(label, name, (2, cell // 2 + 4), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 0, 0), 1)
        rotated = cv2.rotate(label, cv2.ROTATE_90_COUNTERCLOCKWISE)
        canvas[4 : 4 + rotated.shape[0], margin + k * cell : margin + k * cell + cell] = rotated
    cv2.putText(canvas, "truth \\ detected", (4, margin - 8), cv2.FONT_HERSHEY_PLAIN, 0.9, (0, 0, 160), 1)
    return canvas
