"""A user's own deck, learnt from one photo of each face: its glyphs and its print colours.

The general model reads the prints it was trained on; a deck from a shop round the corner may print
its numerals in a face no one rendered. Rather than retrain a network (hours, torch), the referee
*remembers* the deck: the glyph classifier (:mod:`referee.vision.glyphs`) turns each corner index of
each face into an embedding, and at the table every index box is compared with those. Where the
nearest learnt glyph is close, and clearly closer than any glyph of another symbol, its symbol is
the answer; elsewhere the general model reads as before (a face not shown falls back to it).

The same photos give the deck's print colours: the field around each index, per colour, re-centres
the colour model (:meth:`ColourModel.from_samples`), as colour calibration does with the room's light.

Learning takes a folder with one sub-folder per card name (``red-7/``, ``blue-reverse/``, ``wild/``,
``wild-draw4/`` …), each with one or more photos of that face (one card per photo, any size, any
rotation); :func:`learn_deck` returns the deck and one line per photo it could not use. The deck is
a small JSON file (``uno-referee deck learn FOLDER --out DECK.json``).
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from referee.errors import UserError
from referee.vision.classes import COLOURBLIND_TO_COLOUR, COLOURS, SYMBOL_CLASSES, WILD_SYMBOLS
from referee.vision.colour import BLACK, DARK_PRINT_COLOURS, ColourModel, balanced_field, on_white_face
from referee.vision.detection import Detection
from referee.vision.glyphs import GlyphClassifier
from referee.vision.reader import ReaderSettings, index_spacing, nearest_colourblind, suppress_duplicates

FORMAT = "uno-referee deck 1"


@dataclass(frozen=True)
class DeckMatch:
    """An index box recognised as a glyph of a learnt face."""

    card: str  # the learnt face, e.g. red-7
    symbol: str  # its symbol class, e.g. 7
    similarity: float  # cosine similarity to the face's nearest learnt glyph, averaged over the looks
    score: float  # the detection score it is given (0…1)
    #: Per symbol, the similarity of its nearest learnt face (of the box's kind, wild or coloured):
    #: how near the deck puts the readings it did not choose.
    by_symbol: Mapping[str, float] = field(default_factory=dict)

    def rival(self, symbol: str) -> float:
        """How near the deck puts ``symbol``'s nearest learnt face to the box (-1: no such face)."""
        return self.by_symbol.get(symbol, -1.0)


