"""From detections to physical cards: colour from pixels, corner pairs merged, each card once.

The detector reports corner-index symbols and colour-blind symbols. A card needs both a symbol and
a colour, and a card lying face up usually shows its index twice (top-left and, turned by 180°,
bottom-right). The reader

1. drops an index that is a second box on a better one's glyph (one glyph is one symbol), and a
   same-coloured twin of an index right beside it (the colour-blind symbol boxed as the index);
2. reads the colour of the field around each index with the :class:`ColourModel`; where the hue is
   weak (glare, a dim room, a faded card) a colour-blind symbol next to the index decides;
3. rejects an index whose surroundings do not look like a card (no print colour, no white glyph,
   a coloured symbol on a black field) — that keeps an empty table empty;
4. pairs the two indices of one card (same symbol and colour, similar size, as far apart as the
   corners of a card with indices that size) and estimates the card's box from them; a lone
   index cut by the picture's edge is not read.

The pile watcher calls :meth:`CardReader.read` on a small discard-zone crop many times a second:
that path is one network pass plus a few hundred pixels of colour work per index; tiling is only
for pictures much larger than the network input, and finer tiles only for indices found too small
to be read well (a whole table seen from afar).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

import cv2
import numpy as np

from referee.errors import UserError
from referee.vision.backends import Detector
from referee.vision.centres import CENTRE_CLASSES, NO_CENTRE, CentreReader
from referee.vision.classes import (
    CLASS_NAMES,
    COLOURBLIND_TO_COLOUR,
    COLOURS,
    SYMBOL_CLASSES,
    TWO_CHARACTER_SYMBOLS,
    WILD_SYMBOLS,
    card_name,
)
from referee.vision.colour import (
    BLACK,
    BLACK_LIGHTNESS,
    ColourModel,
    ColourVotes,
    field_window,
    white_gains_at,
)
from referee.vision.corners import CornerCheck
from referee.vision.detection import Box, Detection, box_overlap_of_smaller
from referee.vision.glyphs import GlyphClassifier
from referee.vision.pairs import PairCheck
from referee.vision.tiling import (
    detect_in_tiles,
    detect_tiled,
    finer_shrink,
    merge_detections,
    needs_tiling,
    view_shrink,
)

if TYPE_CHECKING:
    from referee.vision.deck import DeckMatch, LearntDeck

ColourSource = Literal["hue", "symbol"]


@dataclass(frozen=True)
class Card:
    """One physical card seen face up."""

    name: str  # project card name: red-7, blue-skip, wild-draw4 …
    symbol: str  # the detector's symbol class: 7, skip, wild-draw4 …
    colour: str | None  # one of COLOURS; None for wild cards
    confidence: float  # symbol score × colour certainty, 0…1
    box: tuple[float, float, float, float]  # estimated card extent, image pixels (x1, y1, x2, y2)
    colour_from: ColourSource  # "hue": field pixels; "symbol": a colour-blind symbol decided
    indices: tuple[Detection, ...]  # the corner index(es) it was read from: one or two

    def to_json(self) -> dict[str, object]:
        """The ``uno-referee detect --json`` record of this card."""
        return {
            "card": self.name,
            "confidence": round(self.confidence, 3),
            "box": [round(v, 1) for v in self.box],
            "colour_from": self.colour_from,
        }


@dataclass(frozen=True)
class ReaderSettings:
    """Geometry and thresholds of the reader; sizes are in units of an index's longer side."""

    #: Centre-to-centre distance of a card's two corner indices. Measured on 400 rendered cards at
    #: random rotations: 2.3–9.2, median 5.5 (wide glyphs such as +2 turned by 45° are the short end).
    pair_distance: tuple[float, float] = (2.2, 11.0)
    pair_expected_distance: float = 5.5
    pair_size_ratio: float = 1.6  # the two indices of one card have about the same size
    #: Two glyphs of one symbol are two cards' corners, not one card's, when they correlate at least
    #: this well as they lie and this much better than with one half-turned. A card's own corners
    #: (rendered, both designs, any rotation, blur, noise, JPEG) scored at most 0.14 better as they
    #: lie in 2,461 pairs whose glyph boxes were at least 10 × 16 px, but up to 0.41 below that size,
    #: which is therefore not tested. On 1,200 random pairs of identical cards up to 15° apart
    #: (``corners_told_apart`` in tests/test_vision_reader.py, seeds 3, 4, 11, 12 × 300), the test
    #: split no card, and told the top-left corners of the twins apart in 0.25 of pairs, against
    #: 0.03 by spacing alone; the rest are glyphs that look alike half-turned (0, 8, skip, reverse)
    #: or too small or too blurred to tell.
    turn_test_alike: float = 0.6
    turn_test_margin: float = 0.3
    turn_test_min_px: tuple[float, float] = (10.0, 16.0)  # shorter and longer side of a glyph's box
    #: … and two glyphs are not one card's corners when they correlate less than this with one of
    #: them half-turned: a half turn about the card's centre maps one corner's box onto the other's,
    #: at any rotation. Two cards' corners (a pile, identical cards, two wilds) correlate so at a median
    #: of 0.27-0.40, one card's at 0.86-0.93; at 0.3 rendered tables split 1 right pair and 14 of two
    #: cards, rendered hands and piles 0 and 7 (twenty-fifth session, model card). None: not tested.
    turn_test_apart: float | None = 0.3
    #: Corners that agree are paired so that as many as possible are explained as one card's two:
    #: where the cheapest pair leaves two corners lone that could each pair with one of its own
    #: (two identical cards side by side, whose top corners lie at a card's spacing), the two pairs
    #: are taken instead.
    pair_most: bool = True
    #: Two corners the pair check (:mod:`referee.vision.pairs`) is at least this sure are two cards'
    #: are never paired, whatever their glyphs and colours say (two identical cards side by side,
    #: whose corners lie at one card's spacing). None: the check is not asked.
    pair_two_cards: float | None = 0.9
    #: … and where it finds them one card's as surely (two cards' at most 1 - ``pair_two_cards``),
    #: its word outweighs the glyph turn test's (:attr:`turn_test_apart`, :attr:`turn_test_alike`):
    #: on rendered tables four of five doubled cards were one card's blurred or tilted corners the
    #: turn test parted while the pair check found them one card's at 0.98 (fifty-ninth session).
    pair_check_overrules: bool = True
    #: A card read from both corners is named by the product of its corners' beliefs and the centre
    #: reader's (:mod:`referee.vision.centres`) raised to this power, over the symbols of its kind
    #: (wild or coloured), where the reader sees a centre: its "no centre" share is below
    #: ``centre_hidden``. None: the centre reader is not asked. A misread glyph of an unseen print is
    #: misread alike at both corners (an off-brand flagged 1 as a 4), its big centre seldom is: on
    #: five fresh stand-in decks' filmed games 13 false plays became 1 (thirtieth session, model card).
    centre_weight: float | None = 1.0
    centre_hidden: float = 0.5
    #: Two corners at one card's spacing, each sure of another symbol, are still one card where the
    #: centre reader names one of their two symbols (:meth:`CardReader._centre_arbiter`): otherwise a
    #: corner half hidden by a hand is a second, invented card (fifty-fourth session, model card).
    centre_arbiter: bool = True
    artwork_centre_share: float = 0.25  # within this share of a card's corner spacing of its middle
    colourblind_radius: float = 2.0  # a colour-blind symbol is printed next to the index
    colourblind_surer_by: float = 0.3  # an index box on a colour-blind symbol scored this much surer goes
    card_margin: float = 0.7  # from an index's outer edge to the card's edge
    #: A box lying this much inside another is a second reading of one glyph (as the same or another
    #: symbol). Distinct indices overlap far less: at most 0.27 of the smaller box in the 8,317 pairs
    #: of the held-out rendered scenes' labels.
    duplicate_overlap: float = 0.5
    #: Two indices of one symbol and colour closer than this (centre to centre) are one glyph boxed
    #: twice, the second shifted onto the colour-blind symbol beside it. Distinct indices of one
    #: symbol lie further apart: at least 1.12 sizes in 943 such pairs of those labels.
    duplicate_spacing: float = 1.0
    #: A lone index touching the picture's edge and shorter across it than this share of its length
    #: along it was cut by the edge.
    cut_share: float = 0.75
    field_margin: float = 0.2  # field read around an index box
    wild_field_margin: float = 0.6  # a wild index's black field, read around its (oval) glyph
    #: … or, where the camera brightened that black to grey, this share of grey pixels at most half
    #: as light as the white ink. Measured on the 300 Roboflow validation photos (the seen deck):
    #: boxes read as wilds 0.16 at the 5th percentile (median 0.28), coloured cards' median 0.06.
    #: Only boxes the detector and the glyph classifier read as wilds are asked.
    wild_grey_share: float = 0.15
    #: … "as light" meaning this share of the white ink's lightness at most. Glare and a phone's tone
    #: curve lift a print's black further than half way on a bright table: chosen on seen data
    #: (rendered seeds 98 and 99, the Roboflow photos), the smallest of 0.5, 0.6, 0.7, 0.8 that
    #: takes every wild glyph of at least ``ink_visible_from`` px whose field shows no print colour
    #: (0.5 took none of them). Smaller glyphs keep 0.5: blur mixes their ink into the field.
    wild_grey_lightness: float = 0.6
    #: … where the field is not a card colour: a coloured card's field is mostly print colour (a wild's
    #: four-colour index fills at most a fifth of it).
    wild_max_coverage: float = 0.35
    #: … or, where the field is no card colour, the fused belief in the wild symbol is at least this:
    #: the glyph classifier saw the field too, and a print's dark grey may be neither black nor grey
    #: enough for the tests above (a tinted camera). None: never.
    wild_sure: float | None = 0.7
    min_light_share: float = 0.04  # an index is a white glyph: some light pixels must be there …
    ink_visible_from: float = 10.0  # … once it is this many pixels tall; smaller, blur eats the ink
    tile_max_shrink: float = 2.5  # tile when the picture would shrink more than this into the input
    tile_overlap: float = 0.2
    #: Indices the first views found smaller than this (input pixels, median) are looked for again
    #: in finer tiles that bring them to this size. In the held-out rendered scenes the indices of
    #: discard piles are 28 px at the input (median), of hand-held fans 20, of whole tables 6.5; on
    #: rendered 1280 px table photos 20 read 0.954 of the cards, 26 0.967, 32 0.963.
    index_px: float = 26.0
    min_shrink: float = 0.5  # the finer tiles enlarge the picture at most twice
    max_fine_tiles: int = 48  # and number at most this many (~2.7 s at 55 ms a view)
    #: The glyph classifier's say in a box's symbol against the detector's (0…1): it looked closer,
    #: at one box, and was trained on more prints; the detector saw the whole picture and reads small
    #: glyphs better. On a deck no network saw, the detector is the one that is surely wrong (a fan's
    #: half-hidden "+4" named a wild shuffle at 0.8, a 3 an 8 at 0.83, where the glyph classifier
    #: named them right). Chosen in the forty-fourth session on sets that are neither Roboflow nor
    #: seen by the networks reading them (tables dealt criscard's faces read by networks that never
    #: saw criscard: multiset F1 0.914 at 0.5, 0.915 at 0.6, 0.919 at 0.7; criscard's photos at every
    #: turn and size, and four clutter sets, unchanged), then tested once on Roboflow held out: top-1
    #: 0.933 -> 0.950, 900 labelled indices 0.949 -> 0.962 (model card). It was 0.5, chosen on seen
    #: data in the seventh session.
    glyph_weight: float = 0.7
    #: A box the glyph classifier finds this sure holds no index (background or a colour-blind
    #: symbol) is dropped: a centre numeral, an oval's edge, a leaf on the cloth.
    glyph_reject: float = 0.7
    #: The glyph classifier reads each box in this many quarter turns (1, 2 or 4) and averages them
    #: (:meth:`GlyphClassifier.read`): it is trained on crops at random quarter turns, and the mean of
    #: four looks is surer where one look is torn (a recent print's flat reverse arrow, which the
    #: detector names 1, 5 or 7). Chosen on rendered sets (twenty-fourth session, model card): in
    #: typefaces no network saw and on five stand-in decks, 4 read 0.003 better than 1 (multiset F1,
    #: twelve fresh sets, none more than 0.001 worse), in the training typefaces within 0.0023. It costs
    #: 1.5 ms more a box on one thread. A learnt deck matches all the looks (:meth:`LearntDeck.match`).
    glyph_views: int = 4
    #: A box the card-corner check (:mod:`referee.vision.corners`) finds this sure lies on no card's
    #: corner is dropped before anything else reads it.
    corner_reject: float = 0.9
    #: A two-character index ("+2", "+4") is judged by the corner check by each of its characters
    #: too (:meth:`~referee.vision.corners.CornerCheck.not_corner`): the window of three of its long
    #: sides shows mostly what lies beyond the card (fifty-fifth session, model card).
    wide_index_ends: bool = True
    #: A card read from one corner alone (no other corner paired with it) is kept only where the
    #: corner check finds its box less likely than this to lie on no card's corner (None: kept at
    #: any doubt under :attr:`corner_reject`). Paired corners vouch for each other; a lone one has
    #: only itself, and networks that never saw a table's cloth read wilds in grass, soil and
    #: patterns there: the held-out reader read 583 lone cards over no labelled index of Roboflow's
    #: 2,000 training photos (forty-ninth session). 0.5 is the check's own decision boundary. Boxes
    #: a learnt face vouched for are exempt.
    lone_corner_doubt: float | None = 0.5
    #: … except a coloured lone corner beside a corner of a card read from both corners, as a fan's
    #: back card shows one corner beside the next card's (:func:`_beside_a_neighbour`). On Roboflow's
    #: 2,000 training photos, read by networks that never saw the deck, every one of the 18 labelled
    #: corners the doubt dropped lay so, and 150 of its 198 inventions did not; of the 66 that did,
    #: the coloured ones were 13 labelled to 4 not, the wilds 5 to 44 (a wild's black field is the
    #: colour of every shadow on a cloth), so wilds stay doubted (fifty-first session, model card).
    lone_beside_paired: bool = True
    #: … but a wild read from one corner, in a picture that holds a card read from both corners and
    #: beside none of their corners, must be this much surer (None: ``lone_corner_doubt`` as any
    #: other). A wild's black field is the colour of every shadow on a patterned cloth, so a lone wild
    #: has the least evidence of its own. On Roboflow's 2,000 training photos, read by networks that
    #: never saw the deck, 157 of the lone wilds that lay so were at doubts of 0.1 to 0.5, none of
    #: them on a labelled index (0.05 would have dropped 3 labelled ones); dropping every such wild
    #: lost real cards on rendered whole tables (fifty-first session, model card).
    lone_wild_apart_doubt: float | None = 0.1
    #: A card read from one corner alone is reported only where its confidence (the detector's
    #: score as the glyph classifier and the colour reading left it) reaches the detector's own
    #: floor: a paired corner has its twin to vouch for it, a lone one only itself, and on cluttered
    #: negatives the lone cards under the floor were the invented ones (a wild in a leaf at 0.15, a
    #: red 9 on a package at 0.16; fifty-seventh session, model card). Boxes a learnt face vouched
    #: for are exempt, and so is a coloured lone corner beside a corner of a card read from both
    #: corners: a fan's back card shows one half-covered corner there, which the detector scores low
    #: (a green 4 at 0.13 in Roboflow's fans; fifty-ninth session).
    lone_corner_floor: bool = True
    #: With a learnt deck, the detector's proposals down to this score are read too, where it boxed
    #: the same glyph at its own floor nowhere (None: only its own floor's) …
    deck_floor: float | None = 0.05
    #: … and one below its floor, or one the corner check would drop, is kept where a learnt face
    #: recognises its glyph at least this well (cosine, :meth:`LearntDeck.match`): the user's deck
    #: showed that glyph, so a thin outlined 1 the network scores 0.1 is still that deck's 1. Such a
    #: box makes a card only beside its card's other corner (alone it may be a numeral on a package,
    #: or a piece of a big centre symbol).
    deck_sure: float = 0.9
    #: … or at least this well where the glyph classifier's own likeliest symbol is the face's symbol
    #: too: two readings of the glyph agree (None: ``deck_sure`` alone). On Roboflow's fans, with a
    #: deck learnt from one photo a face and networks that never saw the deck, most corners still
    #: lost at this step matched the right face at 0.8-0.9 and the classifier named it too. Chosen
    #: on Roboflow's training photos (0.978 -> 0.983 of 6,000 indices; 0.8 read 0.986), with no card
    #: more on eight clutter sets (two decks) or criscard's tables; tested on its validation photos:
    #: 900 indices 0.979 -> 0.987 (forty-sixth session, model card).
    deck_agree: float | None = 0.85
    #: A looser match (one that does not vouch) is one more opinion, not a verdict. Where the
    #: detector and glyph classifier together name another symbol whose nearest learnt face is
    #: within this much of the match (cosine), their reading stands, as without a deck (None: the
    #: match always names the box). On Roboflow's photos a half-covered yellow 0 matched the learnt
    #: yellow skip at 0.79 and green 0 at 0.71, and both networks said 0. Chosen on Roboflow's
    #: training photos, deck learnt from one photo a face, networks that never saw the deck: 6,000
    #: indices 0.9877 (None) -> 0.9882 (0.1) -> 0.9883 (0.15), no card more over no labelled index
    #: nor on two clutter sets (sixty-fifth session, model card).
    deck_overrule: float | None = 0.15
    #: With or without a learnt deck, the detector's proposals down to this score are read too
    #: (None: not for this) …
    sure_glyph_floor: float | None = 0.1
    #: … and one below its floor that the corner check does not doubt is kept on probation where the
    #: glyph classifier names the detector's symbol with at least this probability, and finds it no
    #: index with under ``sure_glyph_not_index``: two readings agree, one of them sure. As every box
    #: on probation, it makes a card only beside its other corner or a sure fan neighbour. Roboflow's
    #: fans, read by networks that never saw the deck: back cards whose index shows whole, boxed at
    #: 0.10-0.22 while the classifier names them at 0.78-0.94. Chosen on its training photos (6,000
    #: indices 0.9763 -> 0.9792 at 0.9, 0.9772 at 0.95), with rendered tables, clutter and criscard
    #: unchanged; tested on its validation photos: 900 indices 0.980 -> 0.983 (sixty-fifth session,
    #: model card). Unlike the forty-seventh session's A, the classifier must be sure, not only agree.
    sure_glyph: float = 0.9
    sure_glyph_not_index: float = 0.1
    #: … except beside a fan neighbour: a lone box only the detector's floor put on probation (the
    #: corner check did not doubt it) makes a card alone where a card read from boxes none of which
    #: was on probation has a corner index of similar size (``pair_size_ratio``) within
    #: ``consensus_distance[0]`` sizes of it (the larger box's): the middle cards of a fan, or of an
    #: overlapped laid-out hand, show one corner each, beside their neighbour's. On Roboflow's fanned
    #: photos, read by networks that never saw the deck with a deck learnt from one photo a face, it
    #: read 0.979 of 900 labelled indices (0.967 without) and added no card on six clutter sets
    #: (forty-fourth session, model card). False: R4 alone.
    fan_neighbour: bool = True
    #: Where the evidence disagrees, a symbol the fused belief (detector and glyph classifier) gives
    #: at least this much still counts: two corners of one card read as 1 and 7 are one card if both
    #: give 1 this much; a "4" on a black field is the wild-draw4 its belief also names.
    consensus_floor: float = 0.2
    #: … and only where each corner was unsure of its own reading: it gives the agreed symbol at least
    #: this share of its own top belief (the flagged 1's corner: 7 at 0.39, 1 at 0.31). A corner sure
    #: of another symbol is not overruled: the corners stay two readings, and the pile watcher asks
    #: rather than calls a play it cannot be sure of.
    consensus_overrule: float = 0.67
    #: Corners that disagree pair only at a spacing typical of one card: the middle 90 % of the
    #: 893 two-corner cards of the rendered evaluation scenes (seeds 97, 99) lie 3.7–8.5 sizes apart.
    #: Closer are neighbours in a fan (a red and a yellow reverse 2.9 apart, a real photo).
    consensus_distance: tuple[float, float] = (3.7, 8.5)
    #: A wild's four-colour index (the round one of recent prints) read as a "0" or an "8" is still a
    #: wild: inside its box at least three print colours each hold this share of the colour …
    four_colour_share: float = 0.12
    #: … none more than this, the box is at least ``four_colour_min_px`` (square root of its area),
    #: and its surroundings are a wild's field (``wild_max_coverage``). Labelled boxes of the held-out
    #: rendered scenes (seed 99): 23 of 140 wild indices pass the colour and size tests, and 1 of
    #: 1,214 coloured ones (blurred glyphs where colours bleed); the Roboflow validation photos
    #: (seen): 59 of 64 wilds, 0 of 788 coloured. Without the field test the rule turned a skip and a
    #: 2 where three cards' colours meet in a fan into wilds (seed 99); with it, no box there. A box
    #: the detector and the glyph classifier already name a wild passes on these colour and size
    #: tests alone (:meth:`CardReader._wild_index`): beside a recent print's big oval its field shows
    #: print colour too.
    four_colour_top: float = 0.5
    four_colour_min_px: float = 14.0
    #: An index whose field shows no usable print colour is read again with the chroma floor lowered
    #: to its own ink's tint (:meth:`ColourModel.votes`, ``pale``): glare or a veil washes a field out
    #: until every pixel counts as white ink. Such a corner is weaker evidence than one read from full
    #: colour: left lone beside a lone corner of full colour where its card's other corner could lie,
    #: it makes no card (:func:`_without_pale_rivals`). Chosen in the forty-fifth session on tables
    #: dealt criscard's faces, read by networks that never saw criscard (multiset F1 0.919 -> 0.921,
    #: card precision 0.940 unchanged; criscard's photos at every turn and size and four clutter sets
    #: unchanged), then tested once on Roboflow held out (top-1 0.950 unchanged, 900 labelled indices
    #: 0.962 -> 0.963; model card). False: such a field is no card's.
    pale_fields: bool = True
    #: A coloured index's colour is read only from the pixels of its field window that lie nearer to
    #: its own box than to any other index box (distances in each box's size; a box whose centre lies
    #: within half a size is the same glyph boxed again, not a neighbour). In a fan a back card shows
    #: a strip of its field, and the window around its index reaches onto the next card's: Roboflow's
    #: blue 5 beside a red 6 counted 204 red pixels to 100 blue. A tighter window (tried in the
    #: twenty-fifth session) left too few pixels to be sure of any colour; this keeps the window and
    #: gives each pixel to the index it belongs to.
    own_field: bool = True
    #: Where the field window around a coloured index does not decide its colour (confidence under
    #: the colour model's ``strong``) and no colour-blind symbol does, the pixels inside the index box
    #: (grown by this share of its size) decide when they are sure (None: the window alone). A small
    #: corner's window reaches past its card's edge into the cloth: on Roboflow's photos a blue 8 at
    #: the back of a fan on grass counted 208 green pixels to 200 blue in its window, 19 to 121 in its
    #: box. Of the 2,000 training photos' cards, three read otherwise: a blue 2 and a green 6 now
    #: right, a pattern read as a draw two either way (fifty-first session, model card).
    index_field_margin: float | None = 0.0


