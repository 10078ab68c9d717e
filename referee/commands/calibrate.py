"""``uno-referee calibrate``: the table plane, the zones and the room's card colours, saved as a profile.

Typical evenings::

    uno-referee calibrate --print-markers markers.png       # print at 100 %, cut, lay out
    uno-referee calibrate --table-size 700x500 --colours    # camera: markers, then one card per colour
    uno-referee calibrate --image frame.jpg --markers       # headless / tests: from a saved picture
    uno-referee calibrate --click                           # no markers: click the corners

Zones default to the marker layout (discard pile in the middle, scoring strip along the bottom);
``--discard``/``--scoring`` set them in millimetres, ``--zones-by-click`` by clicking.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from referee.table.config import add_config_argument

DEFAULT_TABLE = "700x500"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="calibrate the table: plane, zones and card colours",
        description="Find the table plane (printed markers or four clicks), the discard and scoring zones "
        "and the card colours under this room's light; save them as the calibration profile.",
    )
    add_config_argument(parser)
    parser.add_argument(
        "--print-markers", type=Path, metavar="OUT.png", help="write the A4 marker sheet (300 dpi) and stop"
    )
    parser.add_argument("--marker-mm", type=float, default=60.0, help="marker size on the sheet (default 60)")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--image", type=Path, metavar="FRAME", help="calibrate from a saved camera picture")
    source.add_argument("--camera", metavar="SOURCE", help="camera to use instead of [camera] source")
    plane = parser.add_mutually_exclusive_group()
    plane.add_argument("--markers", action="store_true", help="find the four printed markers (default)")
    plane.add_argument("--click", action="store_true", help="click the four corners in a preview window")
    parser.add_argument(
        "--table-size",
        default=DEFAULT_TABLE,
        metavar="WxH",
        help=f"marker rectangle, centre to centre, or clicked corners, in mm (default {DEFAULT_TABLE})",
    )
    parser.add_argument("--discard", metavar="X,Y,W,H", help="discard zone in mm from marker 0")
    parser.add_argument("--scoring", metavar="X,Y,W,H", help="scoring zone in mm from marker 0")
    parser.add_argument("--zones-by-click", action="store_true", help="click both zones in a top-down view")
    parser.add_argument(
        "--px-per-mm", type=float, default=2.0, help="resolution of the zone crops (default 2)"
    )
    parser.add_argument(
        "--colours",
        action="store_true",
        help="measure the card colours: one card of each colour, from the camera",
    )
    parser.add_argument(
        "--colour-image",
        action="append",
        default=[],
        metavar="COLOUR=FILE",
        help="a picture with one COLOUR card (red, yellow, green, blue; black: a wild) in the discard zone",
    )
    parser.add_argument(
        "--colours-json", type=Path, metavar="FILE", help="also export the colour model as JSON"
    )
    parser.add_argument(
        "--deck",
        action="store_true",
        help="learn your deck's faces at the table: lay them a few at a time in the scoring zone, as told",
    )
    parser.add_argument(
        "--deck-image",
        action="append",
        default=[],
        metavar="FACES=FILE",
        help="headless deck learning: a camera picture with FACES (e.g. red-0,red-1,red-2) laid left to "
        "right in the scoring zone",
    )
    parser.add_argument("--output", type=Path, help="profile file (default: [calibration] profile)")
    parser.add_argument("--preview", type=Path, help="preview picture (default: beside the profile)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import dataclasses

    import cv2

    from calibration.markers import write_marker_sheet
    from calibration.plane import build_profile, parse_size_mm
    from calibration.preview import draw_preview
    from referee.errors import UserError
    from referee.table.config import load_config
    from referee.table.phrases import PhraseBook

    if args.print_markers is not None:
        write_marker_sheet(str(args.print_markers), args.marker_mm)
        print(
            f"marker sheet written to {args.print_markers}: print it at 100 % on A4, cut out the four markers"
        )
        return 0

    config = load_config(args.config)
    phrases = PhraseBook(config.language)
    output = (args.output or config.calibration.profile).expanduser()
    table_size = parse_size_mm(args.table_size)
    frame = _picture(args, config)
    corners, method = _corners(args, frame, phrases)
    zones = _zones(args, frame, corners, table_size)
    profile = build_profile(frame, corners, table_size, zones, args.px_per_mm, method)

    previous = _previous_colours(output)
    profile = dataclasses.replace(profile, colour_model=previous)
    colours = "kept from the previous profile" if previous else "defaults (measure them with --colours)"
    colour_error = None
    if args.colours or args.colour_image:
        from calibration.colours import colour_model_from_cards, index_fields
        from referee.table.session import configured_reader

        reader = configured_reader(config)
        view = profile.table_view()

        def check(picture, card: str) -> None:
            index_fields(view.crop(picture, "discard"), reader, card)

        pictures = _colour_pictures(args, config, phrases, frame.shape, check)
        try:
            profile = profile.with_colour_model(colour_model_from_cards(view, pictures, reader))
            colours = f"measured from {', '.join(pictures)}"
        except UserError as error:
            colour_error = error  # the plane and zones are good: save them, then say what failed
            colours = "kept from the previous profile" if previous else "left at the defaults"
    profile.save(output)
    deck_note = None
    if args.deck or args.deck_image:
        from calibration.profile import deck_beside

        deck_note = _learn_deck_at_the_table(args, config, phrases, profile, frame.shape, deck_beside(output))
    preview = (args.preview or output.with_suffix(".preview.png")).expanduser()
    if not cv2.imwrite(str(preview), draw_preview(frame, profile)):
        raise UserError(
            f"cannot write the preview picture {preview}: check the folder exists and is writable"
        )
    if args.colours_json is not None:
        profile.load_colour_model().save(args.colours_json)
    width, height = table_size
    print(f"calibration saved to {output} ({method}, table {width:g} × {height:g} mm, colours {colours})")
    for name, zone in profile.zones.items():
        print(f"  {name} zone: x {zone.x:g}, y {zone.y:g}, {zone.width:g} × {zone.height:g} mm")
    print(f"  check the zones in {preview}")
    if deck_note:
        print(deck_note)
    print(phrases.message("calibration_saved"))
    if colour_error is not None:
        raise UserError(f"{colour_error} (the table and zones were saved, the colours {colours})")
    return 0


#: Faces laid at once in the scoring zone when a deck is learnt at the table.
FACES_PER_ROW = 4


def _learn_deck_at_the_table(
    args: argparse.Namespace, config, phrases, profile, frame_shape, out: Path
) -> str:
    """Learn the deck from faces laid in the scoring zone, a row of a few at a time: from
    ``--deck-image`` pictures, or at the camera, told by voice and on the console what to lay.
    A row that cannot be read is said in one line and asked for again (camera) or skipped (files)."""
    from hardware.camera import open_source, read_image, read_still
    from hardware.speaker import open_speaker
    from referee.errors import UserError
    from referee.table.session import configured_reader
    from referee.vision.deck import DeckBuilder, faces_in_a_row, standard_faces

    reader = configured_reader(config)  # the deck is learnt in the glyph classifier the game reads with
    view = profile.table_view()
    builder = DeckBuilder(reader.glyphs, "the table", reader.settings)
    problems: list[str] = []

    def learn_row(picture, faces: list[str]) -> None:
        crop = view.crop(picture, "scoring")
        detections = reader.detect(crop)  # once: the cards, and the colour-blind symbols beside them

        def read(image):
            return reader.cards_from_detections(image, detections)

        for face, indices in faces_in_a_row(crop, read, faces):
            builder.add(face, crop, indices, detections)

    for item in args.deck_image:
        faces_text, separator, path = item.partition("=")
        faces = [face.strip() for face in faces_text.split(",") if face.strip()]
        if not separator or not faces:
            raise UserError(f"--deck-image {item!r}: write FACES=FILE, e.g. red-0,red-1,red-2=row1.jpg")
        picture = read_image(path)
        if picture.shape != frame_shape:
            raise UserError(
                f"{path} is not the size of the calibration picture: take all pictures with one camera"
            )
        try:
            learn_row(picture, faces)
        except UserError as error:
            problems.append(f"{path}: {error}")
    if args.deck:
        if args.image is not None:
            raise UserError(
                "--deck shoots pictures with the camera: with --image give --deck-image FACES=FILE"
            )
        speaker = open_speaker(config.speech.enabled, config.language)
        source = open_source(args.camera or config.camera.source, config.camera.width, config.camera.height)
        faces_all = standard_faces()
        rows = [faces_all[i : i + FACES_PER_ROW] for i in range(0, len(faces_all), FACES_PER_ROW)]
        for number, faces in enumerate(rows, 1):
            spoken = ", ".join(phrases.card(face) for face in faces)
            prompt = phrases.message("calibration_lay_faces", cards=spoken)
            while True:
                speaker.say(prompt)
                answer = input(f"({number}/{len(rows)}) {prompt} [Enter, s = skip, q = stop] ")
                if answer.strip().lower().startswith(("s", "q")):
                    break
                try:
                    learn_row(read_still(source).image, faces)
                    break
                except UserError as error:
                    speaker.say(str(error))
                    print(error)
            if answer.strip().lower().startswith("q"):
                break
    deck = builder.build(problems)
    deck.save(out)
    for problem in problems:
        print(f"uno-referee: skipped: {problem}")
    missing = deck.missing(standard_faces())
    return f"  deck: {len(deck.faces)} faces learnt, saved to {out}" + (
        f"; not shown, read by the general model: {', '.join(missing)}" if missing else ""
    )


def _previous_colours(output: Path):
    """The colour model of the profile being replaced: calibrating the plane again keeps it."""
    from calibration.profile import CalibrationProfile
    from referee.errors import UserError

    if not output.exists():
        return None
    try:
        return CalibrationProfile.load(output).colour_model
    except UserError:
        return None


def _picture(args: argparse.Namespace, config):
    """The camera picture to calibrate on: ``--image`` or a settled frame from the camera."""
    from hardware.camera import open_source, read_image, read_still

    if args.image is not None:
        return read_image(args.image)
    source = open_source(args.camera or config.camera.source, config.camera.width, config.camera.height)
    return read_still(source).image


def _corners(args: argparse.Namespace, frame, phrases):
    from calibration.clicks import CORNER_PROMPTS, click_points
    from calibration.markers import find_markers
    from referee.errors import UserError

    if args.click:
        return click_points(frame, CORNER_PROMPTS), "clicks"
    try:
        return find_markers(frame).table_corners(), "markers"
    except UserError:
        print(phrases.message("calibration_markers_missing"))
        raise


def _zones(args: argparse.Namespace, frame, corners, table_size):
    """Zones from the options; any not given comes from the marker layout."""
    from calibration.clicks import ZONE_PROMPTS, click_points
    from calibration.plane import parse_zone
    from calibration.table_view import TableView, Zone, default_zones

    zones = default_zones(table_size)
    if args.zones_by_click:
        height, width = frame.shape[:2]
        view = TableView.from_corners(corners, table_size, (width, height), {})
        scale = min(1200 / table_size[0], 800 / table_size[1])
        points = click_points(view.top_down(frame, table_size, scale), ZONE_PROMPTS) / scale
        zones = {
            "discard": Zone.from_points(points[0], points[1]),
            "scoring": Zone.from_points(points[2], points[3]),
        }
    for name in ("discard", "scoring"):
        text = getattr(args, name)
        if text:
            zones[name] = parse_zone(text, name)
    return zones


def _colour_pictures(args: argparse.Namespace, config, phrases, frame_shape, check) -> dict:
    """One picture per card colour: from ``--colour-image`` files, or shot with the camera (``--colours``).

    ``check(picture, card)`` raises a one-line error when the card cannot be found on a picture;
    at the camera the user is then told why and asked again.
    """
    from calibration.colours import SAMPLE_COLOURS
    from hardware.camera import open_source, read_image, read_still
    from referee.errors import UserError

    pictures = {}
    for item in args.colour_image:
        colour, separator, path = item.partition("=")
        if not separator or colour not in SAMPLE_COLOURS:
            raise UserError(
                f"--colour-image {item!r}: write COLOUR=FILE with COLOUR one of {', '.join(SAMPLE_COLOURS)}"
            )
        picture = read_image(path)
        if picture.shape != frame_shape:
            raise UserError(
                f"{path} is not the size of the calibration picture: take all pictures with one camera"
            )
        pictures[colour] = picture
    if not args.colours:
        return pictures
    if args.image is not None:
        raise UserError(
            "--colours shoots pictures with the camera: with --image give --colour-image COLOUR=FILE"
        )
    source = open_source(args.camera or config.camera.source, config.camera.width, config.camera.height)
    for colour in SAMPLE_COLOURS:
        if colour in pictures:
            continue
        optional = colour == "black"
        prompt = phrases.message(
            "calibration_lay_wild" if optional else "calibration_lay_card", colour=colour
        )
        card = "a wild card" if optional else f"a {colour} card"
        while True:
            answer = input(f"{prompt} [Enter{', s = skip' if optional else ''}] ")
            if optional and answer.strip().lower().startswith("s"):
                break
            picture = read_still(source).image
            try:
                check(picture, card)
            except UserError as error:
                print(error)
                continue
            pictures[colour] = picture
            break
    return pictures
