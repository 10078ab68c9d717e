"""The table run from the buttons alone: long presses for a new game, the next round, the end of the
match and shutting the Pi down, through the real pipeline, journal and phrase book."""

from __future__ import annotations

import subprocess
import time
from types import SimpleNamespace

import numpy as np
import pytest
from gpiozero.pins.mock import MockFactory

from hardware.buttons import ButtonName, ButtonQueue, GpioButtons, KeyboardButtons
from hardware.camera import CameraLost
from hardware.speaker import RecordingSpeaker
from referee.rules import Flip, Table, parse_card
from referee.table.app import RefereeApp
from referee.table.config import parse_config
from referee.table.controls import POWER_OFF, TableControls
from referee.table.journal import Journal
from referee.table.phrases import PhraseBook
from referee.table.session import LiveGame, Pipeline

CONFIG = parse_config('players = ["Anna", "Ben"]\n')


@pytest.fixture
def table(tmp_path):
    """A game in progress: the pipeline (no camera needed for buttons), its journal and its voice."""
    journal = Journal.open(tmp_path / "journal.sqlite3")
    first = Table.deal(CONFIG.players, CONFIG.rules.build())
    game_id = journal.start_game(first.setup, language="en")
    speaker = RecordingSpeaker("en")
    app = RefereeApp(first, speaker, PhraseBook("en"), journal=journal, game_id=game_id)
    app.submit(Flip(parse_card("red-4")))
    pipeline = Pipeline(None, None, app)
    commands = []

    def run_command(command):
        commands.append(command)
        return subprocess.CompletedProcess(command, 1, "", "sudo: a password is required\n")

    controls = TableControls(pipeline, journal, CONFIG, run_command=run_command)
    pipeline.on_hold = controls.hold
    yield SimpleNamespace(
        pipeline=pipeline, app=app, journal=journal, speaker=speaker, controls=controls, commands=commands
    )
    journal.close()


def hold(pipeline: Pipeline, *buttons: ButtonName, held: bool = True) -> list:
    queue = ButtonQueue(0)
    for button in buttons:
        queue.press(button, held=held)
    return pipeline.press(queue)


def test_holding_green_abandons_the_game_and_deals_a_new_one(table):
    first_game, first_table = table.app.game_id, table.app.table
    hold(table.pipeline, ButtonName.GREEN)
    assert table.app.table is not first_table and table.app.table.waiting_for == "flip"
    games = {game.game_id: game for game in table.journal.history()}
    assert games[first_game].abandoned and not games[table.app.game_id].abandoned
    assert table.speaker.said[-1] == (
        "New game with Anna and Ben. Shuffle, deal and turn up the first card.",
        "en",
    )


def test_holding_red_ends_the_match_and_the_buttons_wait_for_a_new_game(table):
    hold(table.pipeline, ButtonName.RED)
    assert table.speaker.said[-1][0] == "Match over. Score: Anna 0 and Ben 0. Hold green for a new game."
    assert table.journal.history()[0].abandoned
    assert hold(table.pipeline, ButtonName.DRAW, held=False) == []  # a short press means nothing now
    assert table.app.table.state().counts == {"Anna": 7, "Ben": 7}
    hold(table.pipeline, ButtonName.GREEN)
    assert [verdict.ok for verdict in hold(table.pipeline, ButtonName.DRAW, held=False)] == [
        False
    ]  # flip first
    assert len(table.journal.history()) == 2


def test_holding_blue_says_the_next_round_only_when_the_round_is_over(table):
    hold(table.pipeline, ButtonName.BLUE)
    assert table.speaker.said[-1][0] == "The round is still going."
    table.app.table = SimpleNamespace(waiting_for="next_round")
    hold(table.pipeline, ButtonName.BLUE)
    assert table.speaker.said[-1][0] == "Next round: shuffle, deal and turn up the first card."


def test_other_long_presses_say_which_there_are(table):
    hold(table.pipeline, ButtonName.UNO)
    assert table.speaker.said[-1][0].startswith("Hold: green for a new game, blue for the next round")


def test_a_won_match_says_how_to_go_on_once(table):
    table.app.table = SimpleNamespace(state=lambda: SimpleNamespace(match_winner="Anna"))
    assert not table.controls.finished() and not table.controls.finished()
    hints = [text for text, _ in table.speaker.said if text.startswith("Hold green for a new game")]
    assert hints == ["Hold green for a new game, or undo to switch off."]


