#!/usr/bin/env python3
"""How often an opening book answered in a match: each game of a match journal replayed
through the engine protocol (`checkers-zero engine`), and at every move of the chosen player
whether the book (`checkers-zero book`'s file) holds the position and the move played is the
book's. Prints, by colour, the games, the book's moves a game, the games it answered in at
all, and the ply of its last answer; with --json, each game's row too.

    python3 bench/book_hits.py --book results/book/checkers-ballots-1m.tsv \\
        results/book/book1m-time1000-vs-alphabeta-classic-time1000-egdb6.jsonl
"""

import argparse
import json
import statistics
import subprocess
from pathlib import Path

from play_speed import standard_ballots


def read_book(path):
    """Position text -> the book's move."""
    book = {}
    for line in Path(path).read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        position, move = line.split("\t")[:2]
        book[position] = move
    return book


def positions(program, games):
    """The position text before every move of each game, through one engine run."""
    fens = standard_ballots()
    script = []
    for g in games:
        start = fens[(g["round"] // 2) % len(fens)]
        for ply in range(len(g["moves"])):
            script += [f"position fen {start} moves {' '.join(g['moves'][:ply])}", "fen"]
    script.append("quit")
    done = subprocess.run(
        [program, "engine"], input="\n".join(script) + "\n",
        capture_output=True, text=True, check=True,
    )
    out = [line[4:] for line in done.stdout.splitlines() if line.startswith("fen ")]
    errors = [line for line in done.stdout.splitlines() if line.startswith("error")]
    if errors:
        raise SystemExit(f"the engine said: {errors[0]}")
    per_game, at = [], 0
    for g in games:
        per_game.append(out[at:at + len(g["moves"])])
        at += len(g["moves"])
    return per_game


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("journal", help="a match journal (`match --journal`)")
    parser.add_argument("--book", required=True, help="the book file the player played with")
    parser.add_argument("--player", choices=["first", "second"], default="first",
                        help="the journal's player that had the book (default: first)")
    parser.add_argument("--program", default="target/release/checkers-zero")
    parser.add_argument("--json", help="write each game's row to this file")
    args = parser.parse_args()

    book = read_book(args.book)
    lines = Path(args.journal).read_text().splitlines()
    games = sorted((json.loads(line) for line in lines[1:] if line.strip()),
                   key=lambda g: g["round"])
    games = [g for g in games if "round" in g]
    first = args.player == "first"
    rows = []
    for g, fens in zip(games, positions(args.program, games)):
        # The first player is Black in even rounds; the ballot leaves White to move.
        black = (g["round"] % 2 == 0) == first
        own = 1 if black else 0
        hits = [ply for ply in range(own, len(g["moves"]), 2)
                if book.get(fens[ply]) == g["moves"][ply]]
        rows.append({"round": g["round"], "colour": "Black" if black else "White",
                     "book_moves": len(hits), "last_ply": max(hits) + 1 if hits else 0})
    print("colour games book-moves-a-game games-answered median-last-ply")
    for colour in ("Black", "White"):
        mine = [r for r in rows if r["colour"] == colour]
        if not mine:
            continue
        answered = [r for r in mine if r["book_moves"]]
        last = statistics.median(r["last_ply"] for r in answered) if answered else 0
        print(f"{colour:6} {len(mine):5} {statistics.mean(r['book_moves'] for r in mine):16.2f} "
              f"{len(answered):14} {last:15}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
