"""The live scoreboard: a read-only web page for the phones at the table, updated by server-sent events.

``run --web [HOST:]PORT`` (or ``[web] listen``) serves:

* ``/`` — the page (inline styles and a few lines of script; nothing fetched from elsewhere);
* ``/state`` — the latest state as JSON;
* ``/events`` — server-sent events: the state now, then each change as it happens. The browser's
  ``EventSource`` reconnects by itself, so a page left open picks up again after the referee
  restarts;
* ``/top.jpg`` — the picture of the top card, as the journal kept it.

Why the standard library (``http.server`` with one thread per connection) and not a web framework:
the page has a handful of readers on the local network, every request is a GET, and the Pi gains
no dependency to install, update or audit. Each open page holds one thread that sleeps on a
condition until the state changes (no polling), so 20 pages cost next to nothing (measured with
``python -m referee.lab.scoreboard_bench``; docs/events.md). The server binds to localhost
unless told a host, and answers every method but GET and HEAD with 405: it accepts no input that
could change the game.

The scoreboard is an :class:`~referee.table.stream.EventSink`: it learns the state from the
verdict events the referee app emits anyway.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Mapping
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from referee.errors import UserError
from referee.table.stream import Moment

#: Seconds between keep-alive comments on an idle event stream (proxies and phones drop silent ones).
KEEP_ALIVE_S = 15.0
#: What the browser waits before reconnecting after the referee went away (milliseconds).
RETRY_MS = 1000


class Scoreboard:
    """The latest state for the page, and a condition that wakes every open page when it changes."""

    def __init__(self, players: tuple[str, ...] = (), journal_path: Path | None = None, game_id: int = 0):
        self.journal_path = journal_path
        self.game_id = game_id
        self._changed = threading.Condition()
        self._version = 0
        self._state: dict[str, Any] = {"players": list(players), "game": game_id, "said": [], "version": 0}
        self._closed = False

    # --- EventSink ------------------------------------------------------------------------------

    def emit(self, moment: Moment, event: str, fields: Mapping[str, Any] | None = None) -> None:
        fields = fields or {}
        if event == "verdict":
            keys = ("turn", "colour", "direction", "waiting_for", "top", "counts", "pending_draw", "scores")
            update = {key: fields.get(key) for key in keys}
            update["said"] = list(fields.get("said") or []) or self._state.get("said", [])
            update["ok"] = fields.get("ok")
            update["t"] = moment.t
            self._publish(update)
        elif event == "message" and fields.get("spoken"):
            self._publish({"said": [fields.get("text", "")], "t": moment.t})

    def close(self) -> None:
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    # --- for the server -------------------------------------------------------------------------

    def _publish(self, update: Mapping[str, Any]) -> None:
        with self._changed:
            self._version += 1
            self._state = {**self._state, **update, "version": self._version}
            self._changed.notify_all()

    def snapshot(self) -> dict[str, Any]:
        with self._changed:
            return dict(self._state)

    def wait_for_change(self, seen: int, timeout: float) -> dict[str, Any] | None:
        """The state once its version is past ``seen`` (None after ``timeout`` or when closing)."""
        with self._changed:
            self._changed.wait_for(lambda: self._version > seen or self._closed, timeout)
            if self._closed or self._version <= seen:
                return None
            return dict(self._state)

    @property
    def closed(self) -> bool:
        return self._closed

    def top_picture(self) -> bytes | None:
        """The JPEG the journal kept of the newest accepted card of this game (read-only connection)."""
        if self.journal_path is None or not self.journal_path.exists():
            return None
        try:
            with sqlite3.connect(f"file:{self.journal_path}?mode=ro", uri=True, timeout=2.0) as db:
                row = db.execute(
                    "SELECT p.jpeg FROM pictures p JOIN observations o"
                    " ON o.game_id = p.game_id AND o.seq = p.observation_seq"
                    " WHERE p.game_id = ? AND p.kind = 'landed' AND o.replay ORDER BY p.id DESC LIMIT 1",
                    (self.game_id,),
                ).fetchone()
        except sqlite3.Error:
            return None
        return bytes(row[0]) if row else None


def parse_listen(text: str) -> tuple[str, int]:
    """``PORT`` or ``HOST:PORT`` → (host, port); localhost unless a host is given.

    >>> parse_listen("8080"), parse_listen("0.0.0.0:8000")
    (('127.0.0.1', 8080), ('0.0.0.0', 8000))
    """
    host, _, port = text.strip().rpartition(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise UserError(f"--web takes [HOST:]PORT like 8080 or 0.0.0.0:8080, got {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


class _Handler(BaseHTTPRequestHandler):
    server: ScoreboardServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the console is for the referee's sentences."""

    def do_HEAD(self) -> None:
        self.do_GET(head=True)

    def do_GET(self, head: bool = False) -> None:
        path = self.path.split("?", 1)[0]
        board = self.server.board
        if path == "/":
            self._send(HTTPStatus.OK, "text/html; charset=utf-8", PAGE.encode("utf-8"), head)
        elif path == "/state":
            self._send(HTTPStatus.OK, "application/json", json.dumps(board.snapshot()).encode(), head)
        elif path == "/top.jpg":
            picture = board.top_picture()
            if picture is None:
                self._send(HTTPStatus.NOT_FOUND, "text/plain", b"no picture yet\n", head)
            else:
                self._send(HTTPStatus.OK, "image/jpeg", picture, head)
        elif path == "/events" and not head:
            self._stream_events()
        else:
            self._send(HTTPStatus.NOT_FOUND, "text/plain", b"not found\n", head)

    def _refuse(self) -> None:
        self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
        self.send_header("Allow", "GET, HEAD")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse

    def _send(self, status: HTTPStatus, kind: str, body: bytes, head: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _stream_events(self) -> None:
        board = self.server.board
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        state = board.snapshot()
        try:
            self.wfile.write(f"retry: {RETRY_MS}\n".encode() + _event(state))
            self.wfile.flush()
            while not board.closed:
                changed = board.wait_for_change(state["version"], KEEP_ALIVE_S)
                if changed is None:
                    self.wfile.write(b": still here\n\n")
                else:
                    state = changed
                    self.wfile.write(_event(state))
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            return  # the page was closed


def _event(state: Mapping[str, Any]) -> bytes:
    return f"data: {json.dumps(state, ensure_ascii=False)}\n\n".encode()


class ScoreboardServer(ThreadingHTTPServer):
    """The HTTP server on its own daemon thread; :meth:`close` stops it and ends every open stream."""

    daemon_threads = True

    def __init__(self, board: Scoreboard, host: str = "127.0.0.1", port: int = 8080) -> None:
        self.board = board
        try:
            super().__init__((host, port), _Handler)
        except OSError as error:
            raise UserError(
                f"cannot serve the scoreboard on {host}:{port} ({error.strerror}): pick another --web port"
            ) from None
        self._thread = threading.Thread(target=self.serve_forever, name="scoreboard", daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}/"

    def start(self) -> ScoreboardServer:
        self._thread.start()
        return self

    def close(self) -> None:
        self.board.close()
        self.shutdown()
        self.server_close()


PAGE = """<!doctype html><html lang=en><head><meta charset=utf-8>
<meta name=viewport content="width=device-width,initial-scale=1"><title>UNO referee</title>
<style>
body{font:18px/1.35 system-ui,sans-serif;margin:0;padding:12px;background:#1b5e20;color:#fff}
.box{background:rgba(0,0,0,.25);border-radius:8px;padding:10px;margin:0 0 10px}
#top{display:flex;gap:12px;align-items:center}#top img{width:45%;max-width:260px;border-radius:6px}
.big{font-size:1.6em;font-weight:700}.dim{opacity:.75}table{width:100%;border-collapse:collapse}
td{padding:3px 4px;border-bottom:1px solid rgba(255,255,255,.2)}td.n{text-align:right}
tr.turn td{font-weight:700;color:#ffeb3b}#said{font-style:italic}#link.down{color:#ff8a80}
</style></head><body>
<div class="box" id="top"><img id="card" alt="the top card" style="visibility:hidden"
 onerror="this.style.visibility='hidden'" onload="this.style.visibility='visible'"><div>
<div class="dim">top card</div><div class="big" id="topname">-</div>
<div>colour to play: <b id="colour">-</b></div><div>direction: <b id="direction">-</b></div>
<div>pending draws: <b id="pending">0</b></div></div></div>
<div class="box"><div class="dim">turn</div><div class="big" id="turn">-</div>
<div id="said"></div></div>
<div class="box"><table id="players"></table></div>
<div class="dim" id="link">connecting…</div>
<script>
const $ = (id) => document.getElementById(id);
let shownTop = null;
function show(s) {
  $("topname").textContent = s.top || "-";
  $("colour").textContent = s.colour || "-";
  $("direction").textContent = s.direction || "-";
  $("pending").textContent = s.pending_draw || 0;
  $("turn").textContent = s.turn || (s.waiting_for ? "waiting for " + s.waiting_for : "-");
  $("said").textContent = (s.said || []).join(" ");
  if (s.top !== shownTop) { shownTop = s.top; $("card").src = "top.jpg?v=" + s.version; }
  const rows = (s.players || []).map((p) => {
    const count = s.counts ? s.counts[p] : "", score = s.scores ? s.scores[p] : "";
    const cards = count + (count === 1 ? " card" : " cards");
    const tr = document.createElement("tr");
    if (p === s.turn) tr.className = "turn";
    for (const [text, cls] of [[p, ""], [cards, "n"], [score + " pts", "n"]]) {
      const td = document.createElement("td"); td.textContent = text; td.className = cls; tr.append(td);
    }
    return tr;
  });
  $("players").replaceChildren(...rows);
}
const events = new EventSource("events");
function link(text, cls) { $("link").textContent = text; $("link").className = cls; }
events.onmessage = (e) => { show(JSON.parse(e.data)); link("live", ""); };
events.onerror = () => link("referee away - reconnecting…", "down");
</script></body></html>
"""
