#!/bin/sh
# UCB1 (Auer, Cesa-Bianchi & Fischer 2002) in awk, speaking the dpbandits "interactive" protocol:
# pull every arm once, then the arm with the largest mean + sqrt(2 ln t / n) (lowest arm on
# ties). Deterministic: the run's SEED is not needed. With full feedback the pulled arm's reward
# is taken from the row.
#
# Usage:  sh ucb1.sh [RADIUS]     (the constant under the square root, default 2: UCB1)
# Needs only a POSIX shell and awk.

radius=${1:-2}
case $radius in
    ''|*[!0-9.]*|*.*.*) echo "ucb1: RADIUS must be a positive number, got '$radius'" >&2; exit 2 ;;
esac
if awk -W version </dev/null 2>/dev/null | grep mawk >/dev/null; then
    set -- -W interactive
else
    set --
fi

exec awk "$@" -v radius="$radius" '
function fail(message) { print "ucb1: " message > "/dev/stderr"; exit 2 }
function answer(text) { print text; fflush() }
function play(K, T,    a, b, t, n, s, index_, best, reward) {
    for (a = 0; a < K; a++) { n[a] = 0; s[a] = 0 }
    for (t = 1; t <= T; t++) {
        if (t <= K) a = t - 1
        else {
            a = 0; best = -1
            for (b = 0; b < K; b++) {
                index_ = s[b] / n[b] + sqrt(radius * log(t) / n[b])
                if (index_ > best) { best = index_; a = b }
            }
        }
        answer(a)
        if ((getline) <= 0) fail("input ended in round " t)
        reward = (NF == 1) ? $1 : $(a + 1)
        n[a]++; s[a] += reward
    }
    answer("end")
}
NR == 1 {
    if ($1 != "dpbandits" || $2 != 1 || $3 != "interactive")
        fail("expected \"dpbandits 1 interactive FEEDBACK\", got \"" $0 "\"")
    next
}
$1 == "quit" { exit 0 }
$1 == "run" && NF == 4 { play($2 + 0, $3 + 0); next }
{ fail("expected \"run K T SEED\" or \"quit\", got \"" $0 "\"") }
'