@dataclass
class LearntDeck:
    """Learnt glyphs (unit embeddings, each with its face's name) and the deck's colours."""

    cards: tuple[str, ...]  # the face of each learnt glyph
    embeddings: np.ndarray  # (glyphs, D) float32, unit rows
    colours: ColourModel | None = None
    #: A box is this face's glyph when its nearest learnt glyph is at least this similar (cosine,
    #: after both are centred on the deck's mean glyph) …
    accept: float = 0.6
    #: … and this much more similar than the nearest glyph of any other symbol. (On a crafted deck in
    #: a face neither model saw, right matches scored 0.7–0.95, most margins above 0.05.)
    margin: float = 0.05
    source: str = ""
    photos: dict[str, int] = field(default_factory=dict)  # face → photos learnt from
    #: :attr:`GlyphClassifier.identity` of the model whose embeddings these are ("" in decks learnt
    #: before it was recorded).
    glyph_model: str = ""
    #: Whether the deck prints colour-blind symbols beside its indices (None: not known, as in decks
    #: learnt before it was recorded). A deck that prints none has no index boxed a second time,
    #: shifted onto such a symbol, so the reader keeps identical cards fanned tightly as two.
    colourblind_symbols: bool | None = None
    #: The file it was loaded from ("" if none), for messages; not part of the deck.
    file: str = field(default="", compare=False)

    def check_glyph_model(self, glyphs: GlyphClassifier) -> None:
        """Refuse a deck learnt with other weights: its glyphs lie in another embedding, and every
        match would be a guess (an update of uno-referee ships a new glyph classifier)."""
        if self.glyph_model != glyphs.identity:
            shown = f"the deck {self.file}" if self.file else "the deck"
            shown += f" (learnt from {self.source})" if self.source else ""
            learnt = f"glyph model {self.glyph_model}" if self.glyph_model else "an earlier glyph model"
            raise UserError(
                f"{shown} was learnt with {learnt}, not with this {glyphs.path.name} "
                f"({glyphs.identity}): learn the deck again (uno-referee deck learn FOLDER --out DECK.json, "
                "or uno-referee calibrate --deck at the table)"
            )

    @property
    def faces(self) -> list[str]:
        """The faces learnt, sorted."""
        return sorted(set(self.cards))

    def missing(self, expected: list[str]) -> list[str]:
        """Faces of ``expected`` that were not learnt (the general model reads those)."""
        learnt = set(self.cards)
        return [name for name in expected if name not in learnt]

    @cached_property
    def _centre(self) -> np.ndarray:
        """The deck's mean glyph. The classifier's embeddings all lie in one corner of the sphere
        (cosines of 0.95 and more between any two glyphs); centred on it they spread out."""
        return self.embeddings.mean(axis=0)

    @cached_property
    def _prototypes(self) -> np.ndarray:
        """The learnt glyphs, centred and of unit length."""
        return _unit(self.embeddings - self._centre)

    @cached_property
    def _faces(self) -> tuple[list[str], np.ndarray, np.ndarray, list[np.ndarray]]:
        """The learnt faces; each one's symbol, whether it is a wild's (a wild's field is matched only
        against those), and its glyphs' rows (worked out once: matching runs on every read)."""
        faces = sorted(set(self.cards))
        cards = np.asarray(self.cards)
        symbols = np.asarray([_symbol(face) for face in faces])
        rows = [np.flatnonzero(cards == face) for face in faces]
        return faces, symbols, np.isin(symbols, list(WILD_SYMBOLS)), rows

    def match(
        self, embeddings: np.ndarray, wild_fields: list[bool | None] | None = None
    ) -> list[DeckMatch | None]:
        """For each box: the learnt face it is, or None where the deck is not sure.

        ``embeddings``: (N, D), one look at each box, or (N, V, D), each of the V quarter turns the
        reader looked at it in (:attr:`GlyphReadings.every_look`). A face's similarity is that of its
        nearest learnt glyph, averaged over the looks: every glyph was learnt at four quarter turns,
        so the right face is near in every look, while a look-alike (an off-brand print's 1 and 7)
        is near in one look and not in the next. ``wild_fields``: per box, whether its field is a
        wild's (no print colour: True), a coloured card's (False) or unknown (None). Glyphs compete
        only with faces of that kind: a deck's outlined +4 on black may look like its green 9, but
        the 9 lies on green."""
        vectors = np.asarray(embeddings, np.float32)
        if vectors.ndim == 2:
            vectors = vectors[:, None, :]
        if len(vectors) == 0 or len(self.cards) == 0:
            return [None] * len(vectors)
        faces, symbols, wild_faces, rows = self._faces
        similarities = _unit(vectors - self._centre) @ self._prototypes.T  # boxes × looks × glyphs
        by_face = np.stack([similarities[:, :, glyphs].max(axis=2) for glyphs in rows], axis=2).mean(axis=1)
        result: list[DeckMatch | None] = []
        for k, row in enumerate(by_face):
            wild = wild_fields[k] if wild_fields is not None else None
            if wild is not None:
                row = np.where(wild_faces == wild, row, -1.0)
            best = int(row.argmax())
            others = row[symbols != symbols[best]]
            runner_up = float(others.max()) if others.size else -1.0
            if row[best] >= self.accept and row[best] - runner_up >= self.margin:
                score = float(min(1.0, 0.5 + (row[best] - runner_up) * 5))
                by_symbol: dict[str, float] = {}
                for symbol, similarity in zip(symbols.tolist(), row.tolist(), strict=True):
                    by_symbol[symbol] = max(similarity, by_symbol.get(symbol, -1.0))
                result.append(DeckMatch(faces[best], str(symbols[best]), float(row[best]), score, by_symbol))
            else:
                result.append(None)
        return result

    # --- persistence ----------------------------------------------------------------------------

    def to_json(self) -> str:
        packed = base64.b64encode(np.ascontiguousarray(self.embeddings, np.float16).tobytes()).decode()
        return json.dumps(
            {
                "format": FORMAT,
                "source": self.source,
                "cards": list(self.cards),
                "dimensions": int(self.embeddings.shape[1]) if self.embeddings.size else 0,
                "embeddings_float16": packed,
                "accept": self.accept,
                "margin": self.margin,
                "photos": self.photos,
                "colours": json.loads(self.colours.to_json()) if self.colours else None,
                "glyph_model": self.glyph_model,
                "colourblind_symbols": self.colourblind_symbols,
            },
            indent=1,
        )

    @classmethod
    def from_json(cls, text: str, shown: str = "the deck file") -> LearntDeck:
        try:
            data = json.loads(text)
            if data.get("format") != FORMAT:
                raise ValueError(f"format is {data.get('format')!r}, expected {FORMAT!r}")
            cards = tuple(str(card) for card in data["cards"])
            for card in cards:
                _symbol(card)
            raw = np.frombuffer(base64.b64decode(data["embeddings_float16"]), np.float16)
            embeddings = raw.astype(np.float32).reshape(len(cards), int(data["dimensions"]) or 0)
            colours = data.get("colours")
            return cls(
                cards,
                embeddings,
                ColourModel.from_json(json.dumps(colours)) if colours else None,
                float(data["accept"]),
                float(data["margin"]),
                str(data.get("source", "")),
                {str(k): int(v) for k, v in data.get("photos", {}).items()},
                str(data.get("glyph_model", "")),
                _recorded_symbols(data.get("colourblind_symbols")),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise UserError(
                f"{shown} is not a deck learnt by `uno-referee deck learn` ({error}): learn the deck again"
            ) from error

    def save(self, path: Path) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.to_json() + "\n", encoding="utf-8")
        except OSError as error:
            raise UserError(f"cannot write the deck to {path}: {error.strerror}") from error

    @classmethod
    def load(cls, path: Path) -> LearntDeck:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise UserError(f"cannot read the deck {path}: {error.strerror}") from error
        except UnicodeDecodeError as error:
            raise UserError(
                f"{path} is not a deck learnt by `uno-referee deck learn`: learn it again"
            ) from error
        deck = cls.from_json(text, str(path))
        deck.file = str(path)
        return deck