def test_holding_undo_stops_the_referee_then_switches_the_pi_off(table, capsys):
    buttons = ButtonQueue(0)
    buttons.press(ButtonName.UNDO, held=True)
    frames = [CameraLost("fake camera", t) for t in (0.0, 1.0, 2.0)]
    game = LiveGame(
        table.pipeline, frames, buttons, table.speaker, table.journal, table_controls=table.controls
    )
    assert game.play() == 0
    assert table.speaker.said[-1][0] == "Switching off. See you next time!"
    assert sum(text == table.app.phrases.message("camera_lost") for text, _ in table.speaker.said) == 1
    assert table.commands == [POWER_OFF]
    assert capsys.readouterr().err == (
        "uno-referee: warning: cannot switch off (sudo -n systemctl poweroff: sudo: a password is required); "
        "stopped the referee only\n"
    )


def test_gpio_long_press_is_one_held_press_and_a_tap_one_short_press():
    factory = MockFactory()
    buttons = GpioButtons({"green": 20}, bounce_s=0.0, pin_factory=factory, hold_s=0.05)
    pin = factory.pin(20)
    pin.drive_low()
    pin.drive_high()
    presses = buttons.drain()
    pin.drive_low()
    deadline = time.monotonic() + 2
    while len(presses) < 2 and time.monotonic() < deadline:  # gpiozero's hold thread calls back
        presses += buttons.drain()
        time.sleep(0.01)
    pin.drive_high()
    presses += buttons.drain()
    buttons.close()
    assert [(p.button, p.held) for p in presses] == [(ButtonName.GREEN, False), (ButtonName.GREEN, True)]


def test_shift_and_a_key_is_the_long_press_on_a_keyboard():
    import io

    keyboard = KeyboardButtons(io.StringIO("gGZu"))
    keyboard.wait_until_read()
    presses = [(p.button.value, p.held) for p in keyboard.drain()]
    assert presses == [("green", False), ("green", True), ("undo", True), ("uno", False)]


def test_the_status_light_follows_what_the_referee_does(table):
    from hardware.status_light import RecordingStatusLight
    from referee.table.controls import StatusReporter

    light, now = RecordingStatusLight(), [0.0]
    table.pipeline.watcher = SimpleNamespace(reads=0)
    status = StatusReporter(light, clock=lambda: now[0])
    status.update(table.pipeline)  # the game waits for a play: ready
    table.pipeline.watcher.reads = 1  # the pile moved and was read
    status.update(table.pipeline)
    now[0] = 2.0
    status.update(table.pipeline)
    table.pipeline.feed(CameraLost("fake camera", 2.0))
    status.update(table.pipeline)
    table.pipeline.camera_lost = False
    table.app.table = SimpleNamespace(waiting_for="colour")
    status.update(table.pipeline)
    assert light.states == ["ready", "reading", "ready", "error", "waiting"]


def test_the_status_led_blinks_through_gpiozero():
    from hardware.status_light import GpioStatusLight

    factory = MockFactory()
    light = GpioStatusLight(17, pin_factory=factory)
    pin = factory.pin(17)
    light.show("ready")
    assert pin.state == 1
    light.show("reading")  # 0.1 s on, 0.1 s off
    seen = set()
    deadline = time.monotonic() + 2
    while len(seen) < 2 and time.monotonic() < deadline:
        seen.add(pin.state)
        time.sleep(0.01)
    light.close()
    assert seen == {0, 1}


def test_the_led_pin_may_not_be_a_button_s():
    from referee.errors import UserError

    with pytest.raises(UserError, match=r"GPIO pin 5 is given to both buttons.draw and led.pin"):
        parse_config('players = ["Anna", "Ben"]\n[led]\nenabled = true\npin = 5\n')
    assert parse_config('players = ["Anna", "Ben"]\n[led]\npin = 5\n').led.pin == 5  # off: not checked


class _PileReader:
    """The discard zone's reader: says whatever the test shows it (a scripted detector's answer)."""

    def __init__(self) -> None:
        self.answer: list = []

    def read(self, image_bgr, *, turned=False):
        return self.answer