@dataclass
class ReadTrace:
    """The index boxes left after each step of one :meth:`CardReader.cards_from_detections`, so that
    an evaluation can say where a card that was not read got lost. The lab asks for it; the table
    never does, and pays nothing for it."""

    detected: list[Detection] = field(default_factory=list)  # the network's symbol boxes
    on_cards: list[Detection] = field(default_factory=list)  # … the corner check kept
    named: list[Detection] = field(default_factory=list)  # … the glyph classifier kept
    single: list[Detection] = field(default_factory=list)  # … once each (duplicates dropped)
    coloured: list[Detection] = field(default_factory=list)  # … whose field is a card's

    #: The steps in order, each named by what drops a box there; a box that survives all of them
    #: and still makes no card of its own was lost in pairing.
    STEPS = ("detector", "corner check", "glyph classifier", "duplicates", "field test")

    def steps(self) -> list[tuple[str, list[Detection]]]:
        """(step, boxes left after it), in order."""
        kept = (self.detected, self.on_cards, self.named, self.single, self.coloured)
        return list(zip(self.STEPS, kept, strict=True))


@dataclass(frozen=True)
class _Index:
    """An index detection with its colour evidence and verdict."""

    detection: Detection
    votes: ColourVotes
    colour: str | None  # None for wild symbols
    colour_from: ColourSource
    certainty: float
    #: The fused belief over :data:`SYMBOL_CLASSES` (None without the glyph classifier).
    belief: np.ndarray | None = None
    #: Coloured only by a washed-out field's second reading (:attr:`ReaderSettings.pale_fields`).
    pale: bool = False