def _recorded_symbols(value: object) -> bool | None:
    """A deck file's ``colourblind_symbols``: true, false, or null where it was not recorded."""
    if value is None or isinstance(value, bool):
        return value
    raise ValueError(f"colourblind_symbols is {value!r}, expected true, false or null")


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.maximum(np.linalg.norm(vectors, axis=-1, keepdims=True), 1e-9)


def _symbol(card: str) -> str:
    """The symbol class of a card name (``red-7`` → ``7``); ValueError for unknown names."""
    from referee.rules.cards import CardError, parse_card

    try:
        return parse_card(card).rank.label
    except CardError as error:
        raise ValueError(f"unknown card name {card!r}") from error


def standard_faces() -> list[str]:
    """Every face of the standard 108-card deck, once each: what a learnt deck is checked against."""
    from referee.rules import Rules
    from referee.rules.cards import deck

    return list(dict.fromkeys(card.name for card in deck(Rules.preset("official"))))


# --- learning ---------------------------------------------------------------------------------------


@dataclass
class FaceGlyphs:
    """What one photo gave: the corner indices of its card, or why it gave nothing."""

    indices: list[Detection]
    problem: str = ""


def corner_glyphs(
    image_bgr: np.ndarray,
    detections: list[Detection],
    glyphs: GlyphClassifier,
    settings: ReaderSettings,
    limit: int | None = 2,
) -> FaceGlyphs:
    """The corner indices of the one card in a photo: the detector's symbol boxes, one per glyph
    (as the reader keeps them), without those the glyph classifier takes for no index, and without
    the big centre symbol (clearly larger than the smallest glyph). More than ``limit`` left means
    more than one card."""
    kept = suppress_duplicates([d for d in detections if d.class_name in SYMBOL_CLASSES], settings)
    if kept:
        not_index = glyphs.read(image_bgr, [d.box for d in kept]).not_index
        kept = [d for d, share in zip(kept, not_index, strict=True) if share < settings.glyph_reject]
    if not kept:
        return FaceGlyphs([], "no card found (photograph one card, face up, its corners in the picture)")
    smallest = min(d.size for d in kept)
    corners = [d for d in kept if d.size <= settings.pair_size_ratio * smallest]
    if limit is not None and len(corners) > limit:
        return FaceGlyphs([], f"{len(corners)} corner indices found: one card per photo, please")
    return FaceGlyphs(corners)


