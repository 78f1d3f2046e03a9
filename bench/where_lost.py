#!/usr/bin/env python3
"""Where a player lost a checkers match: for each game of a match journal that PLAYER lost,
the first of its moves at which alpha-beta (by default the classic evaluation at depth 9)
already scores its side SWING men or more down, with the pieces then on the board.

    python3 bench/where_lost.py JOURNAL [--player az] [--program PATH]
        [--judge alphabeta:eval=classic,depth=9] [--swing 1.5]

It replays each game through `checkers-zero engine` (the line protocol, docs/engine.md), so
it needs nothing but the program. A loss whose side was never that far down is listed as
"never". Python 3 standard library only.
"""

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BALLOTS = ROOT / "data" / "three_move_ballots.tsv"


def openings(kind):
    """The journal's openings, in the match's order, as move lists from the start."""
    if kind == "None":
        return [[]]
    rows = [
        line.rstrip("\n").split("\t")
        for line in BALLOTS.read_text().splitlines()
        if line and not line.startswith("#") and not line.startswith("id\t")
    ]
    # The table writes squares with a leading zero (09-13); the engine reads 9-13.
    moves = [
        ["-".join(str(int(sq)) for sq in mv.split("-")) for mv in r[1].split()]
        for r in rows
        if kind == "All" or r[2] == "standard"
    ]
    return moves


class Engine:
    def __init__(self, program):
        self.p = subprocess.Popen(
            [program, "engine"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def send(self, line, until):
        """Sends one command; the reply's lines up to the one starting `until` or an error."""
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = []
        while True:
            reply = self.p.stdout.readline()
            if not reply:
                sys.exit(f"the engine ended after {line!r}: {out}")
            out.append(reply.strip())
            if reply.startswith(until) or reply.startswith("error"):
                return out

    def position(self, moves):
        reply = self.send("position startpos moves " + " ".join(moves), "ok")[-1]
        if reply != "ok":
            sys.exit(f"the journal's moves do not replay: {reply}")


def winner(engine, moves, adjudicated):
    """black, white or draw: the journal's adjudication, else the finished game's result."""
    if adjudicated is not None:
        return adjudicated
    engine.position(moves)
    reply = engine.send("go depth 1", "bestmove")[-1]
    if "draw" in reply:
        return "draw"
    if "Black wins" in reply:
        return "black"
    if "White wins" in reply:
        return "white"
    sys.exit(f"the game has no result: {reply}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("journal")
    ap.add_argument("--player", default="az", help="the agent kind whose losses to read")
    ap.add_argument("--program", default=str(ROOT / "target/release/checkers-zero"))
    ap.add_argument("--judge", default="alphabeta:eval=classic,depth=9")
    ap.add_argument("--swing", type=float, default=1.5, help="men down that count as lost")
    a = ap.parse_args()

    lines = Path(a.journal).read_text().splitlines()
    header, games = json.loads(lines[0]), [json.loads(x) for x in lines[1:] if x]
    if header.get("game") != "checkers":
        sys.exit("expected a checkers match journal")
    first = header["first"].split(":")[0] == a.player
    if not first and header["second"].split(":")[0] != a.player:
        sys.exit(f"neither side of {a.journal} is {a.player!r}")
    starts = openings(header["openings"])
    engine = Engine(a.program)
    engine.send(f"setoption name agent value {a.judge}", "ok")

    lost, pieces = 0, []
    print("round plies  ply pieces value")
    for g in games:
        r = g["round"]
        moves = starts[(r // 2) % len(starts)] + g["moves"]
        # The first agent plays Black in even rounds.
        black = (r % 2 == 0) == first
        if winner(engine, moves, g.get("adjudicated")) != ("white" if black else "black"):
            continue
        lost += 1
        found = None
        for ply in range(0 if black else 1, len(moves) + 1, 2):
            engine.position(moves[:ply])
            infos = [x for x in engine.send("go", "bestmove") if x.startswith("info")]
            if not infos:
                continue  # a forced move or a finished game: no search to read
            info = infos[-1].split()
            if "value" not in info:
                continue
            value = float(info[info.index("value") + 1])
            if value <= -a.swing:
                fen = engine.send("fen", "fen")[-1]
                n = sum(len(side.split(",")) for side in fen.split(":")[1:] if side[1:])
                found = (ply, n, value)
                break
        if found:
            pieces.append(found[1])
            print(f"{r:5} {len(moves):5} {found[0]:4} {found[1]:6} {found[2]:+.2f}")
        else:
            print(f"{r:5} {len(moves):5} never")
    print(f"{a.player} lost {lost} of {len(games)} games")
    if pieces:
        print(
            f"first {a.swing} men down: {len(pieces)} games, pieces on the board "
            f"{min(pieces)}-{max(pieces)} (median {statistics.median(pieces):g}), "
            f"{sum(p >= 9 for p in pieces)} with 9 or more"
        )


if __name__ == "__main__":
    main()
