"""The game report: one self-contained HTML page of a journalled game, for a phone or a dispute.

Everything is in the one file (pictures as ``data:`` URIs, styles inline, no script, no web font),
so it opens offline and can be mailed. The timeline replays the journal's records through a fresh
rules table, so every verdict is shown with the very sentences that were announced; each card that
landed is shown with the picture the referee saw, the card it read and the reader's confidence.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.rules import Setup, Table, observation_from_dict
from referee.table.journal import GameSummary, Journal, Picture
from referee.table.phrases import PhraseBook

#: Observation keys whose entries are marked in the timeline (the report's legend).
MARKED = {"draw": "draw", "accept": "draw", "uno": "uno", "catch": "catch", "challenge": "catch"}

_STYLE = """
body{font:16px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;padding:12px;
 background:#f4f1ea;color:#222;max-width:900px;margin:auto}
h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;margin:1.2em 0 .4em}
.meta{color:#555}table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #ccc;padding:4px 6px;text-align:right}th:first-child,td:first-child{text-align:left}
ol{list-style:none;padding:0;margin:0}
li{display:flex;gap:10px;align-items:flex-start;background:#fff;border-left:6px solid #2e7d32;
 margin:6px 0;padding:8px;border-radius:4px}
li.refused{border-left-color:#c62828}li.unreadable{border-left-color:#f9a825}
li.draw{border-left-color:#1565c0}li.uno,li.catch{border-left-color:#6a1b9a}
li img{width:38%;max-width:220px;height:auto;border-radius:3px;flex:none}
.what{font-weight:600}.seq{color:#777;font-size:.85em}.said{color:#444;font-style:italic}
.verdict{font-weight:600;color:#2e7d32}.refused .verdict{color:#c62828}.penalty{color:#c62828}
"""


@dataclass
class TimelineEntry:
    """One record of the journal as the report shows it."""

    seq: int
    recorded_at: str
    observation: dict[str, Any]
    ok: bool
    reason: str | None
    penalties: list[dict[str, Any]]
    sentences: list[str]
    picture: Picture | None = None
    #: Pictures of cards that could not be read, taken after this record.
    unreadable: list[Picture] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """The timeline's colour for it: refused, or what kind of step it was."""
        if not self.ok:
            return "refused"
        return next((mark for key, mark in MARKED.items() if key in self.observation), "ok")


def timeline(journal: Journal, game_id: int) -> list[TimelineEntry]:
    """Every record of a game, in order, with its announced sentences and its pictures."""
    saved = journal.load(game_id)
    table = Table(Setup.from_dict(saved.setup))
    phrases = PhraseBook(saved.language)
    pictures = journal.pictures(game_id)
    landed = {picture.observation_seq: picture for picture in pictures if picture.kind == "landed"}
    entries = []
    for record in journal.records(game_id):
        # Replaying every record, refused ones too, gives the same verdicts: a refusal changes
        # nothing but its penalty, which is what the journal recorded.
        verdict = table.observe(observation_from_dict(record["observation"]))
        plain = record["verdict"]
        entries.append(
            TimelineEntry(
                seq=record["seq"],
                recorded_at=record["recorded_at"],
                observation=record["observation"],
                ok=plain["ok"],
                reason=plain.get("reason"),
                penalties=list(plain.get("penalties", ())),
                sentences=phrases.events(verdict.events),
                picture=landed.get(record["seq"]),
            )
        )
    by_seq = {entry.seq: entry for entry in entries}
    for picture in pictures:
        if picture.kind == "unreadable" and picture.observation_seq in by_seq:
            by_seq[picture.observation_seq].unreadable.append(picture)
    return entries


def describe(observation: Mapping[str, Any]) -> str:
    """A record's observation in words: "play red-7", "Ben: draw 1", "catch Ben (by Clara)"."""
    by = observation.get("by")
    parts = [_phrase(key, value) for key, value in observation.items() if key != "by"]
    text = ", ".join(parts)
    if "catch" in observation and by:
        return f"{text} (by {by})"
    return f"{by}: {text}" if by else text


def _phrase(key: str, value: Any) -> str:
    if value is True:
        return key
    if isinstance(value, list):
        return f"{key} {', '.join(map(str, value))}"
    return f"{key} {value}"


def game_report(journal: Journal, game_id: int) -> str:
    """The whole report of game ``game_id`` as one HTML document."""
    summary = journal.summary(game_id)
    saved = journal.load(game_id)
    entries = timeline(journal, game_id)
    rules = saved.config.get("rules", {})  # the config as it was: the preset's name is there
    preset = rules.get("preset") if isinstance(rules, Mapping) else None
    title = f"UNO game #{game_id}"
    status = (
        f"winner {summary.winner}"
        if summary.winner
        else ("abandoned" if summary.abandoned else "not finished")
    )
    head = (
        f"<h1>{_text(title)}</h1><p class=meta>{_text(summary.started_at[:16].replace('T', ' '))} UTC · "
        f"{_text(', '.join(summary.players))} · {_text(saved.language)}"
        f"{' · rules ' + _text(str(preset)) if preset else ''} · {_text(status)}</p>"
    )
    body = [head, "<h2>Scores</h2>", _scores(summary), f"<h2>Timeline ({len(entries)} records)</h2>"]
    body.append("<ol>" + "".join(_entry(entry) for entry in entries) + "</ol>")
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{_text(title)}</title><style>{_STYLE}</style></head><body>"
        + "".join(body)
        + "</body></html>\n"
    )


def _scores(summary: GameSummary) -> str:
    """One row per finished round: who won it, the points, and everyone's match total after it."""
    if not summary.rounds:
        return "<p>No round finished yet.</p>"
    header = "".join(f"<th>{_text(player)}</th>" for player in summary.players)
    rows = [f"<tr><th>round</th><th>won by</th><th>points</th>{header}</tr>"]
    for number, result in enumerate(summary.rounds, 1):
        totals = "".join(f"<td>{result.scores.get(player, 0)}</td>" for player in summary.players)
        rows.append(
            f"<tr><td>{number}</td><td>{_text(result.winner)}</td><td>{result.points}</td>{totals}</tr>"
        )
    return "<table>" + "".join(rows) + "</table>"


def _entry(entry: TimelineEntry) -> str:
    picture = entry.picture
    image = _image(picture, f"what the camera saw for record {entry.seq}") if picture else ""
    read = ""
    if picture is not None and picture.sighting.confidence is not None:
        read = f" · read with {picture.sighting.confidence:.0%} confidence"
    verdict = "accepted" if entry.ok else f"refused: {entry.reason}"
    penalties = "".join(
        f"<div class=penalty>{_text(p['player'])} +{p['cards']} ({_text(p['reason'])})</div>"
        for p in entry.penalties
    )
    said = f"<div class=said>“{_text(' '.join(entry.sentences))}”</div>" if entry.sentences else ""
    item = (
        f"<li class={entry.kind}>{image}<div><div class=what>{_text(describe(entry.observation))}</div>"
        f"<div class=seq>#{entry.seq} · {_text(entry.recorded_at[11:19])}{read}</div>"
        f"<div class=verdict>{_text(verdict)}</div>{penalties}{said}</div></li>"
    )
    return item + "".join(_unreadable(picture) for picture in entry.unreadable)


def _unreadable(picture: Picture) -> str:
    image = _image(picture, "a card the referee could not read")
    return (
        f"<li class=unreadable>{image}<div><div class=what>card not readable</div>"
        f"<div class=seq>{picture.sighting.t:.1f} s</div>"
        "<div class=said>the referee asked to straighten it</div></div></li>"
    )


def _image(picture: Picture, alt: str) -> str:
    data = base64.b64encode(picture.sighting.jpeg).decode("ascii")
    return f'<img alt="{_text(alt)}" src="data:image/jpeg;base64,{data}">'


def _text(value: str) -> str:
    return html.escape(value, quote=True)