#: A candidate pair of corner indices: (cost, i, j, first, second), i and j their places in the list.
_PairCandidate = tuple[float, int, int, _Index, _Index]


class CardReader:
    """Reads physical cards from a picture with a detector and a (calibrated) colour model."""

    def __init__(
        self,
        detector: Detector,
        colour_model: ColourModel | None = None,
        settings: ReaderSettings | None = None,
        glyphs: GlyphClassifier | None = None,
        deck: LearntDeck | None = None,
        symbols: Collection[str] | None = None,
        corners: CornerCheck | None = None,
        pairs: PairCheck | None = None,
        centres: CentreReader | None = None,
    ) -> None:
        """``symbols``: the symbols the deck in play prints (:func:`symbols_in_play`); the reader
        never reads another (a classic deck has no wild-swap). None: every symbol. ``corners``: the
        card-corner check, which drops index boxes it is sure lie on no card's corner. ``pairs``:
        the pair check, which keeps two cards' corners from being paired as one card's. ``centres``:
        the centre reader, a second opinion on a card read from both corners."""
        unknown = sorted(set(detector.class_names) - set(CLASS_NAMES))
        if unknown:
            raise UserError(
                f"model {detector.info.path} predicts classes {', '.join(unknown[:5])} that are not "
                "card symbols: train it on referee.vision.classes.CLASS_NAMES"
            )
        self.detector = detector
        learnt_colours = deck.colours if deck is not None else None
        self.colour_model = colour_model or learnt_colours or ColourModel.default()
        self.settings = settings or ReaderSettings()
        self.glyphs = glyphs
        self.corners = corners
        self.pairs = pairs
        self.centres = centres
        self.deck = deck
        #: The detector's own floor: a box scored below it is read only where a learnt face or the
        #: glyph classifier vouches for it (:meth:`_second_look`).
        self.min_score = getattr(detector, "conf", 0.0)  # (a test's stand-in detector may have none)
        floors = [self.settings.sure_glyph_floor] if glyphs is not None else []
        if deck is not None:
            if glyphs is None:
                raise UserError("a learnt deck needs the glyph classifier (models/uno_glyphs.onnx)")
            deck.check_glyph_model(glyphs)
            floors.append(self.settings.deck_floor)  # None: no weak box is read (:attr:`_deck_rescues`)
        floor = min((f for f in floors if f is not None), default=None)
        if floor is not None and floor < self.min_score:
            self.detector = detector.at_confidence(floor)
        self.symbols = frozenset(SYMBOL_CLASSES if symbols is None else symbols)
        strange = sorted(self.symbols - set(SYMBOL_CLASSES))
        if strange:
            raise UserError(f"unknown card symbols {', '.join(strange)}: use {', '.join(SYMBOL_CLASSES)}")
        self._allowed = np.array([symbol in self.symbols for symbol in SYMBOL_CLASSES])
        self._wild_symbols = np.array([symbol in WILD_SYMBOLS for symbol in SYMBOL_CLASSES])
        self.one_view = False

    def with_colours(self, colour_model: ColourModel) -> CardReader:
        """This reader with another colour model (a table's calibration): the same networks, deck
        and symbols in play, so that calibrating colours changes nothing but the colours."""
        reader = copy.copy(self)
        reader.colour_model = colour_model
        return reader

    @property
    def _deck_rescues(self) -> bool:
        """Whether a learnt deck may vouch for weak and doubted boxes (:attr:`ReaderSettings.deck_floor`)."""
        return self.deck is not None and self.settings.deck_floor is not None

    def at_one_view(self, imgsz: int) -> CardReader:
        """This reader's network and colours, looking once at ``imgsz`` px and never in tiles: for
        the discard zone, a small crop of fixed scale read again and again, where a second, finer
        look would cost more than it finds."""
        reader = copy.copy(self)
        reader.detector = self.detector.at_input(imgsz)
        reader.one_view = True
        return reader

    def read(self, image_bgr: np.ndarray, *, tiles: bool | None = None, turned: bool = False) -> list[Card]:
        """Cards in a BGR picture, in reading order; ``tiles`` None = tile only pictures that need it.

        ``tiles`` False: one view of the whole picture and nothing more. Otherwise, when the indices
        found are small for the network, finer tiles look again (:func:`finer_shrink`).

        ``turned``: the network sees the picture turned by 90°; boxes still come back in the picture's
        own pixels. A second opinion: the detector's misreads of one view seldom repeat in the other.
        """
        return self.cards_from_detections(image_bgr, self.detect(image_bgr, tiles=tiles, turned=turned))

    def detect(
        self, image_bgr: np.ndarray, *, tiles: bool | None = None, turned: bool = False
    ) -> list[Detection]:
        """The raw detections the cards are read from (tiled for large pictures)."""
        if image_bgr.ndim != 3 or image_bgr.shape[2] != 3:
            raise UserError(f"expected a BGR colour picture, got an array of shape {image_bgr.shape}")
        if turned:
            height = image_bgr.shape[0]
            seen = self.detect(cv2.rotate(image_bgr, cv2.ROTATE_90_CLOCKWISE), tiles=tiles)
            # A point (u, v) of the turned picture is (v, height - u) in the picture.
            return [replace(d, box=(d.box[1], height - d.box[2], d.box[3], height - d.box[0])) for d in seen]
        settings = self.settings
        if tiles is False or (tiles is None and self.one_view):
            return self.detector.detect(image_bgr)
        if tiles or needs_tiling(image_bgr.shape, self.detector.imgsz, settings.tile_max_shrink):
            found = detect_tiled(self.detector, image_bgr, settings.tile_max_shrink, settings.tile_overlap)
        else:
            found = self.detector.detect(image_bgr)
        sizes = [
            max(d.box[2] - d.box[0], d.box[3] - d.box[1])
            for d in found
            if d.class_name in SYMBOL_CLASSES and d.score >= self.min_score
        ]
        shrink = view_shrink(image_bgr.shape, self.detector.imgsz, settings.tile_max_shrink)
        finer = finer_shrink(
            sizes,
            image_bgr.shape,
            self.detector.imgsz,
            shrink=shrink,
            index_px=settings.index_px,
            min_shrink=settings.min_shrink,
            max_tiles=settings.max_fine_tiles,
            overlap=settings.tile_overlap,
        )
        if finer is None:
            return found
        closer = detect_in_tiles(self.detector, image_bgr, finer, settings.tile_overlap)
        return merge_detections(found + closer, self.detector.iou)

    def cards_from_detections(
        self, image_bgr: np.ndarray, detections: list[Detection], trace: ReadTrace | None = None
    ) -> list[Card]:
        """Colour, verify, pair: the part of :meth:`read` after the network. ``trace`` receives the
        index boxes left after each step (:class:`ReadTrace`)."""
        vouched: set[tuple[float, float, float, float]] = set()
        beliefs: dict[tuple[float, float, float, float], np.ndarray] = {}
        # Below the detector's own floor (read only with a learnt deck): index boxes on probation,
        # and only on glyphs the detector was sure of nowhere (elsewhere they are another outline).
        sure = [d for d in detections if d.score >= self.min_score]
        sure_indices = _symbol_boxes(sure)
        weak = [d for d in detections if d.score < self.min_score and d.class_name in SYMBOL_CLASSES]
        if weak:
            weak = _off_sure_glyphs(weak, sure_indices, self.settings)
        detections = sure + weak
        detected = sure_indices + weak
        fields = _Fields(image_bgr, self.colour_model, sure_indices)
        probation = {d.box for d in weak}
        doubted: set[Box] = set()
        doubts: dict[Box, float] = {}
        if self.corners is not None:
            detections, doubted, doubts = self._on_cards(image_bgr, detections)
            probation |= doubted
        if trace is not None:
            trace.detected, trace.on_cards = detected, _symbol_boxes(detections)
        if self.glyphs is not None:
            detections, vouched, beliefs = self._second_look(
                fields, detections, probation, probation - doubted
            )
        elif len(self.symbols) < len(SYMBOL_CLASSES):
            detections = [
                d for d in detections if d.class_name in self.symbols or d.class_name not in SYMBOL_CLASSES
            ]
        colourblind = [d for d in detections if d.class_name in COLOURBLIND_TO_COLOUR]
        named = _symbol_boxes(detections)
        symbols = suppress_duplicates(
            _off_colourblind_symbols(named, colourblind, self.settings), self.settings
        )
        indices = [
            index
            for d in symbols
            if (index := self._index(fields, d, colourblind, d.box in vouched, beliefs.get(d.box)))
            is not None
        ]
        if trace is not None:
            trace.named, trace.single = named, symbols
            trace.coloured = [index.detection for index in indices]
        settings = self.settings
        if self.deck is None or self.deck.colourblind_symbols is not False:
            indices = _without_shifted_twins(indices, settings)
        centres = _CentreLooks(self.centres, image_bgr) if self.centres is not None else None
        groups = _without_echoes(self._pair(indices, image_bgr, centres), settings)
        groups = [
            group
            for group in groups
            if len(group) == 2 or not _cut_by_the_edge(group[0], image_bgr.shape, settings.cut_share)
        ]
        sure_corners = (
            [
                index.detection
                for group in groups
                if not any(index.detection.box in probation for index in group)
                for index in group
            ]
            if probation and settings.fan_neighbour
            else []
        )
        # A glyph only the learnt deck vouched for (under the detector's floor, or doubted by the
        # corner check) is a card's corner only beside its other corner, or beside a fan neighbour's:
        # alone it may be a numeral on a package, or a piece of a card's big centre symbol.
        groups = [
            group
            for group in groups
            if len(group) == 2
            or group[0].detection.box not in probation
            or (
                settings.fan_neighbour
                and group[0].detection.box not in doubted
                and _beside_a_neighbour(group[0].detection, sure_corners, settings)
            )
        ]
        if settings.lone_corner_doubt is not None and doubts:
            paired = _paired_corners(groups)
            groups = [
                group
                for group in groups
                if len(group) == 2
                or group[0].detection.box in vouched
                or self._lone_corner_passes(group[0], doubts.get(group[0].detection.box, 0.0), paired)
            ]
        if settings.pale_fields:
            groups = _without_pale_rivals(groups, settings)
        groups = self._read_centres(groups, image_bgr, centres)
        cards = [self._card(group, image_bgr.shape) for group in groups]
        if settings.lone_corner_floor:
            paired = _paired_corners(groups)
            cards = [
                card
                for card, group in zip(cards, groups, strict=True)
                if len(group) == 2
                or group[0].detection.box in vouched
                or card.confidence >= self.min_score
                or (group[0].colour is not None and _beside_a_neighbour(group[0].detection, paired, settings))
            ]
        return sorted(cards, key=lambda card: (round(card.box[1]), card.box[0]))

    def _lone_corner_passes(self, lone: _Index, doubt: float, paired: list[Detection]) -> bool:
        """Whether a card read from one corner, which the corner check doubts this much, passes
        (:attr:`ReaderSettings.lone_corner_doubt`, :attr:`ReaderSettings.lone_beside_paired`,
        :attr:`ReaderSettings.lone_wild_apart_doubt`); ``paired``: the corners of the cards read
        from both corners."""
        settings = self.settings
        passes = settings.lone_corner_doubt is None or doubt < settings.lone_corner_doubt
        if lone.colour is None:  # a wild: apart from every whole card, it must be surer
            surer = settings.lone_wild_apart_doubt
            if surer is not None and doubt >= surer and paired:
                return passes and _beside_a_neighbour(lone.detection, paired, settings)
            return passes
        return passes or (
            settings.lone_beside_paired and _beside_a_neighbour(lone.detection, paired, settings)
        )

    # --- the glyph classifier's second look -------------------------------------------------------

    def _on_cards(
        self, image_bgr: np.ndarray, detections: list[Detection]
    ) -> tuple[list[Detection], set[Box], dict[Box, float]]:
        """The detections less the index boxes the corner check is sure lie on no card's corner (a
        phone's clock, a score sheet's digits): a card's evidence is around its index, not in it.
        With a learnt deck those boxes stay, on probation (returned apart): a face of the deck may
        still vouch for them (:attr:`ReaderSettings.deck_sure`). Also returns each index box's
        doubt, which a lone corner must pass again (:attr:`ReaderSettings.lone_corner_doubt`)."""
        indices = [i for i, d in enumerate(detections) if d.class_name in SYMBOL_CLASSES]
        if not indices:
            return detections, set(), {}
        wide = self.settings.wide_index_ends
        two_characters = [wide and detections[i].class_name in TWO_CHARACTER_SYMBOLS for i in indices]
        doubt = self.corners.not_corner(image_bgr, [detections[i].box for i in indices], two_characters)
        doubts = {detections[i].box: float(share) for i, share in zip(indices, doubt, strict=True)}
        dropped = {i for i, share in zip(indices, doubt, strict=True) if share >= self.settings.corner_reject}
        if self._deck_rescues:
            return detections, {detections[i].box for i in dropped}, doubts
        return [d for i, d in enumerate(detections) if i not in dropped], set(), doubts

    def _deck_vouches(self, match: DeckMatch | None, probabilities: np.ndarray) -> bool:
        """Whether a learnt face recognises a box on probation surely enough to keep it: at
        :attr:`ReaderSettings.deck_sure`, or at :attr:`ReaderSettings.deck_agree` where the glyph
        classifier's own likeliest symbol is that face's."""
        if match is None:
            return False
        settings = self.settings
        if match.similarity >= settings.deck_sure:
            return True
        if settings.deck_agree is None or match.similarity < settings.deck_agree:
            return False
        return _likeliest_symbol(probabilities) == match.symbol

    def _network_stands(self, match: DeckMatch, fused: np.ndarray) -> bool:
        """Whether the networks' reading (``fused``: detector and glyph classifier) outweighs a
        learnt face's looser match (:attr:`ReaderSettings.deck_overrule`): they name another symbol,
        one the deck prints, and the deck puts that symbol's nearest face almost as near as the match."""
        margin = self.settings.deck_overrule
        if margin is None:
            return False
        symbol = SYMBOL_CLASSES[int(np.where(self._allowed, fused, -1.0).argmax())]
        return symbol != match.symbol and match.rival(symbol) >= match.similarity - margin

    def _glyph_sure(self, detection: Detection, probabilities: np.ndarray, not_index: float) -> bool:
        """Whether the glyph classifier vouches for a weak box: it names the detector's symbol surely
        and finds it an index (:attr:`ReaderSettings.sure_glyph`)."""
        settings = self.settings
        if settings.sure_glyph_floor is None or detection.score < settings.sure_glyph_floor:
            return False
        return (
            _likeliest_symbol(probabilities) == detection.class_name
            and float(probabilities[: len(SYMBOL_CLASSES)].max()) >= settings.sure_glyph
            and not_index < settings.sure_glyph_not_index
        )

    def _second_look(
        self,
        fields: _Fields,
        detections: list[Detection],
        probation: set[Box] = frozenset(),
        weak: set[Box] = frozenset(),
    ) -> tuple[list[Detection], set[Box], dict[Box, np.ndarray]]:
        """Each index box named again from a closer look: the detector's and the glyph classifier's
        opinions fused (a learnt deck's nearest face decides where it is sure) over the symbols in
        play, boxes that hold no index dropped. Colour-blind symbols pass unchanged. Also returns the
        boxes a learnt face vouches for (the user's own deck showed that glyph on a card, so its field
        needs no proof) and each box's fused belief, which the corners of one card reconcile. A face
        vouches only where it recognises the box surely (:meth:`_deck_vouches`); a looser match names
        the symbol (unless the networks name one it puts nearly as near: :meth:`_network_stands`),
        and the box's field and corner must still prove a card (a black-and-white
        cloth matched a learnt +4 at 0.7-0.8). A box on ``probation`` (scored below the detector's
        floor, or doubted by the corner check) is kept only where a learnt face vouches for it, or, one
        only ``weak`` (under the floor), where the glyph classifier is sure of it (:meth:`_glyph_sure`)."""
        symbols = _symbol_boxes(detections)
        vouched: set[Box] = set()
        beliefs: dict[Box, np.ndarray] = {}
        if not symbols:
            return detections, vouched, beliefs
        readings = self.glyphs.read(fields.image, [d.box for d in symbols], self.settings.glyph_views)
        weight, count = self.settings.glyph_weight, len(SYMBOL_CLASSES)
        matches = (
            self.deck.match(readings.every_look, [self._wild_field(fields, d) for d in symbols])
            if self.deck is not None
            else [None] * len(symbols)
        )
        named: list[Detection] = []
        rows = zip(symbols, readings.probabilities, readings.not_index, matches, strict=True)
        for detection, probabilities, not_index, match in rows:
            vouches = self._deck_vouches(match, probabilities)
            sure = detection.box in weak and self._glyph_sure(detection, probabilities, not_index)
            if detection.box in probation and not (vouches or sure):
                continue
            if not vouches and not_index >= self.settings.glyph_reject:
                # No index here, whatever face a looser match says the box resembles: a purple swirl
                # the classifier found no index (0.91) matched a learnt skip at 0.60 (sixty-fifth
                # session; Roboflow's training photos with a deck: 75 -> 72 cards read over no
                # labelled index, every index read as before).
                continue
            fused = weight * probabilities[:count]
            fused[detection.class_id] += (1 - weight) * detection.score
            if match is not None and not vouches and self._network_stands(match, fused):
                match = None
            if match is not None:  # a face of the user's own deck, recognised
                if vouches:
                    vouched.add(detection.box)
                class_id = CLASS_NAMES.index(match.symbol)
                named.append(
                    replace(detection, class_id=class_id, class_name=match.symbol, score=match.score)
                )
                beliefs[detection.box] = np.where(np.arange(count) == class_id, match.score, 0.0)
                continue
            in_play = np.where(self._allowed, fused, 0.0)
            if in_play.max() < fused.max():  # a symbol this deck does not print: one of its kind it does
                wild = SYMBOL_CLASSES[int(fused.argmax())] in WILD_SYMBOLS
                in_play = np.where(self._wild_symbols == wild, in_play, 0.0)
                if in_play.max() < self.settings.consensus_floor:
                    continue
            fused = in_play
            class_id = int(fused.argmax())
            beliefs[detection.box] = fused
            named.append(
                replace(
                    detection,
                    class_id=class_id,
                    class_name=CLASS_NAMES[class_id],
                    score=float(fused[class_id]),
                )
            )
        return named + [d for d in detections if d.class_name not in SYMBOL_CLASSES], vouched, beliefs

    def _wild_field(self, fields: _Fields, detection: Detection) -> bool | None:
        """Whether a box lies on a wild's field (no print colour around it: True), on a coloured
        card's (a strong print colour: False), or cannot tell (None)."""
        model, settings = self.colour_model, self.settings
        near = model.read(fields.votes(detection.box, settings.field_margin))
        if near.colour in COLOURS and near.confidence >= model.strong:
            return False
        return True if self._field_without_print_colour(fields, detection) else None

    def _field_without_print_colour(self, fields: _Fields, detection: Detection) -> bool:
        """Whether little print colour lies around a box, as on a wild's field (black or grey)."""
        field = self.colour_model.read(fields.votes(detection.box, self.settings.wild_field_margin))
        return field.coverage < self.settings.wild_max_coverage

    # --- one index ------------------------------------------------------------------------------

    def _index(
        self,
        fields: _Fields,
        detection: Detection,
        colourblind: list[Detection],
        vouched: bool = False,
        belief: np.ndarray | None = None,
    ) -> _Index | None:
        """Colour an index, or None when its surroundings are not those of a card. A ``vouched`` wild
        (a learnt face of the user's deck) needs no proof of its black field.

        Where the field contradicts the symbol (a black field around a "4": an outlined +4 read as
        a 4; a coloured field around a "wild") and the box's ``belief`` gives a symbol that fits the
        field at least :attr:`ReaderSettings.consensus_floor`, the box is that symbol."""

        def read_as(box: Detection) -> _Index | None:
            if box.class_name in WILD_SYMBOLS:
                found = self._wild_index(fields, box, vouched, self._sure(belief, box.class_id))
            else:
                found = self._coloured_index(fields, box, colourblind)
            return replace(found, belief=belief) if found is not None else None

        if detection.class_name not in WILD_SYMBOLS and (
            wild := self._four_colour_wild(fields, detection, belief)
        ):
            return wild
        found = read_as(detection)
        if found is not None or belief is None:
            return found
        wild = detection.class_name in WILD_SYMBOLS
        fits = np.array([(symbol in WILD_SYMBOLS) != wild for symbol in SYMBOL_CLASSES])
        other = int(np.where(fits, belief, 0.0).argmax())
        if not fits[other] or belief[other] < self.settings.consensus_floor:
            return None
        return read_as(
            replace(detection, class_id=other, class_name=CLASS_NAMES[other], score=float(belief[other]))
        )

    def _shows_four_colours(self, fields: _Fields, detection: Detection) -> bool:
        """Whether the glyph inside a box shows a wild's four print colours (at least three of them,
        none dominant): no coloured card prints three colours in one index."""
        settings = self.settings
        votes = fields.votes(detection.box, 0.0)
        if votes.coloured == 0 or math.sqrt(votes.total) < settings.four_colour_min_px:
            return False
        shares = np.asarray(votes.colours, np.float64) / votes.coloured
        return bool(
            (shares >= settings.four_colour_share).sum() >= 3 and shares.max() <= settings.four_colour_top
        )

    def _four_colour_wild(
        self, fields: _Fields, detection: Detection, belief: np.ndarray | None
    ) -> _Index | None:
        """The wild index a box read as a coloured symbol is, where its glyph shows the four print
        colours of a wild (no coloured card prints three colours in one index); None otherwise. Of
        the wild symbols in play, the one the box's belief gives most (a plain wild by default)."""
        settings = self.settings
        if not self._shows_four_colours(fields, detection):
            return None
        # Around it, a wild's field (no print colour), not the edges of three coloured cards in a fan.
        if not self._field_without_print_colour(fields, detection):
            return None
        wilds = [symbol for symbol in SYMBOL_CLASSES if symbol in WILD_SYMBOLS and symbol in self.symbols]
        if not wilds:
            return None
        likely = (
            [float(belief[SYMBOL_CLASSES.index(symbol)]) for symbol in wilds] if belief is not None else [0.0]
        )
        symbol = (
            wilds[int(np.argmax(likely))] if max(likely) > 0 else ("wild" if "wild" in wilds else wilds[0])
        )
        class_id = CLASS_NAMES.index(symbol)
        wild = replace(detection, class_id=class_id, class_name=symbol)
        return _Index(wild, fields.votes(detection.box, settings.field_margin), None, "hue", 1.0, belief)

    def _sure(self, belief: np.ndarray | None, class_id: int) -> bool:
        """Whether the fused belief in this symbol passes :attr:`ReaderSettings.wild_sure`."""
        sure = self.settings.wild_sure
        return sure is not None and belief is not None and float(belief[class_id]) >= sure

    def _wild_index(
        self, fields: _Fields, detection: Detection, vouched: bool, sure: bool = False
    ) -> _Index | None:
        """A wild's index: a printed glyph (white, or the wild's four colours) on a black field. The
        modern wild's glyph, a four-colour oval, fills its box: its black field lies further out, and
        may be narrow beside the card's big four-colour oval and lifted to grey by the light; a glyph
        that shows the four colours itself needs no field. ``sure``: the belief in the symbol is
        strong enough that a field of no card colour will do."""
        model, settings = self.colour_model, self.settings
        votes = fields.votes(detection.box, settings.field_margin)
        reading = model.read(votes)
        printed = votes.total > 0 and (votes.light + votes.coloured) / votes.total >= settings.min_light_share
        field = model.read(fields.votes(detection.box, settings.wild_field_margin))
        black = (
            BLACK in (reading.colour, field.colour)
            or max(reading.dark_share, field.dark_share) >= model.min_dark_share
            or (
                field.coverage < settings.wild_max_coverage
                and (sure or self._grey_share(fields, detection) >= settings.wild_grey_share)
            )
        )
        wild = black or vouched or self._shows_four_colours(fields, detection)
        return _Index(detection, votes, None, "hue", 1.0) if wild and printed else None

    def _grey_share(self, fields: _Fields, detection: Detection) -> float:
        """The share of a wild index's field grey enough for a lifted black: at most
        :attr:`ReaderSettings.wild_grey_lightness` of the ink's lightness where the glyph is big
        enough to show its ink, else the colour model's stricter half."""
        settings = self.settings
        big = detection.size >= settings.ink_visible_from
        lightness = settings.wild_grey_lightness if big else BLACK_LIGHTNESS
        return self.colour_model.dark_share(
            fields.image, detection.box, settings.wild_field_margin, lightness
        )

    def _coloured_index(
        self, fields: _Fields, detection: Detection, colourblind: list[Detection]
    ) -> _Index | None:
        """A coloured card's index: white ink on a print colour, or a colour-blind symbol beside it."""
        model, settings = self.colour_model, self.settings
        own = settings.own_field
        field_votes = fields.own_votes if own else fields.votes
        votes = field_votes(detection.box, settings.field_margin)
        reading = model.read(votes)
        symbol = nearest_colourblind(detection, colourblind, settings.colourblind_radius)
        looks_printed = detection.size < settings.ink_visible_from or (
            votes.total > 0 and votes.light / votes.total >= settings.min_light_share
        )
        if reading.colour in COLOURS and reading.confidence >= model.strong and looks_printed:
            return _Index(detection, votes, reading.colour, "hue", 1.0)
        if symbol is not None:
            return _Index(detection, votes, COLOURBLIND_TO_COLOUR[symbol.class_name], "symbol", symbol.score)
        if settings.index_field_margin is not None and looks_printed:
            inner = field_votes(detection.box, settings.index_field_margin)
            inner_reading = model.read(inner)
            if inner_reading.colour in COLOURS and inner_reading.confidence >= model.strong:
                return _Index(detection, inner, inner_reading.colour, "hue", 1.0)
        if reading.colour in COLOURS and reading.confidence >= model.weak and looks_printed:
            return _Index(detection, votes, reading.colour, "hue", reading.confidence / model.strong)
        if settings.pale_fields and looks_printed:
            pale = fields.pale_votes(detection.box, settings.field_margin, own=own)
            reading = model.read(pale)
            if reading.colour in COLOURS and reading.confidence >= model.strong:
                return _Index(detection, pale, reading.colour, "hue", 1.0, pale=True)
        return None

    # --- pairs ----------------------------------------------------------------------------------

    def _pair(
        self, indices: list[_Index], image_bgr: np.ndarray, centres: _CentreLooks | None
    ) -> list[tuple[_Index, ...]]:
        """Group indices into cards: greedy on how typical each candidate pair's spacing is, then as
        many corners paired as can be (:attr:`ReaderSettings.pair_most`).

        A card's two corners are printed half a turn apart; two glyphs that look the same way up are
        the corners of two cards (identical cards side by side in a laid-out hand). Corners that
        read alike pair first; of those left, two that disagree pair when both can be one card
        (:meth:`_consensus`): a flagged 1 read as 7 at one corner, a pale yellow read as green at
        the other, would otherwise be two cards where there is one. Neither kind pairs where the pair
        check sees two cards between the corners (:meth:`_one_card_each`): identical cards side by
        side agree in glyph and colour, and their corners can lie at one card's spacing."""
        glyphs = _GlyphPatches(image_bgr)
        candidates = self._pair_geometry(indices)
        parted: dict[tuple[int, int], bool] = {}  # each pair judged once: both loops may ask

        def turn_test_parts(i: int, j: int) -> bool:
            if (i, j) not in parted:
                parted[i, j] = self._turn_test_parts(
                    glyphs, indices[i].detection, indices[j].detection, image_bgr
                )
            return parted[i, j]

        agreeing: list[_PairCandidate] = []
        for i, j, spacing in candidates:
            first, second = indices[i], indices[j]
            a, b = first.detection, second.detection
            if a.class_name != b.class_name or first.colour != second.colour:
                continue
            if not turn_test_parts(i, j):
                agreeing.append((self._spacing_cost(spacing), i, j, first, second))
        agreeing = self._one_card_each(agreeing, image_bgr)
        paired: set[int] = set()
        groups = (_most_pairs if self.settings.pair_most else _greedy_pairs)(agreeing, paired)
        disagreeing: list[_PairCandidate] = []
        near, far = self.settings.consensus_distance
        for i, j, spacing in candidates:
            if i in paired or j in paired or not near <= spacing <= far:
                continue
            first, second = indices[i], indices[j]
            # The glyph test first: it is cheaper than reading the colour of the body between them.
            if turn_test_parts(i, j):
                continue
            reconciled = self._consensus(first, second, image_bgr, centres)
            if reconciled is not None:
                disagreeing.append((self._spacing_cost(spacing), i, j, *reconciled))
        disagreeing = self._one_card_each(disagreeing, image_bgr)
        groups += _greedy_pairs(disagreeing, paired)
        groups += [(index,) for k, index in enumerate(indices) if k not in paired]
        return groups

    def _turn_test_parts(
        self, glyphs: _GlyphPatches, a: Detection, b: Detection, image_bgr: np.ndarray
    ) -> bool:
        """The glyph turn test (:func:`_corners_of_two_cards`), unless the pair check finds the two
        corners one card's at least as surely as it must find two cards' to part them
        (:attr:`ReaderSettings.pair_check_overrules`): a blurred or tilted corner's small glyph
        can look unlike its twin half-turned, and the card is then read twice."""
        if not _corners_of_two_cards(glyphs, a, b, self.settings):
            return False
        settings = self.settings
        if not settings.pair_check_overrules or self.pairs is None or settings.pair_two_cards is None:
            return True
        share = float(self.pairs.two_cards(image_bgr, [(a.centre, b.centre)])[0])
        return share > 1.0 - settings.pair_two_cards

    def _one_card_each(self, candidates: list[_PairCandidate], image_bgr: np.ndarray) -> list[_PairCandidate]:
        """The candidate pairs the pair check does not take for two cards' corners
        (:attr:`ReaderSettings.pair_two_cards`). Asked only of pairs that would otherwise be paired:
        most corners spaced as a card's read unlike and are never paired anyway."""
        if self.pairs is None or self.settings.pair_two_cards is None or not candidates:
            return candidates
        shares = self.pairs.two_cards(
            image_bgr, [(first.detection.centre, second.detection.centre) for *_, first, second in candidates]
        )
        return [
            pair
            for pair, share in zip(candidates, shares, strict=True)
            if share < self.settings.pair_two_cards
        ]

    def _pair_geometry(self, indices: list[_Index]) -> list[tuple[int, int, float]]:
        """Index pairs of similar size spaced as a card's two corners, with their spacing in sizes."""
        return corner_pairs([(i.detection.centre, i.detection.size) for i in indices], self.settings)

    def _spacing_cost(self, spacing: float) -> float:
        return abs(math.log(spacing / self.settings.pair_expected_distance))

    def _consensus(
        self, first: _Index, second: _Index, image_bgr: np.ndarray, centres: _CentreLooks | None
    ) -> tuple[_Index, _Index] | None:
        """Two corners that disagree, relabelled as one card, or None where they cannot be one.

        The symbol: the one both beliefs give at least :attr:`ReaderSettings.consensus_floor` (their
        product's best), or where each corner is sure of its own, the one of theirs the card's centre
        shows (:meth:`_centre_arbiter`). The colour: where the corners' colours differ, the card's
        body between them must read as one of the two, and the three looks vote
        (:func:`_most_shared`): the body is the largest of them and the one a still hand's finger
        lies across (on a white-faced card it holds only the centre glyph's ink). A wild and a
        coloured index never pair."""
        a, b = first.detection, second.detection
        if (first.colour is None) != (second.colour is None):
            return None
        symbol = a.class_name
        if a.class_name != b.class_name:
            if first.belief is None or second.belief is None:
                return None
            wild = first.colour is None  # a wild's field: one of the wild symbols; else a coloured card's
            fits = np.array([(symbol in WILD_SYMBOLS) == wild for symbol in SYMBOL_CLASSES])
            best = self._agreed_symbol(first.belief, second.belief, fits)
            if best is None:
                best = self._centre_arbiter(first.belief, second.belief, fits, a, b, centres)
            if best is None:
                return None
            symbol = SYMBOL_CLASSES[best]
        colour = first.colour
        if first.colour != second.colour:
            body_votes = self.colour_model.votes(image_bgr, _between(a, b), 0.0)
            body = self.colour_model.read(body_votes)
            if body.colour not in (first.colour, second.colour) or body.confidence < self.colour_model.weak:
                return None
            colour = _most_shared((first.colour, second.colour), (first.votes, second.votes, body_votes))
        elif a.class_name == b.class_name:
            return None  # they agree: not paired for a reason (the turn test)

        def relabel(index: _Index) -> _Index:
            if index.detection.class_name != symbol:
                score = float(index.belief[SYMBOL_CLASSES.index(symbol)]) if index.belief is not None else 0.0
                index = _named(index, symbol, score)
            return replace(index, colour=colour)

        return relabel(first), relabel(second)

    def _agreed_symbol(self, first: np.ndarray, second: np.ndarray, fits: np.ndarray) -> int | None:
        """The symbol two corners' beliefs both give at least :attr:`ReaderSettings.consensus_floor`
        (their product's best), where neither corner is sure of another (``consensus_overrule``)."""
        joint = np.where(fits, first * second, 0.0)
        best = int(joint.argmax())
        if min(first[best], second[best]) < self.settings.consensus_floor:
            return None
        overrule = self.settings.consensus_overrule
        if any(belief[best] < overrule * belief.max() for belief in (first, second)):
            return None  # a corner sure of its own reading is not overruled: an 8 here, a 4 there
        return best

    def _centre_arbiter(
        self,
        first: np.ndarray,
        second: np.ndarray,
        fits: np.ndarray,
        a: Detection,
        b: Detection,
        centres: _CentreLooks | None,
    ) -> int | None:
        """The symbol of two corners each sure of its own reading, where the card they would frame
        shows a centre whose likeliest symbol is one of theirs: two of three opinions agree. A
        corner half under a hand or the next card (a 7 whose stem is hidden reads 1) is sure and
        wrong; the card's big centre symbol, framed by both corners, is seldom hidden with it.
        (:attr:`ReaderSettings.centre_arbiter`; None where the reader is off or sees no centre.)"""
        if not self.settings.centre_arbiter or centres is None or self.settings.centre_weight is None:
            return None
        centre = centres.read([(a.centre, b.centre)])[0]
        if centre[CENTRE_CLASSES.index(NO_CENTRE)] >= self.settings.centre_hidden:
            return None
        fits = fits & self._allowed
        seen = int(np.where(fits, centre[: len(SYMBOL_CLASSES)], 0.0).argmax())
        corners = {int(np.where(fits, belief, 0.0).argmax()) for belief in (first, second)}
        return seen if fits[seen] and seen in corners else None

    def _read_centres(
        self, groups: list[tuple[_Index, ...]], image_bgr: np.ndarray, centres: _CentreLooks | None = None
    ) -> list[tuple[_Index, ...]]:
        """Each card read from both corners named again with its big centre symbol as a second
        opinion (:attr:`ReaderSettings.centre_weight`): the corners' beliefs times the centre's,
        within the card's kind (a wild's field stays a wild's). A corner of the user's own deck
        (a learnt face) is sure of one symbol, and the centre cannot overrule it."""
        weight = self.settings.centre_weight
        whole = [k for k, group in enumerate(groups) if len(group) == 2]
        if self.centres is None or weight is None or not whole:
            return groups
        looks = centres or _CentreLooks(self.centres, image_bgr)
        seen = looks.read([(groups[k][0].detection.centre, groups[k][1].detection.centre) for k in whole])
        hidden = CENTRE_CLASSES.index(NO_CENTRE)
        count = len(SYMBOL_CLASSES)
        named = list(groups)
        for k, centre in zip(whole, seen, strict=True):
            if centre[hidden] >= self.settings.centre_hidden:
                continue
            first, second = groups[k]
            symbol = first.detection.class_name
            corners = np.ones(count)
            for index in (first, second):
                if index.belief is not None:
                    corners = corners * index.belief
                else:  # read by the detector alone: sure of its one symbol
                    corners = corners * (np.arange(count) == index.detection.class_id)
            fits = self._allowed & (self._wild_symbols == (first.colour is None))
            joint = np.where(fits, corners * np.power(centre[:count], weight), 0.0)
            best = int(joint.argmax())
            if joint[best] <= 0.0 or SYMBOL_CLASSES[best] == symbol:
                continue
            share = float(joint[best] / joint.sum())
            named[k] = tuple(_named(index, SYMBOL_CLASSES[best], share) for index in groups[k])
        return named

    def _card(self, group: tuple[_Index, ...], image_shape: tuple[int, ...]) -> Card:
        first = group[0]
        symbol = first.detection.class_name
        colour_from, certainty = first.colour_from, max(index.certainty for index in group)
        if len(group) == 2 and colour_from == "hue" and first.colour is not None:
            # Both corners' pixels together are better evidence than either alone.
            votes = group[0].votes + group[1].votes
            reading = self.colour_model.read(votes)
            if reading.colour == first.colour:
                certainty = max(certainty, min(1.0, reading.confidence / self.colour_model.strong))
        if any(index.colour_from == "hue" for index in group):
            colour_from = "hue"
        score = max(index.detection.score for index in group)
        return Card(
            name=card_name(symbol, first.colour),
            symbol=symbol,
            colour=first.colour,
            confidence=float(score * certainty),
            box=self._card_box(group, image_shape),
            colour_from=colour_from,
            indices=tuple(index.detection for index in group),
        )

    def _card_box(
        self, group: tuple[_Index, ...], image_shape: tuple[int, ...]
    ) -> tuple[float, float, float, float]:
        """Both corners known: their union grown to the card's edge; one corner: the index grown
        (its direction from the card's centre is unknown), clipped to the picture."""
        boxes = np.asarray([index.detection.box for index in group])
        grow = self.settings.card_margin * max(index.detection.size for index in group)
        x1, y1 = boxes[:, :2].min(axis=0) - grow
        x2, y2 = boxes[:, 2:].max(axis=0) + grow
        height, width = image_shape[:2]
        return float(max(0.0, x1)), float(max(0.0, y1)), float(min(width, x2)), float(min(height, y2))