class DeckBuilder:
    """Collects the corner glyphs and field colours of photographed faces, then makes the deck."""

    def __init__(self, glyphs: GlyphClassifier, source: str, settings: ReaderSettings | None = None) -> None:
        self.glyphs = glyphs
        self.source = source
        self.settings = settings or ReaderSettings()
        self.cards: list[str] = []
        self.vectors: list[np.ndarray] = []
        self.photos: dict[str, int] = {}
        self.samples: dict[str, list[np.ndarray]] = {}
        self.on_white: list[bool] = []  # per index of DARK_PRINT_COLOURS: printed on the face's white?
        self.marked: list[bool] = []  # per photo of a coloured face: a colour-blind symbol beside an index?

    def add(
        self,
        face: str,
        image_bgr: np.ndarray,
        indices: list[Detection],
        detections: list[Detection],
    ) -> None:
        """One photo of ``face`` with its corner indices: each glyph learnt at four quarter turns
        (cards lie at any angle at the table), and its field sampled for the deck's colours.
        ``detections``, all the detector found in the photo, tell whether a colour-blind symbol is
        printed beside the indices (:attr:`LearntDeck.colourblind_symbols`)."""
        from referee.vision.glyphs import ALL_QUARTER_TURNS

        boxes = [index.box for index in indices]
        symbol = _symbol(face)
        looks = self.glyphs.read(image_bgr, boxes, ALL_QUARTER_TURNS).every_look  # boxes × turns × D
        embedded = looks.reshape(-1, looks.shape[-1])
        self.vectors.append(embedded)
        self.cards += [face] * len(embedded)
        self.photos[face] = self.photos.get(face, 0) + 1
        colour = BLACK if symbol in WILD_SYMBOLS else face.partition("-")[0]
        self.samples.setdefault(colour, []).extend(balanced_field(image_bgr, box, 0.2) for box in boxes)
        if colour in DARK_PRINT_COLOURS:
            self.on_white.extend(on_white_face(image_bgr, box) for box in boxes)
        if colour != BLACK:  # a wild prints no colour-blind symbol, whatever the deck
            symbols = [d for d in detections if d.class_name in COLOURBLIND_TO_COLOUR]
            radius = self.settings.colourblind_radius
            self.marked.append(any(nearest_colourblind(index, symbols, radius) for index in indices))

    def build(self, problems: list[str]) -> LearntDeck:
        """The deck; a line is added to ``problems`` when the colours could not be learnt."""
        if not self.cards:
            raise UserError(
                f"nothing learnt from {self.source}: " + (problems[0] if problems else "no faces")
            )
        colours = None
        if all(colour in self.samples for colour in COLOURS):
            try:
                colours = ColourModel.from_samples(self.samples, on_white=self.on_white)
            except UserError as error:
                problems.append(f"{self.source}: the deck's colours were not learnt ({error}); defaults used")
        else:
            problems.append(
                f"{self.source}: colours need a face of each of red, yellow, green and blue; defaults used"
            )
        embeddings = np.concatenate(self.vectors).astype(np.float32)
        return LearntDeck(
            tuple(self.cards),
            embeddings,
            colours,
            source=self.source,
            photos=self.photos,
            glyph_model=self.glyphs.identity,
            # A deck that prints them shows one beside nearly every coloured index; a detector boxes
            # one now and then on a deck that prints none (on 19 of 400 of Roboflow's photos).
            colourblind_symbols=2 * sum(self.marked) > len(self.marked) if self.marked else None,
        )