def _card(name: str, corners: list[tuple[float, float]]):
    """A read card with its two corner indices at ``corners`` (crop pixels)."""
    from referee.render.cards import parse_card_name
    from referee.vision.classes import SYMBOL_CLASSES
    from referee.vision.detection import Detection
    from referee.vision.reader import Card

    symbol, colour = parse_card_name(name)
    indices = tuple(
        Detection((x - 10, y - 10, x + 10, y + 10), 0, SYMBOL_CLASSES[0], 0.9) for x, y in corners
    )
    xs, ys = [x for x, _ in corners], [y for _, y in corners]
    box = (min(xs) - 20, min(ys) - 20, max(xs) + 20, max(ys) + 20)
    return Card(
        name=name, symbol=symbol, colour=colour, confidence=0.9, box=box, colour_from="hue", indices=indices
    )


EMPTY_TABLE = np.full((200, 200, 3), 70, np.uint8)


def _with_card(image: np.ndarray, x: int, y: int, value: int = 220) -> np.ndarray:
    out = image.copy()
    out[y : y + 80, x : x + 50] = value
    return out


@pytest.fixture
def round_over(tmp_path):
    """A pipeline whose app has refereed a whole simulated round of Anna and Ben and waits for the
    next, the round's last card on the pile as the watcher saw it."""
    from referee.lab.demo import simulate_round
    from referee.rules import observation_from_dict
    from referee.table.pile import PileWatcher

    rules = CONFIG.rules.build()
    journal = Journal.open(tmp_path / "journal.sqlite3")
    first = Table.deal(CONFIG.players, rules, dealer="Ben")
    speaker = RecordingSpeaker("en")
    app = RefereeApp(
        first,
        speaker,
        PhraseBook("en"),
        journal=journal,
        game_id=journal.start_game(first.setup, language="en"),
    )
    for step in simulate_round(CONFIG.players, rules, seed=3):
        app.submit(observation_from_dict(step.observation))
    assert app.table.waiting_for == "next_round"
    reader = _PileReader()
    view = SimpleNamespace(crop=lambda image, zone: image)
    pipeline = Pipeline(view, PileWatcher(reader), app)  # type: ignore[arg-type]
    controls = TableControls(pipeline, journal, CONFIG)
    pipeline.on_hold = controls.hold
    game = SimpleNamespace(pipeline=pipeline, app=app, reader=reader, speaker=speaker, clock=0.0)
    top = str(app.table.top)
    assert show(game, EMPTY_TABLE, []) == []  # the empty table, learnt before the game
    pipeline.watcher.resume_on(top)  # the last card, already judged
    assert show(game, _with_card(EMPTY_TABLE, 60, 50), [_card(top, [(80, 60), (120, 140)])]) == []
    assert pipeline.watcher.top_card == top
    yield game
    journal.close()


def show(game: SimpleNamespace, picture: np.ndarray, answer: list) -> list:
    """``picture`` for a second of camera frames while the reader sees ``answer``; their verdicts."""
    from hardware.camera import Frame

    game.reader.answer = answer
    verdicts = []
    for _ in range(15):
        game.clock += 1 / 15
        verdicts += game.pipeline.feed(Frame(picture, game.clock, round(game.clock * 15)))
    return verdicts


@pytest.mark.parametrize("gathered", [True, False], ids=["pile gathered up", "turned up on the old pile"])
def test_holding_blue_then_turning_up_a_card_starts_the_next_round_even_with_the_last_top_card(
    round_over, gathered
):
    """The round starts when its first card lands, whatever it is: the very card that ended the last
    round included, after the pile was gathered up or turned up onto it in another pose."""
    game = round_over
    top = str(game.app.table.top)
    hold(game.pipeline, ButtonName.BLUE)
    assert game.speaker.said[-1][0] == "Next round: shuffle, deal and turn up the first card."
    first_card = _card(top, [(80, 60), (120, 140)])
    if gathered:
        assert show(game, EMPTY_TABLE, []) == []  # the pile gathered up: no verdict
        flipped = show(game, _with_card(EMPTY_TABLE, 60, 50), [first_card])
    else:
        picture = _with_card(_with_card(EMPTY_TABLE, 60, 50), 75, 62, value=200)
        flipped = show(game, picture, [first_card, _card(top, [(95, 70), (116, 156)])])
    assert [verdict.ok for verdict in flipped] == [True]
    state = game.app.table.state()
    assert state.round_number == 2 and str(game.app.table.top) == top
    assert game.app.table.waiting_for not in ("next_round", "flip")
    assert state.counts == {"Anna": 7, "Ben": 7}
    assert any(text.startswith("Round 2. Anna deals") for text, _ in game.speaker.said)


