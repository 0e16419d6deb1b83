#!/bin/sh
# Anytime-Lazy-UCB (Hu, Huang & Mehta, arXiv:2102.07929, Algorithm 1) in POSIX sh + awk, speaking
# the dpbandits line protocol ("table" or "interactive", bandit or full feedback).
#
# The algorithm, as on docs/algorithms/anytime-lazy-ucb.md (journal Algorithm 1, its lines):
#   l.2  rounds 1..K pull arms 0..K-1; O_j = 1, r_j = 0, mu~_j = X_j + Lap(1/eps), N_j = Phi_j = 0
#   l.4  round t > K pulls the arm maximising mu~_j + sqrt(3 ln t / O_j) + 3 ln t / (eps O_j)
#        (the lowest arm on ties)
#   l.5  N_J += 1, Phi_J += X_J(t)
#   l.6  when N_J == 2^(r_J + 1):
#   l.7      O_J = 2^(r_J + 1), mu~_J = (Phi_J + Lap(1/eps)) / O_J, r_J += 1, N_J = Phi_J = 0
# Each reward enters one epoch sum, released once with Lap(1/eps): the action sequence is eps-DP
# when one round's reward vector changes (Theorem 2 of the paper).
#
# Only the pulled arm's reward is read, so the program is a bandit learner under every protocol
# and feedback: with "table" it reads X[t, a_t] from the row of round t after choosing a_t (on
# its honour, as the table protocol says); with full feedback it takes a_t's entry of the row.
#
# Noise. Lap(b) by inverse CDF, b * sign(u) * -ln(1 - 2|u|) with u = rand() - 1/2 (a draw of
# exactly 0 is redrawn, so u lies in (-1/2, 1/2) and the noise is finite). awk's rand() is not a
# cryptographic generator, nor a statistically strong one: mawk as usually built and the
# one-true-awk return the C library's random() / 2^31 (31 bits a draw), gawk combines two draws
# of its own copy of BSD random(). The noise therefore takes finitely many values and is only
# close to Laplace, like any floating-point Laplace sampler (Mironov, CCS 2012): fine for an
# example an audit can test, not for deployment.
#
# Seeds. At every "run K T SEED" line the generator is reseeded with srand(SEED % (2^31 - 1) + 1):
# mawk clamps seeds above 2^31 - 1 to it, gawk wraps them modulo 2^32, random() treats 0 like 1,
# so 1 .. 2^31 - 1 is the widest range every awk keeps apart. Each run then depends only on its
# SEED and the table (no state survives a run), and the same SEED gives the same actions on any
# number of workers. What it does not give: independence. The 2^32 possible SEEDs map onto
# 2^31 - 1 seeds, so SEED and SEED + 2^31 - 1 replay the same stream: two of the harness's
# pseudo-random SEEDs do so with probability about 2^-31, and among n runs about n^2 / 2^32 pairs
# are expected to (0.004 for the 4000 runs of a test sample of 2000 per side). Distinct seeds
# start random() at different points of one additive-feedback generator: their streams differ
# (tests/audit/test_external_awk.py checks that runs with neighbouring SEEDs are unrelated in the
# first noisy comparison) but are not proved independent. The audit's confidence statements
# assume independent runs; here they hold to the extent that these streams behave as such.
#
# --bug reuse plants a realistic slip: each arm draws its Lap(1/eps) once, at its first release,
# and adds that same draw at every later release. Consecutive releases of an arm then differ by
# the exact difference of two epoch means (scaled), which reveals the rewards: not eps-DP for any
# eps. Its regret looks normal; an audit is what catches it.
#
# Usage:  sh anytime_lazy_ucb.sh [--epsilon E] [--bug none|reuse]      (E > 0, default 1)
# Needs only a POSIX shell and awk.

epsilon=1
bug=none
while [ $# -gt 0 ]; do
    case $1 in
        --epsilon) [ $# -ge 2 ] || { echo "anytime_lazy_ucb: --epsilon needs a value" >&2; exit 2; }
                   epsilon=$2; shift 2 ;;
        --bug)     [ $# -ge 2 ] || { echo "anytime_lazy_ucb: --bug needs a value" >&2; exit 2; }
                   bug=$2; shift 2 ;;
        *)         echo "anytime_lazy_ucb: unknown argument '$1' (usage: sh anytime_lazy_ucb.sh [--epsilon E] [--bug none|reuse])" >&2
                   exit 2 ;;
    esac
