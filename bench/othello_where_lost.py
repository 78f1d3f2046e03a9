#!/usr/bin/env python3
"""Where a player loses an Othello match: every game of a match journal that PLAYER lost,
and every draw it had been winning, judged move by move and sorted by where it turned.

    python3 bench/othello_where_lost.py JOURNAL [--player az] [--program PATH]
        [--judge alphabeta:eval=patterns] [--depth 10] [--swing 10] [--json FILE]

The Othello counterpart of where_lost.py, with its Engine: it replays each such game through
`checkers-zero engine --game othello` and has the judge (a fixed-depth search, `go depth
DEPTH`) score each of the player's positions after the opening, in discs for the player's
side (the pattern evaluation is fitted to final disc differences; from the exact solver's
empties on, agents play and judge exactly). A loss turns at the first of the player's moves
judged SWING discs or more down, or at the one of the two moves it chose before it after
which the score fell the most; a draw counts where the player was once SWING up, at the last
such position. Each game gets one class by the empty squares at its turn:

    opening                   the turn within the player's first 8 moves after the opening
    middle game               31 or more empties
    late middle game          21 to 30 empties
    before the solver         17 to 20 empties (the exact solver takes over at 16)
    seen only by the solver   judged less than SWING down until the exact solver, from its
                              empties on, proved the loss: lost somewhere before, unseen
    in the solver             16 or fewer (the player plays exactly there: a judge's error)
    never behind              a loss never judged SWING down
    won position drawn        a draw the player had been SWING or more up in

Python 3 standard library only.
"""

import json
import statistics
import sys
import time
from pathlib import Path

from where_lost import Engine, arguments, player_turns, read_journal

# The arena's Othello openings: every position after this many plies, one per class of
# positions the board's symmetries map onto each other (src/arena/openings.rs).
OPENING_PLIES = 4
# A turn within this many of the player's moves after the opening is the opening's.
OPENING_MOVES = 8
# Empties from which the agents' exact solver plays (endgame::othello::DEFAULT_EMPTIES).
SOLVER_EMPTIES = 16
# Scores at least this large are the judge's proofs (a won or lost position it solved).
PROOF = 900

CLASSES = [
    "opening",
    "middle game",
    "late middle game",
    "before the solver",
    "seen only by the solver",
    "in the solver",
    "never behind",
    "won position drawn",
]


def symmetries(board):
    """The 8 images of a 64-square board string (a1..h1, a2..h2, ...) under the square's
    rotations and reflections."""
    out = []
    for swap in (False, True):
        for flip_file in (False, True):
            for flip_rank in (False, True):
                img = []
                for sq in range(64):
                    f, r = sq % 8, sq // 8
                    if swap:
                        f, r = r, f
                    if flip_file:
                        f = 7 - f
                    if flip_rank:
                        r = 7 - r
                    img.append(board[r * 8 + f])
                out.append("".join(img))
    return out


def openings(engine):
    """The arena's openings, in its order: a depth-first walk in move order to the fourth
    ply, keeping the first sequence of each class of symmetric positions."""
    seen, out = set(), []

    def walk(moves):
        engine.position(moves)
        if len(moves) == OPENING_PLIES:
            fen = engine.send("fen", "fen")[-1].split()
            canonical = min(symmetries(fen[1])) + fen[2]
            if canonical not in seen:
                seen.add(canonical)
                out.append(moves)
            return
        for mv in engine.legal():
            walk(moves + [mv])

    walk([])
    return out


def board(engine):
    """The current position's squares and side to move."""
    _, squares, side = engine.send("fen", "fen")[-1].split()
    return squares, side


def positions(engine, moves, start, black, depth, judging):
    """Each of the player's positions after the opening: its move number, ply, empties,
    legal moves and, while `judging` says so, the judge's score in discs."""
    points, going = [], judging is not None
    for number, ply, legal in player_turns(engine, moves, start, black):
        squares, _ = board(engine)
        p = {"move": number, "ply": ply, "empties": squares.count("-"), "legal": len(legal),
             "value": None}
        if going:
            infos = [x for x in engine.send(f"go depth {depth}", "bestmove")
                     if x.startswith("info") and " value " in x]
            if infos:
                info = infos[-1].split()
                p["value"] = float(info[info.index("value") + 1])
            going = judging([q for q in points + [p] if q["value"] is not None])
        points.append(p)
    return points


def stage(empties, move):
    if move <= OPENING_MOVES:
        return "opening"
    if empties > 30:
        return "middle game"
    if empties > 20:
        return "late middle game"
    if empties > SOLVER_EMPTIES:
        return "before the solver"
    return "in the solver"