def corner_pairs(
    corners: Sequence[tuple[tuple[float, float], float]], settings: ReaderSettings
) -> list[tuple[int, int, float]]:
    """(i, j, spacing) for each two corner indices, given as (centre, size), that may be one card's:
    of similar size (:attr:`ReaderSettings.pair_size_ratio`) and spaced as a card's two corners
    (:attr:`ReaderSettings.pair_distance`, in sizes). The training data of the pair check and the
    centre reader asks the same of a rendered scene's corners."""
    low, high = settings.pair_distance
    found = []
    for i, (a_centre, a_size) in enumerate(corners):
        for j in range(i + 1, len(corners)):
            b_centre, b_size = corners[j]
            if not _similar_sizes(a_size, b_size, settings):
                continue
            spacing = index_spacing(a_centre, a_size, b_centre, b_size)
            if low <= spacing <= high:
                found.append((i, j, spacing))
    return found


def index_spacing(
    a_centre: tuple[float, float], a_size: float, b_centre: tuple[float, float], b_size: float
) -> float:
    """How far apart two indices lie, in their mean size: the one measure of :func:`corner_pairs`
    (over :attr:`ReaderSettings.pair_distance`), of the corners that disagree and pale rivals (over
    :attr:`ReaderSettings.consensus_distance`), and of :func:`referee.vision.deck.faces_in_a_row`."""
    return math.dist(a_centre, b_centre) / ((a_size + b_size) / 2)


