#!/usr/bin/env python3
"""Two checkers matches over the same rounds, side by side: PLAYER's result in each round of
both, how the results moved, and the difference in score with a 95% interval from the
per-round differences.

    python3 bench/paired.py BEFORE.jsonl AFTER.jsonl [--player az] [--program PATH]

A round is the same ballot with the same colours in both matches when they share openings,
seed and number of games (checked from the journals' headers), so pairing the rounds takes
out what the openings and colours add to the noise of comparing two separate scores. Games
are not replayed move for move: a round's two games share only their start. A game the
journal holds without an adjudication is replayed through `checkers-zero engine` for its
result, as bench/where_lost.py does. Python 3 standard library only.
"""

import argparse
import math
import sys

sys.dont_write_bytecode = True
from where_lost import ROOT, Engine, openings, read_journal, winner  # noqa: E402

POINTS = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def results(engine, path, player):
    """The journal's header and PLAYER's result (win, draw or loss) by round."""
    header, games, first = read_journal(path, "checkers", player)
    starts = openings(header["openings"])
    out = {}
    for g in games:
        r = g["round"]
        # The first agent plays Black in even rounds.
        mine = "black" if (r % 2 == 0) == first else "white"
        # The journal's moves follow the ballot's; a replay needs both.
        moves = starts[(r // 2) % len(starts)][1] + g["moves"]
        result = winner(engine, moves, g.get("adjudicated"))
        out[r] = "draw" if result == "draw" else "win" if result == mine else "loss"
    return header, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--player", default="az", help="the agent kind whose results to compare")
    ap.add_argument("--program", default=str(ROOT / "target/release/checkers-zero"))
    a = ap.parse_args()

    engine = Engine(a.program)
    h1, before = results(engine, a.before, a.player)
    h2, after = results(engine, a.after, a.player)
    for key in ("openings", "seed", "games"):
        if h1.get(key) != h2.get(key):
            sys.exit(f"the journals differ in {key}: {h1.get(key)} and {h2.get(key)}")
    rounds = sorted(set(before) & set(after))
    if len(rounds) < 2:
        sys.exit(f"expected at least 2 rounds played in both journals, found {len(rounds)}")

    print(f"before: {h1['first']} against {h1['second']}")
    print(f"after:  {h2['first']} against {h2['second']}")
    print(f"{len(rounds)} rounds in both")
    for name, res in (("before", before), ("after", after)):
        mean = sum(POINTS[res[r]] for r in rounds) / len(rounds)
        counts = " ".join(
            f"{k[0].upper()}{sum(res[r] == k for r in rounds)}" for k in ("win", "draw", "loss")
        )
        print(f"{name:7} {counts}  score {100 * mean:.1f}%")
    print("\nbefore \\ after   win  draw  loss")
    for b in ("win", "draw", "loss"):
        row = [sum(before[r] == b and after[r] == x for r in rounds) for x in ("win", "draw", "loss")]
        print(f"{b:14} {row[0]:5} {row[1]:5} {row[2]:5}")
    diffs = [POINTS[after[r]] - POINTS[before[r]] for r in rounds]
    mean = sum(diffs) / len(diffs)
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))
    half = 1.96 * sd / math.sqrt(len(diffs))
    print(
        f"\nafter - before: {100 * mean:+.1f} points a game "
        f"(95% CI {100 * (mean - half):+.1f} to {100 * (mean + half):+.1f})"
    )


if __name__ == "__main__":
    main()