def test_a_laid_out_hand_is_counted_as_most_looks_at_it_saw_it():
    """A hand is read on the latest frame and two earlier looks kept while it was owed: a glare spot
    on the frame DRAW was pressed on does not add a card to the score."""
    from hardware.camera import Frame

    class _Reader:
        def read(self, picture: np.ndarray) -> list:
            names = ["red-2", "blue-7"] + (["green-skip"] if picture[0, 0, 0] == 255 else [])
            return [SimpleNamespace(name=name) for name in names]

    app = SimpleNamespace(table=SimpleNamespace(waiting_for="play"), read_scoring_zone=None, moment=None)
    watcher = SimpleNamespace(feed=lambda crop, timestamp: [], reader=_Reader())
    view = SimpleNamespace(crop=lambda image, zone: image)
    pipeline = Pipeline(view, watcher, app)  # type: ignore[arg-type]
    laid, glare = np.zeros((4, 4, 3), np.uint8), np.full((4, 4, 3), 255, np.uint8)
    for k in range(15):  # a second of play: nothing kept
        pipeline.feed(Frame(laid, k / 15, k))
    app.table.waiting_for = "reveal"
    for k in range(15, 45):  # the hand laid out, two seconds
        pipeline.feed(Frame(laid, k / 15, k))
    pipeline.feed(Frame(glare, 45 / 15, 45))
    assert app.read_scoring_zone() == ["blue-7", "red-2"]
    # The next hand starts its looks anew: read at once, the glaring frame alone counts.
    assert pipeline.read_scoring_zone() == ["blue-7", "green-skip", "red-2"]


def test_the_scoring_zone_before_any_hand_was_laid_out_tells_the_covers_print_from_cards():
    """The first look once hands are owed is the bare cover (no card read there); a lone corner read
    later where the picture still shows that cover is its print, not a card, for every hand owed."""
    from hardware.camera import Frame
    from referee.vision.classes import SYMBOL_CLASSES
    from referee.vision.detection import Detection
    from referee.vision.reader import Card

    def card(name: str, x: float, y: float) -> Card:  # read from one corner index at (x, y)
        index = Detection((x - 5, y - 5, x + 5, y + 5), 0, SYMBOL_CLASSES[0], 0.9)
        colour = None if name == "wild" else name.split("-")[0]
        box = (x - 10, y - 10, x + 30, y + 50)
        return Card(name, name.split("-")[-1], colour, 0.9, box, "hue", (index,))

    rng = np.random.default_rng(3)
    cover = rng.integers(0, 255, (120, 120, 3)).astype(np.uint8)
    laid = cover.copy()
    laid[60:110, 10:50] = 230  # the hand's card, over the print
    laid[62:72, 15:25] = 20

    class _Reader:
        def read(self, picture: np.ndarray) -> list:
            if np.array_equal(picture, cover):
                return []  # nothing on the bare cover: a blob alone is no card
            return [card("red-7", 20, 67), card("wild", 80, 20)]

    app = SimpleNamespace(table=SimpleNamespace(waiting_for="play"), read_scoring_zone=None, moment=None)
    watcher = SimpleNamespace(feed=lambda crop, timestamp: [], reader=_Reader())
    view = SimpleNamespace(crop=lambda image, zone: image)
    pipeline = Pipeline(view, watcher, app)  # type: ignore[arg-type]
    pipeline.feed(Frame(laid, 0.0, 0))  # during play the zone is not watched
    app.table.waiting_for = "reveal"
    pipeline.feed(Frame(cover, 1.0, 1))
    for k in range(2, 20):
        pipeline.feed(Frame(laid, k / 5, k))
    assert app.read_scoring_zone() == ["red-7"]
    assert pipeline.read_scoring_zone() == ["red-7"]  # the next hand owed: the same cover
    app.table.waiting_for = "play"
    pipeline.feed(Frame(laid, 5.0, 25))
    app.table.waiting_for = "reveal"  # owed again, the first look is no bare cover: all counted
    pipeline.feed(Frame(laid, 6.0, 30))
    assert pipeline.read_scoring_zone() == ["red-7", "wild"]