def _named(index: _Index, symbol: str, score: float) -> _Index:
    """An index read as ``symbol`` with ``score`` (the corners of one card reconciled)."""
    detection = replace(index.detection, class_id=CLASS_NAMES.index(symbol), class_name=symbol, score=score)
    return replace(index, detection=detection)


def _likeliest_symbol(probabilities: np.ndarray) -> str:
    """The glyph classifier's own likeliest symbol for a box (its background classes aside)."""
    return SYMBOL_CLASSES[int(np.argmax(probabilities[: len(SYMBOL_CLASSES)]))]


def _symbol_boxes(detections: list[Detection]) -> list[Detection]:
    """The index boxes among detections (colour-blind symbols left out)."""
    return [d for d in detections if d.class_name in SYMBOL_CLASSES]


def _greedy_pairs(candidates: list[_PairCandidate], paired: set[int]) -> list[tuple[_Index, ...]]:
    """The cheapest candidate pairs first, each index in one pair at most (``paired`` is updated)."""
    return [(first, second) for _, _, _, first, second in _cheapest_first(candidates, paired)]


def _cheapest_first(candidates: list[_PairCandidate], paired: set[int]) -> list[_PairCandidate]:
    """The candidates taken cheapest first, each index in one at most (``paired`` is updated)."""
    taken = []
    for candidate in sorted(candidates, key=lambda candidate: candidate[:3]):
        _, i, j = candidate[:3]
        if i not in paired and j not in paired:
            paired |= {i, j}
            taken.append(candidate)
    return taken


