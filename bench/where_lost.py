#!/usr/bin/env python3
"""Where a player loses a checkers match: every game of a match journal that PLAYER lost,
and every draw it had been winning, judged move by move and sorted by where it turned.

    python3 bench/where_lost.py JOURNAL [--player az] [--program PATH]
        [--judge alphabeta:eval=classic,depth=9] [--swing 1.5] [--json FILE]
        [--check alphabeta:depth=10,egdb=none [--check-every]]

It replays each such game through `checkers-zero engine` (the line protocol, docs/engine.md),
so it needs nothing but the program, and has the judge score each of the player's positions
after the ballot (in men, for the player's side). For a loss it finds the first of the
player's moves at which its side is judged SWING men or more down, and the move within the
two it chose before it (a forced capture sequence counts as one fall) where the score fell
the most: the turn. A draw counts where the player was once judged SWING men or more up (a
won position drawn); its turn is the last such position. The pieces a game is counted with
are those on the board at its turn (for a loss never that far down, at its end). Each game
gets one class:

    opening                     the turn within the player's first 8 moves after the ballot
    middle-game tactic          11 or more pieces, the score fell SWING or more in two moves
    middle game, slow           11 or more pieces, a gradual fall
    ending beyond the databases 7 to 10 pieces (the 6-piece databases do not see it yet)
    ending in the databases     6 or fewer pieces
    never behind                a loss never judged SWING down (time, a late blunder, or
                                a database loss the judge's search does not see)
    won position drawn          a draw the player had been SWING or more up in

It prints a table of the classes by the player's colour with the median pieces at the turn,
then one line a game. The journal holds each side's thinking time per game, not per move,
so the time a game's turn had cannot be read; each line gives instead the player's mean
time per searched move (forced moves and positions of 6 pieces or fewer, which the databases
answer at once where won or lost, are not counted) against its `time=`: near 100% the game
used its whole allowance (managed time spends what it banked before the databases take
over, so a game that ends in them comes close by design). --json writes the table and every
game, with the judge's score at each of the player's moves. --check SPEC asks, of every
game's turning move, whether `az`'s tactical check (`check=D`: src/agents/check.rs) would
have passed it over: SPEC, an alpha-beta, values every legal move there, and a move more than
a man below the best fails. --check-every asks the same of every move the player chose (two
or more legal moves) in every game, won games too, and counts those the check would have
passed over by the game's result: what the check would change where the network was right.
Python 3 standard library only.
"""

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BALLOTS = ROOT / "data" / "three_move_ballots.tsv"

# A turn within this many of the player's moves after the ballot is the opening's.
OPENING_MOVES = 8
# With this many pieces or more the game is still a middle game.
MIDDLE_PIECES = 11
# The endgame databases the match played with hold positions of this many pieces or fewer.
DATABASE_PIECES = 6

CLASSES = [
    "opening",
    "middle-game tactic",
    "middle game, slow",
    "ending beyond the databases",
    "ending in the databases",
    "never behind",
    "won position drawn",
]


def openings(kind):
    """The journal's openings, in the match's order, as (id, move list from the start)."""
    if kind == "None":
        return [("-", [])]
    rows = [
        line.rstrip("\n").split("\t")
        for line in BALLOTS.read_text().splitlines()
        if line and not line.startswith("#") and not line.startswith("id\t")
    ]
    # The table writes squares with a leading zero (09-13); the engine reads 9-13.
    return [
        (r[0], ["-".join(str(int(sq)) for sq in mv.split("-")) for mv in r[1].split()])
        for r in rows
        if kind == "All" or r[2] == "standard"
    ]


