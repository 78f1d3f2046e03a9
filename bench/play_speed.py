#!/usr/bin/env python3
"""Simulations a second in play, agents side by side: each agent searches the same positions
through the engine protocol (`checkers-zero engine`), in alternation (A, B, A, B, ...) for
--rounds rounds, so all see the same machine load; prints each agent's median over its
searches and rounds, and each agent's median over the first's (above 1: faster).

The positions are those a match journal's games passed through: the plies --plies of its
first --games games, each from its ballot, searched --ms milliseconds each. Moves that the
agent's search does not make (the hand-off in endings, a single legal move) print no
simulations and are left out.

    python3 bench/play_speed.py --program target/release/checkers-zero \\
        --journal results/dark-legs4-mean-393-time1000-vs-alphabeta-classic-time1000-egdb6.jsonl \\
        az:device=cpu az:device=cpu,precision=mixed
"""

import argparse
import json
import statistics
import subprocess
from pathlib import Path

BALLOTS = Path(__file__).resolve().parent.parent / "data" / "three_move_ballots.tsv"


def standard_ballots():
    """The FEN after each standard ballot, in the order matches play them."""
    fens = []
    for line in BALLOTS.read_text().splitlines():
        fields = line.split("\t")
        if line.startswith("#") or fields[0] == "id":
            continue
        if fields[2] == "standard":
            fens.append(fields[3].strip())
    return fens


def positions(journal, games, plies):
    """`position` commands for the plies of the journal's first games (rounds 0, 2, 4, ...:
    one game a ballot)."""
    fens = standard_ballots()
    records = [json.loads(line) for line in Path(journal).read_text().splitlines()[1:]]
    records = sorted((r for r in records if "round" in r), key=lambda r: r["round"])
    out = []
    for r in [r for r in records if r["round"] % 2 == 0][:games]:
        fen = fens[r["round"] // 2]
        for ply in plies:
            if ply < len(r["moves"]):
                out.append(f"position fen {fen} moves {' '.join(r['moves'][:ply])}")
    return out


def sims_per_second(program, agent, commands, ms):
    """The engine's last sims/s of each search that reported one."""
    script = [f"setoption name agent value {agent}"]
    for position in commands:
        script += ["newgame", position, f"go movetime {ms}"]
    script.append("quit")
    done = subprocess.run(
        [program, "engine"], input="\n".join(script) + "\n",
        capture_output=True, text=True, check=True,
    )
    rates, last = [], None
    for line in done.stdout.splitlines():
        words = line.split()
        if words[:1] == ["info"] and "sims/s" in words:
            last = float(words[words.index("sims/s") + 1])
        elif words[:1] == ["bestmove"]:
            if last is not None:
                rates.append(last)
            last = None
        elif words[:1] == ["error"]:
            raise SystemExit(f"{agent}: the engine said: {line}")
    return rates


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agents", nargs="+", help="agent specs, e.g. az:device=cpu")
    parser.add_argument("--program", default="target/release/checkers-zero")
    parser.add_argument("--journal", required=True, help="a checkers match journal")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--plies", default="6,12,20,28", help="comma-separated plies")
    parser.add_argument("--ms", type=int, default=500, help="milliseconds a search")
    parser.add_argument("--rounds", type=int, default=3)
    a = parser.parse_args()
    plies = [int(p) for p in a.plies.split(",")]
    commands = positions(a.journal, a.games, plies)
    if not commands:
        raise SystemExit(f"{a.journal}: no games to take positions from")
    rates = {agent: [] for agent in a.agents}
    for r in range(a.rounds):
        for agent in a.agents:
            got = sims_per_second(a.program, agent, commands, a.ms)
            print(f"round {r + 1}: {agent}: median {statistics.median(got):,.0f} "
                  f"simulations/s over {len(got)} searches", flush=True)
            rates[agent] += got
    base = statistics.median(rates[a.agents[0]])
    for agent, got in rates.items():
        median = statistics.median(got)
        print(f"{agent}: {median:,.0f} simulations/s (median of {len(got)}), "
              f"{median / base:.2f}x the first")


if __name__ == "__main__":
    main()