def _most_pairs(candidates: list[_PairCandidate], paired: set[int]) -> list[tuple[_Index, ...]]:
    """The cheapest candidate pairs first; then, while a pair ``a–b`` can give way to two pairs
    ``u–a`` and ``b–v`` of lone ``u`` and ``v``, the cheapest such exchange (one more pair of
    corners, one card fewer). ``paired`` is updated."""
    chosen = {(candidate[1], candidate[2]): candidate for candidate in _cheapest_first(candidates, paired)}
    neighbours: dict[int, list[tuple[int, _PairCandidate]]] = {}
    for candidate in candidates:
        _, i, j = candidate[:3]
        neighbours.setdefault(i, []).append((j, candidate))
        neighbours.setdefault(j, []).append((i, candidate))
    while True:
        exchanges = [
            (with_a[0] + with_b[0], (a, b), with_a, with_b)
            for a, b in chosen
            for u, with_a in neighbours.get(a, [])
            if u not in paired
            for v, with_b in neighbours.get(b, [])
            if v not in paired and v != u
        ]
        if not exchanges:
            return [(candidate[3], candidate[4]) for candidate in chosen.values()]
        _, given_way, *taken = min(exchanges, key=lambda exchange: (exchange[0], exchange[1]))
        del chosen[given_way]
        for candidate in taken:
            chosen[(candidate[1], candidate[2])] = candidate
            paired |= {candidate[1], candidate[2]}


