"""What the live scoreboard costs the referee: ``python -m referee.lab.scoreboard_bench [--pages 20]``.

The scoreboard server runs in this process exactly as ``run --web`` runs it; the pages are
server-sent-event readers in a second process, so that their own work is not counted. For
``--seconds`` a verdict is published every ``--every`` seconds (a brisk game); the bench reports
this process's CPU time over that window as a share of one core, and how long each verdict took
from being published (right after it is spoken) to arriving at every page.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from referee.table.scoreboard import Scoreboard, ScoreboardServer
from referee.table.stream import Moment

#: The pages: one thread each, reading ``/events`` and noting when each version arrived.
CLIENTS = r"""
import http.client, json, sys, threading, time
port, pages, until = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
arrivals = [dict() for _ in range(pages)]
def page(number):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/events")
    response = connection.getresponse()
    while time.time() < until:
        line = response.fp.readline()
        if not line:
            return
        if line.startswith(b"data: "):
            arrivals[number][json.loads(line[6:])["version"]] = time.time()
threads = [threading.Thread(target=page, args=(n,), daemon=True) for n in range(pages)]
for thread in threads: thread.start()
print("ready", flush=True)
for thread in threads: thread.join(max(0.0, until - time.time()) + 2)
print(json.dumps(arrivals))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--every", type=float, default=2.0, help="seconds between verdicts")
    args = parser.parse_args(argv)
    players = ("Anna", "Ben", "Clara", "David")
    server = ScoreboardServer(Scoreboard(players), "127.0.0.1", 0).start()
    port = server.server_address[1]
    until = time.time() + args.seconds + 3.0
    clients = subprocess.Popen(
        [sys.executable, "-c", CLIENTS, str(port), str(args.pages), str(until)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert clients.stdout is not None
    clients.stdout.readline()  # "ready"
    time.sleep(1.0)  # every page connected and sent the first state
    published: dict[int, float] = {}
    cpu_start, wall_start = time.process_time(), time.monotonic()
    turn = 0
    while time.monotonic() - wall_start < args.seconds:
        turn += 1
        fields = {
            "ok": True, "turn": players[turn % 4], "colour": "red", "direction": "clockwise",
            "waiting_for": "play", "top": f"red-{turn % 10}", "counts": dict.fromkeys(players, 7),
            "pending_draw": 0, "scores": dict.fromkeys(players, 0), "said": [f"{players[turn % 4]}'s turn."],
        }  # fmt: skip
        server.board.emit(Moment(float(turn), turn), "verdict", fields)
        published[server.board.snapshot()["version"]] = time.time()
        time.sleep(args.every)
    cpu = time.process_time() - cpu_start
    wall = time.monotonic() - wall_start
    arrivals = json.loads(clients.communicate()[0].splitlines()[-1])
    server.close()
    delays = sorted(
        page[str(version)] - sent
        for page in arrivals
        for version, sent in published.items()
        if str(version) in page
    )
    missing = len(published) * args.pages - len(delays)
    median, longest = 1000 * delays[len(delays) // 2], 1000 * delays[-1]
    print(
        f"{args.pages} pages, {len(published)} verdicts in {wall:.0f} s: referee process CPU {cpu:.3f} s = "
        f"{100 * cpu / wall:.2f} % of one core; verdict to page: median {median:.1f} ms, "
        f"max {longest:.1f} ms; {missing} not delivered"
    )
    return 0 if missing == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
