#!/bin/sh
# Epsilon-greedy, a (non-private) bandit algorithm, speaking the dpbandits "interactive" protocol.
#
# Each run pulls every arm once, then in every round explores a uniformly random arm with
# probability EXPLORE and otherwise plays the arm with the best empirical mean (the lowest arm
# on ties). awk's rand() is seeded from the run's SEED, so a run depends on SEED and the rewards
# only. With bandit feedback the harness sends the pulled arm's reward; with full feedback the
# whole row, from which the pulled arm's reward is taken.
#
# Usage:  sh epsilon_greedy.sh [EXPLORE]      (a probability, default 0.1)
# Needs only a POSIX shell and awk.

explore=${1:-0.1}
case $explore in
    ''|*[!0-9.]*|*.*.*) echo "epsilon_greedy: EXPLORE must be a number in [0, 1], got '$explore'" >&2
                        exit 2 ;;
esac

# mawk reads a pipe in blocks unless told to read it line by line, and would then wait for input
# the harness only sends after the next answer. Other awks read lines as they arrive.
if awk -W version </dev/null 2>/dev/null | grep mawk >/dev/null; then
    set -- -W interactive
else
    set --
fi

exec awk "$@" -v explore="$explore" '
function fail(message) { print "epsilon_greedy: " message > "/dev/stderr"; exit 2 }
function answer(text) { print text; fflush() }      # stdout is a pipe: flush every answer
BEGIN { if (explore < 0 || explore > 1) fail("EXPLORE must be a number in [0, 1], got " explore) }
function play(K, T,    a, b, t, n, s, reward) {
    for (a = 0; a < K; a++) { n[a] = 0; s[a] = 0 }
    for (t = 1; t <= T; t++) {
        if (t <= K) a = t - 1
        else if (rand() < explore) a = int(rand() * K)
        else {
            a = 0
            for (b = 1; b < K; b++) if (s[b] * n[a] > s[a] * n[b]) a = b
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
$1 == "run" && NF == 4 {
    srand($4 % 2147483647 + 1)     # some awks clamp seeds to 2^31 - 1 and treat 0 like 1
    play($2 + 0, $3 + 0)
    next
}
{ fail("expected \"run K T SEED\" or \"quit\", got \"" $0 "\"") }
'