def learn_deck(
    folder: Path,
    detect: Callable[[np.ndarray], list[Detection]],
    glyphs: GlyphClassifier,
    *,
    settings: ReaderSettings | None = None,
    progress: Callable[[str], None] | None = None,
) -> tuple[LearntDeck, list[str]]:
    """Learn the faces photographed in ``folder`` (one sub-folder per card name).

    ``detect`` is the detector pass of the general reader. Returns the deck and one problem line per
    sub-folder or photo that taught nothing (naming the file); the rest is still learnt.
    """
    from referee.vision.images import IMAGE_SUFFIXES, UnreadableImage, read_image

    if not folder.is_dir():
        raise UserError(f"no such folder: {folder} (one sub-folder per card name, e.g. red-7/, wild/)")
    settings = settings or ReaderSettings()
    problems: list[str] = []
    builder = DeckBuilder(glyphs, str(folder), settings)
    for face_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        try:
            _symbol(face_dir.name)
        except ValueError:
            problems.append(
                f"{face_dir}: {face_dir.name!r} is not a card name (red-7, blue-reverse, wild, wild-draw4 …)"
            )
            continue
        for path in sorted(p for p in face_dir.iterdir() if p.is_file()):
            if path.suffix.lower() not in IMAGE_SUFFIXES:
                problems.append(f"{path}: not a picture (JPEG, PNG, BMP, WebP or TIFF)")
                continue
            try:
                image = read_image(path)
            except UnreadableImage as error:
                problems.append(f"{path}: {error}")
                continue
            detections = detect(image)
            found = corner_glyphs(image, detections, glyphs, settings)
            if found.problem:
                problems.append(f"{path}: {found.problem}")
                continue
            builder.add(face_dir.name, image, found.indices, detections)
            if progress is not None:
                progress(f"{path}: learnt {face_dir.name} from {len(found.indices)} corner(s)")
    return builder.build(problems), problems


def faces_in_a_row(
    image_bgr: np.ndarray,
    read: Callable[[np.ndarray], list],
    faces: list[str],
    settings: ReaderSettings | None = None,
) -> list[tuple[str, list[Detection]]]:
    """The corner glyphs of ``faces`` laid in a row, left to right (``calibrate --deck``): the cards
    the general reader finds (``read``: a :meth:`CardReader.read`), in order of their middles, each
    with the index detections it was read from. Their names do not matter — that is what is being learnt —
    only that there are as many as faces (a one-line error otherwise)."""
    settings = settings or ReaderSettings()
    low, high = settings.pair_distance
    groups: list[list[Detection]] = [
        list(card.indices)
        for card in sorted(read(image_bgr), key=lambda card: (card.box[0] + card.box[2]) / 2)
    ]
    # A corner the general model misreads is not paired with its twin (a script 3 read as 5): two
    # lone corners side by side, as far apart as the reader pairs one card's corners, are one card.
    while len(groups) > len(faces):
        lone: list[tuple[float, int]] = []
        for k in range(len(groups) - 1):
            if len(groups[k]) == 1 == len(groups[k + 1]):
                a, b = groups[k][0], groups[k + 1][0]
                spacing = index_spacing(a.centre, a.size, b.centre, b.size)
                if low <= spacing <= high:
                    lone.append((abs(math.log(spacing / settings.pair_expected_distance)), k))
        if not lone:
            break
        _, k = min(lone)
        groups[k : k + 2] = [groups[k] + groups[k + 1]]
    if len(groups) != len(faces):
        raise UserError(
            f"I see {len(groups)} cards where {len(faces)} should lie: lay them face up in one row, "
            "a finger's width apart"
        )
    return list(zip(faces, groups, strict=True))