def _most_shared(colours: tuple[str, str], looks: Sequence[ColourVotes]) -> str:
    """Of two colours, the one with the larger sum over ``looks`` of its share of each look's
    coloured pixels: each look votes once, however many pixels it holds."""

    def shares(colour: str) -> float:
        k = COLOURS.index(colour)
        return sum(look.colours[k] / look.coloured for look in looks if look.coloured)

    return max(colours, key=shares)


def _between(a: Detection, b: Detection) -> Box:
    """The middle half of the line between two corner indices, widened by an index: on one card,
    its body (field, oval, centre symbol); on two cards, both of them."""
    (ax, ay), (bx, by) = a.centre, b.centre
    x1, x2 = sorted((ax + 0.25 * (bx - ax), ax + 0.75 * (bx - ax)))
    y1, y2 = sorted((ay + 0.25 * (by - ay), ay + 0.75 * (by - ay)))
    grow = 0.5 * (a.size + b.size) / 2
    return x1 - grow, y1 - grow, x2 + grow, y2 + grow


def _corners_of_two_cards(
    glyphs: _GlyphPatches, a: Detection, b: Detection, settings: ReaderSettings
) -> bool:
    """Whether two glyphs are two cards' corners, not one card's: they clearly look alike as they
    lie, and not once one is turned by half a turn, as a card's two corners would (identical cards
    side by side); or they look unlike even half-turned (:attr:`ReaderSettings.turn_test_apart`:
    two cards at different turns). Glyphs that look alike either way (0, 8, the reverse arrows) or
    too small to tell say nothing. Each way is matched at its best shift, since the detector's boxes
    wander by a pixel or two."""
    shorter, longer = settings.turn_test_min_px
    for box in (a.box, b.box):
        sides = sorted((box[2] - box[0], box[3] - box[1]))
        if sides[0] < shorter or sides[1] < longer:
            return False
    first, second = glyphs.patch(a), glyphs.patch(b)
    if first is None or second is None:
        return False
    inner = slice(_GLYPH_SHIFT_PX, -_GLYPH_SHIFT_PX)
    half_turned = float(
        cv2.matchTemplate(first, second[::-1, ::-1][inner, inner], cv2.TM_CCOEFF_NORMED).max()
    )
    if settings.turn_test_apart is not None and half_turned < settings.turn_test_apart:
        return True
    as_they_lie = float(cv2.matchTemplate(first, second[inner, inner], cv2.TM_CCOEFF_NORMED).max())
    return as_they_lie >= settings.turn_test_alike and as_they_lie - half_turned >= settings.turn_test_margin