def classify_loss(points, swing):
    judged = [p for p in points if p["value"] is not None]
    down = next((i for i, p in enumerate(judged) if p["value"] <= -swing), None)
    if down is None:
        low = min(judged, key=lambda p: p["value"], default=None)
        return {"class": "never behind", "move": low and low["move"],
                "empties": low and low["empties"], "before": low and low["value"],
                "after": None}
    # The two moves chosen (a forced move or a pass is no choice) before the first move
    # SWING down: the steepest fall from one to the next is the turn.
    window = [p for p in judged[:down] if p["legal"] > 1][-2:] + [judged[down]]
    turn = 0
    for i in range(1, len(window) - 1):
        if window[i]["value"] - window[i + 1]["value"] > (
            window[turn]["value"] - window[turn + 1]["value"]
        ):
            turn = i
    t = window[turn]
    after = window[turn + 1] if turn + 1 < len(window) else None
    # A proof (the judge writes a solved loss as -1000) after a score above -SWING: the depth
    # search never saw this loss coming, so the fall into it says nothing of where it turned.
    unseen = after is not None and after["value"] <= -PROOF and t["value"] > -swing
    return {"class": "seen only by the solver" if unseen else stage(t["empties"], t["move"]),
            "move": t["move"],
            "empties": t["empties"], "before": t["value"], "after": after and after["value"]}


def classify_draw(points, swing):
    judged = [p for p in points if p["value"] is not None]
    ahead = [i for i, p in enumerate(judged) if p["value"] >= swing]
    if not ahead:
        return None
    t = judged[ahead[-1]]
    after = judged[ahead[-1] + 1] if ahead[-1] + 1 < len(judged) else None
    return {"class": "won position drawn", "move": t["move"], "empties": t["empties"],
            "before": t["value"], "after": after and after["value"]}


def main():
    started = time.monotonic()
    ap = arguments(__doc__)
    ap.add_argument("--judge", default="alphabeta:eval=patterns",
                    help="the agent that scores the positions")
    ap.add_argument("--depth", type=int, default=10, help="the judge's search depth")
    ap.add_argument("--swing", type=float, default=10, help="discs down (or up) that count")
    a = ap.parse_args()

    header, games, first = read_journal(a.journal, "othello", a.player)
    engine = Engine(a.program, "othello")
    starts = openings(engine) if header["openings"] != "None" else [[]]
    engine.send(f"setoption name agent value {a.judge}", "ok")

    rows, score, margins = [], {"win": 0, "draw": 0, "loss": 0}, []
    for g in games:
        r = g["round"]
        start = starts[(r // 2) % len(starts)]
        moves = start + g["moves"]
        black = (r % 2 == 0) == first  # the first agent plays Black in even rounds
        engine.position(moves)
        squares, _ = board(engine)
        mine, theirs = ("X", "O") if black else ("O", "X")
        margin = squares.count(mine) - squares.count(theirs)
        result = "win" if margin > 0 else "loss" if margin < 0 else "draw"
        score[result] += 1
        if result == "win":
            continue
        swing = a.swing
        judging = ((lambda ps: all(p["value"] > -swing for p in ps)) if result == "loss"
                   else (lambda ps: True))
        points = positions(engine, moves, len(start), black, a.depth, judging)
        turn = (classify_loss if result == "loss" else classify_draw)(points, swing)
        print(f"game {r}: {result} by {-margin}, {turn['class'] if turn else 'level draw'}",
              file=sys.stderr)
        if turn is None:
            continue
        margins.append(margin)
        rows.append({"round": r, "opening": " ".join(start),
                     "colour": "Black" if black else "White", "result": result,
                     "margin": margin, "plies": len(moves), **turn,
                     "scores": [[p["move"], p["empties"], p["value"]] for p in points
                                if p["value"] is not None]})

    print(f"{a.journal}: {a.player} ({'first' if first else 'second'}) "
          f"+{score['win']} ={score['draw']} -{score['loss']}; judge {a.judge} depth "
          f"{a.depth}, swing {a.swing} discs")
    print()
    print(f"{'class':20} {'Black':>5} {'White':>5} {'all':>4} {'median empties':>14} "
          f"{'median final margin':>19}")
    data = []
    for c in CLASSES:
        these = [x for x in rows if x["class"] == c]
        b = sum(x["colour"] == "Black" for x in these)
        emp = [x["empties"] for x in these if x["empties"] is not None]
        med = statistics.median(emp) if emp else None
        mar = statistics.median([x["margin"] for x in these]) if these else None
        data.append({"class": c, "Black": b, "White": len(these) - b, "all": len(these),
                     "median_empties": med, "median_margin": mar})
        print(f"{c:20} {b:5} {len(these) - b:5} {len(these):4} "
              f"{'-' if med is None else format(med, 'g'):>14} "
              f"{'-' if mar is None else format(mar, '+g'):>19}")
    b = sum(x["colour"] == "Black" for x in rows)
    print(f"{'all':20} {b:5} {len(rows) - b:5} {len(rows):4}")
    print()
    print("round colour result margin class                move empties before  after")
    for x in sorted(rows, key=lambda x: x["round"]):
        fmt = lambda v: "-" if v is None else f"{v:+.1f}"  # noqa: E731
        print(f"{x['round']:5} {x['colour']:6} {x['result']:6} {x['margin']:+6} "
              f"{x['class']:20} {x['move'] or '-':>4} {x['empties'] or '-':>7} "
              f"{fmt(x['before']):>6} {fmt(x['after']):>6}")
    wall = time.monotonic() - started
    print(f"wall time {wall:.0f} s")
    if a.json:
        Path(a.json).write_text(json.dumps({
            "journal": a.journal, "player": a.player, "judge": a.judge, "depth": a.depth,
            "swing": a.swing, "score": score, "table": data, "games": rows,
            "wall_s": round(wall)}, indent=1) + "\n")


if __name__ == "__main__":
    main()