done
case $epsilon in
    ''|.|*[!0-9.]*|*.*.*) echo "anytime_lazy_ucb: --epsilon must be a positive number, got '$epsilon'" >&2
                          exit 2 ;;
esac
case $bug in
    none) reuse=0 ;;
    reuse) reuse=1 ;;
    *) echo "anytime_lazy_ucb: --bug must be none or reuse, got '$bug'" >&2; exit 2 ;;
esac

# mawk reads a pipe in blocks unless told to read it line by line, and would then wait for input
# the harness only sends after the next answer. Other awks read lines as they arrive.
if awk -W version </dev/null 2>/dev/null | grep mawk >/dev/null; then
    set -- -W interactive
else
    set --
fi

exec awk "$@" -v epsilon="$epsilon" -v reuse="$reuse" '
function fail(message) { print "anytime_lazy_ucb: " message > "/dev/stderr"; exit 2 }
function answer(text) { print text; fflush() }      # stdout is a pipe: flush every answer
BEGIN { if (!(epsilon + 0 > 0)) fail("--epsilon must be a positive number, got " epsilon) }

function laplace(b,    u) {                         # Lap(b) by inverse CDF
    do u = rand(); while (u == 0)
    u -= 0.5
    return (u < 0) ? b * log(1 + 2 * u) : -b * log(1 - 2 * u)
}
function noise(j) {                                 # the Lap(1/eps) added to a release of arm j
    if (!reuse) return laplace(1 / epsilon)
    if (!(j in kept)) kept[j] = laplace(1 / epsilon)    # --bug reuse: one draw per arm, kept
    return kept[j]
}
function choose(K, t,    j, a, log_t, ucb, best) {
    if (t <= K) return t - 1                                                     # [l.2]
    log_t = log(t)
    a = 0
    for (j = 0; j < K; j++) {
        ucb = mu[j] + sqrt(3 * log_t / O[j]) + 3 * log_t / (epsilon * O[j])      # [l.4]
        if (j == 0 || ucb > best) { best = ucb; a = j }
    }
    return a
}
function learn(K, t, a, x) {
    if (t <= K) { mu[a] = x + noise(a); return }                                 # [l.2]
    N[a]++; Phi[a] += x                                                          # [l.5]
    if (N[a] == 2 ^ (r[a] + 1)) {                                                # [l.6]
        O[a] = 2 ^ (r[a] + 1); mu[a] = (Phi[a] + noise(a)) / O[a]                # [l.7]
        r[a]++; N[a] = 0; Phi[a] = 0
    }
}
function reset(K,    j) {
    split("", kept)
    for (j = 0; j < K; j++) { O[j] = 1; r[j] = 0; mu[j] = 0; N[j] = 0; Phi[j] = 0 }
}
function play_table(K, T,    t, a, actions, row, f) {
    for (t = 1; t <= T; t++) {
        if ((getline) <= 0) fail("input ended in row " t)
        if (NF != K) fail("row " t " has " NF " rewards, expected " K)
        row[t] = $0
    }
    for (t = 1; t <= T; t++) {
        a = choose(K, t)
        split(row[t], f)
        learn(K, t, a, f[a + 1] + 0)                # only the pulled arm of round t is read
        actions = (t == 1) ? a : actions " " a
    }
    answer(actions)
}
function play_interactive(K, T,    t, a) {
    for (t = 1; t <= T; t++) {
        a = choose(K, t)
        answer(a)
        if ((getline) <= 0) fail("input ended in round " t)
        learn(K, t, a, ((NF == 1) ? $1 : $(a + 1)) + 0)
    }
    answer("end")
}
NR == 1 {
    if ($1 != "dpbandits" || $2 != 1 || ($3 != "table" && $3 != "interactive") ||
        ($4 != "bandit" && $4 != "full"))
        fail("expected \"dpbandits 1 table|interactive bandit|full\", got \"" $0 "\"")
    protocol = $3
    next
}
$1 == "quit" { exit 0 }
$1 == "run" && NF == 4 {
    K = $2 + 0; T = $3 + 0
    if (K < 2 || T < 1) fail("expected K >= 2 and T >= 1, got \"" $0 "\"")
    srand($4 % 2147483647 + 1)      # seeds 1 .. 2^31 - 1: every awk keeps them apart
    reset(K)
    if (protocol == "table") play_table(K, T); else play_interactive(K, T)
    next
}
{ fail("expected \"run K T SEED\" or \"quit\", got \"" $0 "\"") }
'
