#!/usr/bin/env bash
# Do two builds' agents choose the same moves? Plays the engine protocol of each binary on
# the positions after every 6th ACF ballot (29 positions) with the built-in `az` network
# and with `alphabeta` at depth 6, and compares their whole replies (info lines with
# values, visit counts and node counts, then bestmove).
#
#   bench/same_moves.sh OLD_BINARY NEW_BINARY
set -euo pipefail
old=$1
new=$2
here=$(cd "$(dirname "$0")/.." && pwd)
script=$(mktemp)
trap 'rm -f "$script" "$script".old "$script".new' EXIT
{
    for agent in az alphabeta:depth=6; do
        echo "setoption name agent value $agent"
        grep -v '^#' "$here/data/three_move_ballots.tsv" | tail -n +2 | awk -F'\t' 'NR % 6 == 1 { print $4 }' |
            while read -r fen; do
                echo "position fen $fen"
                echo "go"
            done
    done
} >"$script" # no quit: it would stop the last search; end of input waits for it
# Timing fields (sims/s, elapsed) differ run to run; everything else must match.
strip() { sed -E 's/ sims\/s [0-9.]+//; s/ time [0-9]+//; s/ nps [0-9]+//'; }
"$old" engine <"$script" | strip >"$script.old"
"$new" engine <"$script" | strip >"$script.new"
moves=$(grep -c '^bestmove' "$script.new")
if diff -q "$script.old" "$script.new" >/dev/null; then
    echo "same replies: $moves searches, every info and bestmove line identical"
else
    echo "replies differ:"
    diff "$script.old" "$script.new" | head -20
    exit 1
fi