def _glyph_patch(grey: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray | None:
    """The glyph's box with a little margin, as a small square; None where it has no contrast."""
    height, width = grey.shape[:2]
    margin = 0.1 * max(box[2] - box[0], box[3] - box[1])
    x1, y1 = max(0, round(box[0] - margin)), max(0, round(box[1] - margin))
    x2, y2 = min(width, round(box[2] + margin)), min(height, round(box[3] + margin))
    if x2 - x1 < 4 or y2 - y1 < 4:
        return None
    side = _GLYPH_PATCH_PX
    patch = cv2.resize(grey[y1:y2, x1:x2], (side, side), interpolation=cv2.INTER_AREA).astype(np.float32)
    return patch if float(patch.std()) > 1.0 else None


class _Fields:
    """The colour votes around the boxes of one picture, each counted once: the learnt deck asks
    for a box's field kind, the index test for its colour, and a contradicted symbol for the other
    kind's test, all of the same few pixels.

    A field with no white of its own to balance to (a pale yellow under a warm lamp: its ink no
    longer stands out) borrows the light measured at the nearest of ``indices`` that has one: one
    lamp lights the picture, and a field left unbalanced reads that lamp's cast as a print colour
    (yellow as green)."""

    def __init__(self, image_bgr: np.ndarray, model: ColourModel, indices: Sequence[Detection] = ()) -> None:
        self.image = image_bgr
        self._model = model
        self._indices = {index.box: index for index in indices}
        self._votes: dict[tuple[Box, float], ColourVotes] = {}
        self._own: dict[tuple[Box, float], ColourVotes] = {}  # the same, of each box's own pixels
        self._masks: dict[tuple[Box, float], np.ndarray | None] = {}  # which pixels are a box's own
        self._gains: dict[Box, np.ndarray | None] = {}

    def votes(self, box: Box, margin: float) -> ColourVotes:
        key = (box, margin)
        if key not in self._votes:
            self._votes[key] = self._model.votes(self.image, box, margin, lambda: self._borrowed_light(box))
        return self._votes[key]

    def pale_votes(self, box: Box, margin: float, own: bool = False) -> ColourVotes:
        """The votes of a field too washed out for :meth:`votes`, against its own ink's white
        (:meth:`ColourModel.votes` with ``pale``; asked rarely, so not kept); ``own``: as in
        :meth:`own_votes`."""
        keep = self._own_pixels(box, margin) if own else None
        return self._model.votes(
            self.image, box, margin, lambda: self._borrowed_light(box), pale=True, keep=keep
        )

    def own_votes(self, box: Box, margin: float) -> ColourVotes:
        """:meth:`votes` counting only the pixels nearer to this box than to any other index box
        (:attr:`ReaderSettings.own_field`); the same as :meth:`votes` where no neighbour reaches."""
        keep = self._own_pixels(box, margin)
        if keep is None:
            return self.votes(box, margin)
        key = (box, margin)
        if key not in self._own:
            self._own[key] = self._model.votes(
                self.image, box, margin, lambda: self._borrowed_light(box), keep=keep
            )
        return self._own[key]

    def _own_pixels(self, box: Box, margin: float) -> np.ndarray | None:
        """Which pixels of the field window around ``box`` lie nearer (in box sizes) to its centre
        than to any neighbouring index's; None where no neighbour claims any of them. Kept: the
        pale second reading asks again for the same window."""
        key = (box, margin)
        if key not in self._masks:
            self._masks[key] = self._nearest_pixels(box, margin)
        return self._masks[key]

    def _nearest_pixels(self, box: Box, margin: float) -> np.ndarray | None:
        left, top, right, bottom = field_window(self.image.shape, box, margin)
        if right <= left or bottom <= top:
            return None
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        size = max(box[2] - box[0], box[3] - box[1], 1e-3)
        reach = math.hypot(right - left, bottom - top)
        neighbours = [
            (other.centre, other.size)
            for other in self._indices.values()
            if other.box != box and 0.5 * size <= math.dist(centre, other.centre) <= reach + other.size
        ]
        if not neighbours:
            return None
        ys, xs = np.mgrid[top:bottom, left:right].astype(np.float32) + 0.5
        own = np.hypot(xs - centre[0], ys - centre[1]) / size
        keep = np.ones(own.shape, bool)
        for (x, y), other_size in neighbours:
            keep &= own <= np.hypot(xs - x, ys - y) / max(other_size, 1e-3)
        return None if keep.all() else keep

    def _own_light(self, box: Box) -> np.ndarray | None:
        if box not in self._gains:
            self._gains[box] = white_gains_at(self.image, box, face_tint=self._model.face_white_tint)
        return self._gains[box]

    def _borrowed_light(self, box: Box) -> np.ndarray | None:
        """The gains of the nearest other box with a white of its own; None where this box has one
        (its own is used), the model balances nothing, or no box has one."""
        if not self._model.auto_white or self._own_light(box) is not None:
            return None
        centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
        lit = [
            (math.dist(centre, other.centre), gains)
            for other in self._indices.values()
            if other.box != box and (gains := self._own_light(other.box)) is not None
        ]
        return min(lit, key=lambda pair: pair[0])[1] if lit else None


class _GlyphPatches:
    """The glyph patches of one picture, each cut once, and only when a candidate pair asks for it
    (most pictures have none: the grey picture is made on first use)."""

    def __init__(self, image_bgr: np.ndarray) -> None:
        self._image = image_bgr
        self._grey: np.ndarray | None = None
        self._patches: dict[tuple[float, float, float, float], np.ndarray | None] = {}

    def patch(self, detection: Detection) -> np.ndarray | None:
        if detection.box not in self._patches:
            if self._grey is None:
                self._grey = cv2.cvtColor(self._image, cv2.COLOR_BGR2GRAY)
            self._patches[detection.box] = _glyph_patch(self._grey, detection.box)
        return self._patches[detection.box]


class _CentreLooks:
    """What the centre reader sees of one picture's cards, each card (its two index centres, in
    order) looked at once: the centre arbiter asks while pairing, and the paired card is named by
    the same look afterwards (:meth:`CardReader._read_centres`)."""

    def __init__(self, reader: CentreReader, image_bgr: np.ndarray) -> None:
        self._reader = reader
        self._image = image_bgr
        self._seen: dict[tuple[tuple[float, float], tuple[float, float]], np.ndarray] = {}

    def read(self, cards: list[tuple[tuple[float, float], tuple[float, float]]]) -> np.ndarray:
        """(N, len(CENTRE_CLASSES)) beliefs, as :meth:`CentreReader.read` gives them."""
        unseen = list(dict.fromkeys(card for card in cards if card not in self._seen))
        if unseen:
            self._seen.update(zip(unseen, self._reader.read(self._image, unseen), strict=True))
        if not cards:
            return np.zeros((0, len(CENTRE_CLASSES)), np.float32)
        return np.stack([self._seen[card] for card in cards])


_GLYPH_PATCH_PX = 28  # a glyph's box with 10 % margin, as a square of this side …
_GLYPH_SHIFT_PX = 3  # … matched against the other's middle at shifts up to this many pixels


def _cut_by_the_edge(index: _Index, image_shape: tuple[int, ...], cut_share: float) -> bool:
    """Whether a lone index looks cut by the picture's edge: it touches the edge and is short
    across it (a cut 2 reads as a 1). With no second corner to confirm it the card is not read;
    a whole glyph touching the edge is at least as long across the edge as along it, most often."""
    height, width = image_shape[:2]
    x1, y1, x2, y2 = index.detection.box
    across_x = (x2 - x1) < cut_share * (y2 - y1)  # short across a left or right edge
    across_y = (y2 - y1) < cut_share * (x2 - x1)  # short across a top or bottom edge
    return ((x1 <= 1 or x2 >= width - 1) and across_x) or ((y1 <= 1 or y2 >= height - 1) and across_y)


def _paired_corners(groups: list[tuple[_Index, ...]]) -> list[Detection]:
    """The corners of the cards read from both corners."""
    return [index.detection for group in groups if len(group) == 2 for index in group]


def _beside_a_neighbour(lone: Detection, corners: list[Detection], settings: ReaderSettings) -> bool:
    """Whether one of ``corners`` lies as a fan neighbour's corner lies beside ``lone``: of similar
    size, and closer than a card's own two corners (:attr:`ReaderSettings.fan_neighbour`)."""
    reach = settings.consensus_distance[0]
    return any(
        _similar_sizes(lone.size, corner.size, settings)
        and math.dist(lone.centre, corner.centre) <= reach * max(lone.size, corner.size)
        for corner in corners
    )


def _without_pale_rivals(
    groups: list[tuple[_Index, ...]], settings: ReaderSettings
) -> list[tuple[_Index, ...]]:
    """Drop lone corners coloured only from a washed-out field (:attr:`ReaderSettings.pale_fields`)
    where a lone corner read from a field of full colour lies where that card's other corner could
    (similar size, spaced within :attr:`ReaderSettings.consensus_distance`): they did not pair, so
    they disagree, and the stronger reading speaks for the card. A corner paired with its own card's
    other corner is no rival."""
    if not any(len(group) == 1 and group[0].pale for group in groups):
        return groups  # nearly always: no field was washed out
    near, far = settings.consensus_distance
    strong = [group[0].detection for group in groups if len(group) == 1 and not group[0].pale]

    def rivalled(lone: Detection) -> bool:
        return any(
            _similar_sizes(lone.size, other.size, settings)
            and near <= index_spacing(lone.centre, lone.size, other.centre, other.size) <= far
            for other in strong
        )

    return [
        group for group in groups if len(group) == 2 or not group[0].pale or not rivalled(group[0].detection)
    ]


def _similar_sizes(a: float, b: float, settings: ReaderSettings) -> bool:
    """Whether two index sizes may be one card's corners, or neighbours' in a fan
    (:attr:`ReaderSettings.pair_size_ratio`)."""
    return max(a, b) <= settings.pair_size_ratio * min(a, b)


def _without_echoes(groups: list[tuple[_Index, ...]], settings: ReaderSettings) -> list[tuple[_Index, ...]]:
    """Drop lone "indices" that are the big centre numeral of a card read from both corners: much
    larger than its corners and at its middle (another card's index there would be corner-sized)."""
    pairs = [(group[0].detection, group[1].detection) for group in groups if len(group) == 2]

    def echo(lone: Detection) -> bool:
        for a, b in pairs:
            middle = ((a.centre[0] + b.centre[0]) / 2, (a.centre[1] + b.centre[1]) / 2)
            bigger = lone.size > settings.pair_size_ratio * max(a.size, b.size)
            if bigger and math.dist(lone.centre, middle) <= settings.artwork_centre_share * math.dist(
                a.centre, b.centre
            ):
                return True
        return False

    return [group for group in groups if len(group) == 2 or not echo(group[0].detection)]


def _on_one_glyph(box: Box, others: list[Detection], settings: ReaderSettings) -> np.ndarray:
    """Which of ``others`` box the same glyph as ``box``: the smaller of the two lies at least
    :attr:`ReaderSettings.duplicate_overlap` inside the larger."""
    boxes = np.asarray([d.box for d in others], np.float64).reshape(-1, 4)
    return box_overlap_of_smaller(np.asarray(box), boxes) >= settings.duplicate_overlap


def _off_sure_glyphs(
    weak: list[Detection], sure: list[Detection], settings: ReaderSettings
) -> list[Detection]:
    """The ``weak`` boxes on no glyph that a ``sure`` box (at the detector's floor or above) also
    covers: where the detector was sure of a glyph, a weaker box of it is only another outline."""
    return [d for d in weak if not _on_one_glyph(d.box, sure, settings).any()]


def suppress_duplicates(detections: list[Detection], settings: ReaderSettings) -> list[Detection]:
    """Keep the best-scoring box of each glyph. The detector sometimes boxes one glyph twice: as two
    symbols (6 and 9, +2 and +4, a 7 inside a looser 1) or as one symbol in a tight and a loose box.
    NMS keeps such pairs when they overlap by less than half, and two such pairs read as two cards."""
    kept: list[Detection] = []
    for detection in sorted(detections, key=lambda d: -d.score):
        if not _on_one_glyph(detection.box, kept, settings).any():
            kept.append(detection)
    return kept


def _off_colourblind_symbols(
    symbols: list[Detection], colourblind: list[Detection], settings: ReaderSettings
) -> list[Detection]:
    """Drop index boxes that lie mostly on a colour-blind symbol the detector is clearly surer of:
    that symbol boxed once more as an index (seen on laid-out hands: a ★ beside a reverse also read
    as a reverse at 0.30 against 0.88, a ▲ beside a 1 as a 4 at 0.28 against 0.89), which became a
    card of its own. An index and the symbol printed beside it overlap far less. Where the two
    scores are close (tiny glyphs on a whole table squeezed into one view), either may be the index,
    and dropping it would lose a card: the index stays."""
    if not colourblind:
        return symbols
    scores = np.asarray([d.score for d in colourblind])
    return [
        d
        for d in symbols
        if not (
            _on_one_glyph(d.box, colourblind, settings) & (scores >= d.score + settings.colourblind_surer_by)
        ).any()
    ]


def _without_shifted_twins(indices: list[_Index], settings: ReaderSettings) -> list[_Index]:
    """Drop an index of the same symbol and colour as a better one right beside it: one glyph boxed
    once more, shifted onto the colour-blind symbol printed next to it. (Beside it but of another
    colour is a tightly fanned neighbour: real hands hold them 0.85 sizes apart. So is an identical
    card's, which is why a learnt deck that prints no such symbol skips this.)"""
    kept: list[_Index] = []
    for index in sorted(indices, key=lambda i: -i.detection.score):
        a = index.detection
        if not any(
            k.detection.class_name == a.class_name
            and k.colour == index.colour
            and math.dist(k.detection.centre, a.centre)
            < settings.duplicate_spacing * (k.detection.size + a.size) / 2
            for k in kept
        ):
            kept.append(index)
    return kept


def nearest_colourblind(index: Detection, symbols: list[Detection], radius: float) -> Detection | None:
    """The colour-blind symbol printed by this index, if the detector saw one within ``radius`` sizes."""
    best, best_distance = None, radius * index.size
    for symbol in symbols:
        distance = math.dist(index.centre, symbol.centre)
        if distance <= best_distance:
            best, best_distance = symbol, distance
    return best