class Engine:
    def __init__(self, program, game="checkers"):
        self.p = subprocess.Popen(
            [program, "engine", "--game", game],
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

    def legal(self):
        return self.send("legal", "legal")[-1].split()[1:]

    def pieces(self):
        """The pieces on the board, from the FEN (whose squares may be ranges, `K` a king)."""
        fen = self.send("fen", "fen")[-1].split(None, 1)[1]
        n = 0
        for side in fen.split(":")[1:]:
            for item in side[1:].split(","):
                m = re.fullmatch(r"K?(\d+)(?:-K?(\d+))?", item.strip())
                if m:
                    n += int(m.group(2)) - int(m.group(1)) + 1 if m.group(2) else 1
        return n

    def values(self):
        """Every move's value in men from the current search's multipv lines (the deepest
        complete set), by the move's first notation."""
        lines, block = [x.split() for x in self.send("go", "bestmove")], {}
        for info in lines:
            if info[:2] != ["info", "multipv"]:
                continue
            if info[2] == "1":
                block = {}
            block[info[info.index("pv") + 1]] = float(info[info.index("value") + 1])
        return block

    def judge(self):
        """The judge's score for the side to move, in men; None where it does not search."""
        infos = [x for x in self.send("go", "bestmove") if x.startswith("info")]
        if not infos:
            return None
        info = infos[-1].split()
        return float(info[info.index("value") + 1]) if "value" in info else None


def arguments(doc):
    """The parser with the arguments both scripts take: the journal, --player, --program and
    --json; each adds its judge's."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("journal")
    ap.add_argument("--player", default="az", help="the agent kind whose games to read")
    ap.add_argument("--program", default=str(ROOT / "target/release/checkers-zero"))
    ap.add_argument("--json", help="also write the table and every game as JSON here")
    return ap


def read_journal(path, game, player):
    """A match journal's header and games, and whether PLAYER is its first agent; exits
    when the journal is not GAME's or neither agent is PLAYER's kind."""
    lines = Path(path).read_text().splitlines()
    header, games = json.loads(lines[0]), [json.loads(x) for x in lines[1:] if x]
    if header.get("game") != game:
        sys.exit(f"expected a {game} match journal")
    first = header["first"].split(":")[0] == player
    if not first and header["second"].split(":")[0] != player:
        sys.exit(f"neither side of {path} is {player!r}")
    return header, games, first


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


def player_turns(engine, moves, start, black):
    """The player's turns after the opening (`start` plies): its move number, the ply and the
    legal moves, with the engine at that position; none once the game is over."""
    first = start + ((start % 2 == 0) != black)  # Black moves on even plies
    for number, ply in enumerate(range(first, len(moves) + 1, 2), 1):
        engine.position(moves[:ply])
        legal = engine.legal()
        if not legal:
            return
        yield number, ply, legal


def player_positions(engine, moves, start, black, judged):
    """Each of the player's positions after the ballot: its move number, ply, pieces, legal
    moves and, where `judged`, the judge's score. `judged` is
    called with the positions judged so far and says whether to go on judging (a loss stops
    at its swing: what follows does not change where it turned)."""
    points, judging = [], True
    for number, ply, legal in player_turns(engine, moves, start, black):
        p = {"move": number, "ply": ply, "pieces": engine.pieces(), "legal": len(legal)}
        p["value"] = None
        # Forced moves are judged too: the first move SWING down may come inside a capture
        # sequence.
        if judging and judged is not None:
            p["value"] = engine.judge()
            judging = judged([q for q in points + [p] if q["value"] is not None])
        points.append(p)
    return points


def passed_over(checker, moves, ply):
    """Whether the check (an engine set to an alpha-beta with every line) would have passed
    over the move played at `ply`: more than a man below the best checked move, the margin of
    src/agents/check.rs."""
    checker.position(moves[:ply])
    values = checker.values()
    played = values.get(moves[ply])
    return played is not None and played < max(values.values()) - 1.0


def classify_loss(points, swing):
    """A lost game's turn: the first move SWING down and the steepest fall in the two moves
    before it, with its class."""
    judged = [p for p in points if p["value"] is not None]
    down = next((i for i, p in enumerate(judged) if p["value"] <= -swing), None)
    if down is None:
        low = min(judged, key=lambda p: p["value"], default=None)
        last = points[-1] if points else None
        return {
            "class": "never behind",
            "move": low and low["move"],
            "ply": low and low["ply"],
            "pieces": last and last["pieces"],  # at the game's end
            "before": low and low["value"],
            "after": None,
            "down": None,
        }
    # The two moves the player chose (forced ones are no choice) before the first move
    # SWING down: the fall from each to the next, charged to the move chosen there, so a
    # forced capture sequence counts as one fall however many plies it takes. Where the
    # swing comes inside such a sequence, the fall runs to the sequence's end.
    low = min(judged[down:], key=lambda p: p["value"])
    window = [p for p in judged[:down] if p["legal"] > 1][-2:] + [low]
    turn = 0
    for i in range(1, len(window)):
        if window[i - 1]["value"] - window[i]["value"] > (
            window[turn]["value"] - window[turn + 1]["value"]
        ):
            turn = i - 1
    t, after = window[turn], window[turn + 1] if len(window) > 1 else None
    fall = window[0]["value"] - window[-1]["value"]
    if t["move"] <= OPENING_MOVES:
        kind = "opening"
    elif t["pieces"] >= MIDDLE_PIECES:
        kind = "middle-game tactic" if fall >= swing else "middle game, slow"
    elif t["pieces"] > DATABASE_PIECES:
        kind = "ending beyond the databases"
    else:
        kind = "ending in the databases"
    d = judged[down]
    return {
        "class": kind,
        "move": t["move"],
        "ply": t["ply"],
        "pieces": t["pieces"],
        "before": t["value"],
        "after": after and after["value"],
        "fall": fall,
        "down": {"move": d["move"], "ply": d["ply"], "pieces": d["pieces"], "value": d["value"]},
    }


def classify_draw(points, swing):
    """A drawn game the player was once SWING up in: its last position that far up, where
    the win went, and the first (when it got ahead); None for a draw never that far up."""
    judged = [p for p in points if p["value"] is not None]
    ahead = [i for i, p in enumerate(judged) if p["value"] >= swing]
    if not ahead:
        return None
    t, f = judged[ahead[-1]], judged[ahead[0]]
    after = judged[ahead[-1] + 1] if ahead[-1] + 1 < len(judged) else None
    return {
        "class": "won position drawn",
        "move": t["move"],
        "ply": t["ply"],
        "pieces": t["pieces"],
        "before": t["value"],
        "after": after and after["value"],
        "first_ahead": {"move": f["move"], "pieces": f["pieces"], "value": f["value"]},
    }


def spent(points, thinking, index, per_move):
    """The player's thinking per searched move (not forced, not in the databases) and its
    share of a managed `time=` (None: a fixed time, whose moves each take their time or
    less; then the journal's time per move): the journal has each side's time per game only."""
    if not thinking:
        return None
    if not per_move:
        t = thinking[index]
        return {"ms": round(t["ms"] / max(t["moves"], 1)), "share": None, "searched": None}
    searched = sum(p["legal"] > 1 and p["pieces"] > DATABASE_PIECES for p in points)
    ms = thinking[index]["ms"] / max(searched, 1)
    return {"ms": round(ms), "share": ms / per_move, "searched": searched}


def fmt(v):
    """A score in men; a proven result (alpha-beta writes it as 1000 minus the plies) as W/L."""
    if v is None:
        return "-"
    if abs(v) >= 900:
        return ("W" if v > 0 else "L") + str(round(1000 - abs(v)))
    return f"{v:+.2f}"


def table(rows):
    """The classes by colour, with the median pieces at the turn and, under a managed clock,
    the median share of its time the player's searched moves took: printed lines and JSON."""
    out, data = [], []
    out.append(f"{'class':28} {'Black':>5} {'White':>5} {'all':>4} {'median pieces':>13} "
               f"{'median time used':>16}")
    for c in CLASSES:
        games = [r for r in rows if r["class"] == c]
        b = sum(r["colour"] == "Black" for r in games)
        pieces = [r["pieces"] for r in games if r["pieces"] is not None]
        med = statistics.median(pieces) if pieces else None
        shares = [r["time"]["share"] for r in games if r["time"] and r["time"]["share"]]
        used = statistics.median(shares) if shares else None
        data.append({"class": c, "Black": b, "White": len(games) - b, "all": len(games),
                     "median_pieces": med, "median_time_used": used})
        out.append(f"{c:28} {b:5} {len(games) - b:5} {len(games):4} "
                   f"{'-' if med is None else format(med, 'g'):>13} "
                   f"{'-' if used is None else format(used, '.0%'):>16}")
    b = sum(r["colour"] == "Black" for r in rows)
    out.append(f"{'all':28} {b:5} {len(rows) - b:5} {len(rows):4}")
    return out, data


def main():
    started = time.monotonic()
    ap = arguments(__doc__)
    # An agent spec without egdb= finds the databases where `egdb build` put them, so
    # egdb=none keeps a judge the same on every machine.
    ap.add_argument("--judge", default="alphabeta:eval=classic,depth=9",
                    help="the agent that scores the positions (add egdb=none to leave out "
                    "the endgame databases installed)")
    ap.add_argument("--swing", type=float, default=1.5, help="men down (or up) that count")
    ap.add_argument("--check", help="an agent spec (alpha-beta) whose values of every move "
                    "say whether az's check=D would have passed over each turning move")
    ap.add_argument("--check-every", action="store_true",
                    help="with --check: ask it of every move the player chose, by result")
    a = ap.parse_args()

    if a.check_every and not a.check:
        sys.exit("--check-every needs --check SPEC")
    header, games, first = read_journal(a.journal, "checkers", a.player)
    spec = header["first" if first else "second"]
    per_move = re.search(r"[:,]time=(\d+)", spec)
    # Only a managed clock carries time from move to move, so only there can a game run short.
    managed = "spend=managed" in spec
    per_move = int(per_move.group(1)) if per_move and managed else None
    starts = openings(header["openings"])
    engine = Engine(a.program)
    engine.send(f"setoption name agent value {a.judge}", "ok")
    checker = None
    if a.check:
        checker = Engine(a.program)
        checker.send(f"setoption name agent value {a.check}", "ok")
        checker.send("setoption name multipv value 64", "ok")

    rows, score, shares, every_move = [], {"win": 0, "draw": 0, "loss": 0}, [], {}
    for g in games:
        r = g["round"]
        ballot, start = starts[(r // 2) % len(starts)]
        moves = start + g["moves"]
        # The first agent plays Black in even rounds.
        black = (r % 2 == 0) == first
        result = winner(engine, moves, g.get("adjudicated"))
        mine = "black" if black else "white"
        result = "draw" if result == "draw" else "win" if result == mine else "loss"
        score[result] += 1
        swing = a.swing
        if result == "loss":
            # Stop at the swing, or where it comes inside a capture sequence, at the sequence's
            # end: the fall is the whole sequence's.
            judged = lambda ps: ps[-1]["legal"] == 1 or all(  # noqa: E731
                p["value"] > -swing for p in ps
            )
        elif result == "draw":
            judged = lambda ps: True  # noqa: E731 (a draw is read to its end)
        else:
            judged = None  # a win is only read for its thinking time
        points = player_positions(engine, moves, len(start), black, judged)
        engine.position(moves)
        final = engine.send("fen", "fen")[-1].split(None, 1)[1]
        time_used = spent(points, g.get("thinking"), 0 if first else 1, per_move)
        if time_used and time_used["share"] is not None:
            shares.append(time_used["share"])
        if a.check_every:
            chosen = [ply for _, ply, legal in player_turns(checker, moves, len(start), black)
                      if len(legal) >= 2 and ply < len(moves)]
            passed = sum(passed_over(checker, moves, ply) for ply in chosen)
            every = every_move.setdefault(result, {"games": 0, "moves": 0, "passed_over": 0,
                                                   "games_with_one": 0})
            every["games"] += 1
            every["moves"] += len(chosen)
            every["passed_over"] += passed
            every["games_with_one"] += passed > 0
        if result == "win":
            continue
        turn = classify_loss(points, swing) if result == "loss" else classify_draw(points, swing)
        print(f"game {r}: {result}, {turn['class'] if turn else 'level draw'}", file=sys.stderr)
        if turn is None:
            continue
        if checker and turn["ply"] is not None and turn["ply"] < len(moves):
            turn["checked"] = passed_over(checker, moves, turn["ply"])
        rows.append({
            "round": r,
            "ballot": ballot,
            "opening": " ".join(start),
            "colour": "Black" if black else "White",
            "result": result,
            "plies": len(moves),
            # How the game ended: the databases' verdict, a length cap's, or the rules'.
            "end": "db" if g.get("proven") else "cap" if g.get("adjudicated") else "rules",
            "final": final,
            **turn,
            "time": time_used,
            "scores": [[p["move"], p["pieces"], p["value"]] for p in points
                       if p["value"] is not None],
        })

    print(f"{a.journal}: {a.player} ({'first' if first else 'second'}) "
          f"+{score['win']} ={score['draw']} -{score['loss']}; judge {a.judge}, swing {a.swing}")
    draws_ahead = sum(r["result"] == "draw" for r in rows)
    print(f"classified: {score['loss']} losses and {draws_ahead} of {score['draw']} draws "
          f"(those the player was once {a.swing} men up in)")
    print()
    lines_out, data = table(rows)
    print("\n".join(lines_out))
    print()
    print("order by count: " + ", ".join(f"{d['class']} ({d['all']})"
                                        for d in sorted(data, key=lambda d: -d["all"])))
    print()
    print("scores in men for the player's side before and after its turning move; W/L N: "
          "a win or loss the judge sees N plies ahead")
    print("end: db where the endgame databases' result ended the game, cap where a length cap "
          "adjudicated it, rules where it was played out")
    print("game ballot colour result plies end   class                        move  ply pieces "
          "before  after  down/up at (move, pieces)  ms/searched move (share)")
    for r in sorted(rows, key=lambda r: r["round"]):
        # A loss's first move SWING down; a draw's first SWING up.
        d = r.get("down") or r.get("first_ahead")
        t = r["time"]
        print(
            f"{r['round']:4} {r['ballot']:>6} {r['colour']:6} {r['result']:6} {r['plies']:5} "
            f"{r['end']:5} "
            f"{r['class']:28} {r['move'] if r['move'] else '-':>4} "
            f"{r['ply'] if r['ply'] else '-':>4} {r['pieces']:6} {fmt(r['before']):>6} "
            f"{fmt(r['after']):>6}  "
            f"{(str(d['move']) + ', ' + str(d['pieces'])) if d else '-':>25}  "
            + (f"{t['ms']:5} ({t['share']:.0%})" if t and t["share"] is not None
               else f"{t['ms']:5} a move" if t else "-")
        )
    print()
    mine = [r["time"]["share"] for r in rows if r["time"] and r["time"]["share"]]
    if shares and mine:
        print(f"time per searched move, share of time={per_move}: median "
              f"{statistics.median(shares):.0%} over all {len(shares)} games, "
              f"{statistics.median(mine):.0%} over the {len(mine)} classified; "
              f"{sum(s >= 0.95 for s in mine)} of these used 95% or more")
    never = [r for r in rows if r["class"] == "never behind"]
    if never:
        # Without the databases the judge cannot see a database loss that is still level
        # in material: such a game is lost at the databases' edge, not on the clock.
        print(f"never behind: {sum(r['end'] == 'db' for r in never)} of {len(never)} ended at "
              f"a lost database position, the judge having seen at worst "
              f"{fmt(min(r['before'] for r in never if r['before'] is not None))} men")
    downs = [r["down"]["pieces"] for r in rows if r.get("down")]
    if downs:
        # The old summary: where the losses first stood SWING down.
        print(
            f"first {a.swing} men down: {len(downs)} of {score['loss']} losses, pieces on the "
            f"board {min(downs)}-{max(downs)} (median {statistics.median(downs):g}), "
            f"{sum(p >= 9 for p in downs)} with 9 or more"
        )
    if checker:
        for cls in CLASSES:
            these = [r for r in rows if r["class"] == cls and "checked" in r]
            if these:
                print(f"check {a.check}: {cls}: would have passed over {sum(r['checked'] for r in these)} "
                      f"of {len(these)} turning moves")
    for result, e in every_move.items():
        print(f"check {a.check}: every chosen move of the {e['games']} games {result}: would "
              f"have passed over {e['passed_over']} of {e['moves']}, in {e['games_with_one']} games")
    wall = time.monotonic() - started
    print(f"wall time {wall:.0f} s")
    if a.json:
        Path(a.json).write_text(json.dumps({
            "journal": a.journal,
            "player": a.player,
            "judge": a.judge,
            "check": a.check,
            "swing": a.swing,
            "opening_moves": OPENING_MOVES,
            "middle_pieces": MIDDLE_PIECES,
            "database_pieces": DATABASE_PIECES,
            "score": score,
            "table": data,
            "games": rows,
            "check_every_move": every_move or None,
            "wall_s": round(wall),
        }, indent=1) + "\n")


if __name__ == "__main__":
    main()
