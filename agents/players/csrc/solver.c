/* The exact perfect-information (double-dummy) search: fail-soft negamax alpha-beta over game-point values
 * (-3..+3) with a transposition table (full 128-bit position key, exact match) and move ordering. One decision
 * may be several atomic actions by the same player (exchange, close, marriage, card): each action is a node and
 * the sign flips only when the player to move changes. A pending signal (Ctrl-C) is polled every
 * INTERRUPT_NODES nodes, and a position whose mover has no legal action (impossible from a state that passed
 * GameState.validate, guarded all the same) raises ValueError: the search then unwinds without storing and the
 * caller returns NULL. */
#include "core.h"
#include <string.h>
#include <stdlib.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif
#define HUGE_PAGE (2u << 20)
#define INTERRUPT_NODES 0xFFFF /* nodes between two polls of PyErr_CheckSignals, minus one (a mask) */

long long node_count;
int solver_stopped;

/* ------------------------------------------------------------ transposition table */
typedef struct {
    uint64_t k1, k2;
    uint32_t gen;
    int8_t lo, hi;
    int8_t best;
} Entry;

#define TT_BITS 18  /* the largest part in use (new_generation): 24-card deals */
#define TT_SIZE (1u << TT_BITS)
static Entry *tt;
uint32_t tt_gen;

/* which world's talon the table's talon-open positions belong to: 0 in a solve of one state; in the search
 * loop (search_tree) one tag per distinct talon, so that one table serves all its worlds: a position whose
 * talon is closed or exhausted has the same value in every world (the key holds both hands), one whose talon
 * is open only in the worlds with its talon. Below 2^WORLD_TAG_BITS; key bits WORLD_TAG_SHIFT.. */
#define WORLD_TAG_SHIFT 47
uint64_t world_tag;

static void make_key(const State *s, uint64_t *k1, uint64_t *k2) {
    *k1 = (uint64_t)s->hand[0] | ((uint64_t)s->hand[1] << 24) | ((uint64_t)s->talon_pos << 48) |
          ((uint64_t)(s->trump_card + 1) << 52) | ((uint64_t)s->current_player << 57) | ((uint64_t)s->leader << 58) |
          ((uint64_t)(s->pending + 1) << 59) | ((uint64_t)(s->tw[0] > 0) << 62) | ((uint64_t)(s->tw[1] > 0) << 63);
    *k2 = (uint64_t)(s->lead_card + 1) | ((uint64_t)s->eyes[0] << 5) | ((uint64_t)s->eyes[1] << 13) |
          ((uint64_t)s->held[0] << 21) | ((uint64_t)s->held[1] << 28) | ((uint64_t)(s->closed_by + 1) << 35) |
          ((uint64_t)s->closed_opp_eyes << 37) | ((uint64_t)s->closed_opp_trick << 45) |
          ((uint64_t)(s->tw[0] + s->tw[1] > 0) << 46);
    if (s->trump_card >= 0 && s->closed_by < 0) *k2 |= world_tag << WORLD_TAG_SHIFT;
}

/* index mask of the part of the table in use: small searches use a small, cache-resident part */
static uint32_t tt_mask = TT_SIZE - 1;

static inline uint32_t hash_key(uint64_t k1, uint64_t k2) {
    uint64_t h = k1 * 0x9E3779B97F4A7C15ull ^ (k2 + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return (uint32_t)(h & tt_mask);
}

/* ------------------------------------------------------------ move ordering */
int order_moves(const State *s, uint32_t mask, int tt_best, int *moves) {
    int scores[MAX_MOVES], n = 0, p = s->current_player, trump = s->trump;
    while (mask) {
        int a = __builtin_ctz(mask);
        mask &= mask - 1;
        int sc;
        if (a == tt_best) sc = 100000;
        else if (a == DECLARE) sc = s->eyes[p] >= EYES_TO_WIN ? 50000 : -50000;
        else if (a == EXCHANGE) sc = 40000;
        else if (a >= MARRIAGE_BASE && a < EXCHANGE) sc = 30000 + (a - MARRIAGE_BASE == trump ? 1000 : 0);
        else if (a == CLOSE) sc = 35000; /* closed subtrees are small and give tight bounds early */
        else if (s->lead_card < 0) {
            /* lead: high non-trump cards first, then trumps, low cards last */
            int e = card_eyes[a];
            sc = 1000 + e * 10 + (a / RANKS_PER_SUIT == trump ? -50 : 0);
        } else {
            int lead = s->lead_card, ls = lead / RANKS_PER_SUIT, fs = a / RANKS_PER_SUIT;
            int wins = (fs == ls && a < lead) || (fs == trump && ls != trump);
            /* follow: winning cards first (cheapest winner, trumping last), then the cheapest losers */
            if (wins) sc = 2000 + card_eyes[lead] * 10 - card_eyes[a] - (fs == trump && ls != trump ? 20 : 0);
            else sc = 1000 - card_eyes[a] * 10 - (fs == trump ? 50 : 0);
        }
        int i = n++;
        while (i > 0 && scores[i - 1] < sc) { scores[i] = scores[i - 1]; moves[i] = moves[i - 1]; i--; }
        scores[i] = sc;
        moves[i] = a;
    }
    return n;
}

/* ------------------------------------------------------------ search */

/* value of action a in s for the player to move in s; child searched with (alpha, beta) */
int child_value(const State *s, int a, int alpha, int beta) {
    State c = *s;
    int p = s->current_player;
    apply(&c, a);
    if (c.winner >= 0) return c.winner == p ? c.points : -c.points;
    if (c.current_player == p) return search(&c, alpha, beta);
    return -search(&c, -beta, -alpha);
}


static inline int mask_eyes(uint32_t m) {
    return suit_eyes[m & 63] + suit_eyes[(m >> 6) & 63] + suit_eyes[(m >> 12) & 63] + suit_eyes[(m >> 18) & 63];
}

/* most eyes player q can still end with (after the talon is closed or exhausted): every
 * card still out, q's held marriage eyes, the marriages q's hand can still announce,
 * and the Sechsundsechzig last-trick bonus when the talon ran out */
static int reachable_eyes(const State *s, int q) {
    uint32_t out = s->hand[0] | s->hand[1];
    int e = s->eyes[q] + s->held[q] + mask_eyes(out) + (s->lead_card >= 0 ? card_eyes[(int)s->lead_card] : 0);
    uint32_t kq = s->hand[q] & (s->hand[q] >> 1) & king_bits;
    while (kq) {
        int suit = __builtin_ctz(kq) / RANKS_PER_SUIT;
        e += suit == s->trump ? TRUMP_MARRIAGE_EYES : MARRIAGE_EYES;
        kq &= kq - 1;
    }
    if (s->closed_by < 0) e += R.bonus;
    return e;
}

/* Cheap exact bounds on the value for the player to move, from the endings still
 * possible (RULES §5). Eyes and tricks only grow, so the scale can only fall.
 * After a closing the closer c ends with S (the scale at closing, or on the
 * opponent's final eyes under closing_counts_later_eyes), -F (closing failed), or
 * under manual declaring the points of the opponent's false declaration. With the
 * talon exhausted the winner gets the scale judged by the loser (or 1 for the last
 * trick) or, for the opponent's false declaration, 2 or the scale judged by the
 * winner. With the talon open (closings still possible) no bound is used. */
static int value_bounds(const State *s, int *lo, int *hi) {
    int p = s->current_player, o = 1 - p;
    if (s->closed_by >= 0) {
        int c = s->closed_by, oc = 1 - c;
        int F = s->closed_opp_trick ? GP_CLOSING_FAILED : GP_CLOSING_FAILED_NO_TRICK;
        if (reachable_eyes(s, c) < EYES_TO_WIN) {
            /* the closer can no longer reach 66: the closing fails (the opponent just plays on) */
            *lo = *hi = p == c ? -F : F;
            return 1;
        }
        int cmax = R.later ? game_points_for(s->eyes[oc], s->tw[oc] > 0)
                           : game_points_for(s->closed_opp_eyes, s->closed_opp_trick);
        if (R.manual) { int fd = R.fdp_fixed ? GP_FIXED_FALSE_DECLARATION : F; if (fd > cmax) cmax = fd; }
        if (p == c) { *lo = -F; *hi = cmax; } else { *lo = -cmax; *hi = F; }
        return 1;
    }
    if (s->trump_card < 0) {
        int gp = game_points_for(s->eyes[p], s->tw[p] > 0), go = game_points_for(s->eyes[o], s->tw[o] > 0);
        int hp = go, ho = gp;
        /* a player who cannot reach 66 wins only the last trick (1) or by a false declaration */
        if (reachable_eyes(s, p) < EYES_TO_WIN) hp = GP_LAST_TRICK;
        if (reachable_eyes(s, o) < EYES_TO_WIN) ho = GP_LAST_TRICK;
        if (R.manual) {
            int fp = R.fdp_fixed ? GP_FIXED_FALSE_DECLARATION : gp, fo = R.fdp_fixed ? GP_FIXED_FALSE_DECLARATION : go;
            if (fp > hp) hp = fp;
            if (fo > ho) ho = fo;
        }
        *lo = -ho; *hi = hp;
        return 1;
    }
    return 0;
}

/* exact bounds of a position (value_bounds) cut the search or narrow its window:
 * returns 1 with the value in *cut when the bounds fall outside (alpha, beta) */
static inline int narrow_window(const State *s, int *alpha, int *beta, int *cut) {
    int blo, bhi;
    if (!value_bounds(s, &blo, &bhi)) return 0;
    if (bhi <= *alpha) { *cut = bhi; return 1; }
    if (blo >= *beta) { *cut = blo; return 1; }
    if (blo > *alpha) *alpha = blo;
    if (bhi < *beta) *beta = bhi;
    return 0;
}

/* counts a node; every INTERRUPT_NODES + 1 nodes runs Python's signal handlers: 1 when one raised (the
 * search unwinds, Python's error set) */
static inline int poll_interrupt(void) {
    node_count++;
    if (!solver_stopped && !(node_count & INTERRUPT_NODES) && PyErr_CheckSignals() < 0) solver_stopped = 1;
    return solver_stopped;
}

/* a mover without a legal action: ValueError, and the search unwinds */
static int no_legal_action(void) {
    if (!solver_stopped) {
        PyErr_SetString(PyExc_ValueError, "the solver reached a position whose mover has no legal action: an "
                        "impossible state");
        solver_stopped = 1;
    }
    return 0;
}

/* a follow node (a card has been led): searched without the table. Its positions
 * rarely transpose before the trick is complete, and skipping the probe saves a
 * cache miss per node (same node count, about 30% less time) */
static int search_follow(const State *s, int alpha, int beta) {
    if (poll_interrupt()) return 0;
    int cut;
    if (narrow_window(s, &alpha, &beta, &cut)) return cut;
    int moves[MAX_MOVES];
    int n = order_moves(s, legal_mask(s), -1, moves);
    if (n == 0) return no_legal_action();
    int best = VMIN - 1;
    for (int i = 0; i < n; i++) {
        int v = child_value(s, moves[i], alpha, beta);
        if (v > best) best = v;
        if (best > alpha) alpha = best;
        if (alpha >= beta) break;
    }
    return best;
}

int search(const State *s, int alpha, int beta) {
    if (s->lead_card >= 0) return search_follow(s, alpha, beta);
    if (poll_interrupt()) return 0;
    int cut;
    if (narrow_window(s, &alpha, &beta, &cut)) return cut;
    uint64_t k1, k2;
    make_key(s, &k1, &k2);
    Entry *e = &tt[hash_key(k1, k2)];
    int tt_best = -1, lo = VMIN, hi = VMAX;
    if (e->gen == tt_gen && e->k1 == k1 && e->k2 == k2) {
        lo = e->lo; hi = e->hi; tt_best = e->best;
        if (lo >= beta) return lo;
        if (hi <= alpha) return hi;
        if (lo == hi) return lo;
        if (lo > alpha) alpha = lo;
        if (hi < beta) beta = hi;
    }
    int moves[MAX_MOVES];
    int n = order_moves(s, legal_mask(s), tt_best, moves);
    if (n == 0) return no_legal_action();
    int best = VMIN - 1, best_a = moves[0], a0 = alpha;
    for (int i = 0; i < n; i++) {
        int v = child_value(s, moves[i], alpha, beta);
        if (v > best) { best = v; best_a = moves[i]; }
        if (best > alpha) alpha = best;
        if (alpha >= beta) break;
    }
    if (solver_stopped) return 0; /* the children's values are not values: store nothing */
    /* store: merge with the bounds already known for this exact position */
    if (!(e->gen == tt_gen && e->k1 == k1 && e->k2 == k2)) { lo = VMIN; hi = VMAX; }
    if (best <= a0) { if (best < hi) hi = best; }
    else if (best >= beta) { if (best > lo) lo = best; }
    else { lo = hi = best; }
    e->k1 = k1; e->k2 = k2; e->gen = tt_gen;
    e->lo = (int8_t)lo; e->hi = (int8_t)hi; e->best = (int8_t)best_a;
    return best;
}

/* exact value of action a in s by null-window tests (MTD-style: values are few small integers) */
static int exact_child(const State *s, int a) {
    /* win or loss? then how many points (values are -3..-1, 1..3) */
    /* fail-soft results are bounds: v >= 2 already proves "at least 2", v <= -2 "at most -2" */
    int v = child_value(s, a, 0, 1);
    if (v >= 1) {
        if (v >= VMAX) return v;
        if (v < 2 && child_value(s, a, 1, 2) < 2) return 1;
        return child_value(s, a, 2, 3) >= 3 ? 3 : 2;
    }
    if (v <= VMIN) return v;
    if (v > -2 && child_value(s, a, -2, -1) >= -1) return -1;
    return child_value(s, a, -3, -2) >= -2 ? -2 : -3;
}

int exact_value(const State *s) {
    int v = search(s, 0, 1);
    if (v >= 1) {
        if (v >= VMAX) return v;
        if (v < 2 && search(s, 1, 2) < 2) return 1;
        return search(s, 2, 3) >= 3 ? 3 : 2;
    }
    if (v <= VMIN) return v;
    if (v > -2 && search(s, -2, -1) >= -1) return -1;
    return search(s, -3, -2) >= -2 ? -2 : -3;
}

#define SMALL_TT_BITS 14
#define SMALL_SEARCH_CARDS 12

/* cards still to be played in s (hands, and the talon while it is open) */
static int cards_left(const State *s) {
    int cards = __builtin_popcount(s->hand[0]) + __builtin_popcount(s->hand[1]);
    if (s->trump_card >= 0 && s->closed_by < 0) cards += s->talon_len - s->talon_pos + 1;
    return cards;
}

/* the table part of a search by the cards of its first state: a part that stays in the L2 cache beats the
 * whole table in time despite more nodes (measured on a 2-core Xeon, 2 MiB L2 per core: 20-card deals 2^16,
 * 2x faster, 5% more nodes; 24-card deals 2^18, 1.4x faster, 25% more) */
#define DEAL_CARDS 20
#define DEAL_TT_BITS 16
#define DEAL_TT_BITS_24 TT_BITS

/* a fresh table generation with the table part sized by the cards left in s */
void new_generation(const State *s) {
    int cards = cards_left(s);
    int bits = cards <= SMALL_SEARCH_CARDS ? SMALL_TT_BITS : cards <= DEAL_CARDS ? DEAL_TT_BITS : DEAL_TT_BITS_24;
    tt_mask = (1u << bits) - 1;
    solver_stopped = 0;
    tt_gen++;
    if (tt_gen == 0) { memset(tt, 0, sizeof(Entry) * TT_SIZE); tt_gen = 1; }
}

/* start a new search of s */
void new_search(const State *s) {
    new_generation(s);
    node_count = 0;
}

/* each legal action's exact value, or with win_only its sign alone (1 wins, -1 loses: one null-window test), in
 * move order; their number */
int root_values(const State *s, int win_only, int *actions, int *values) {
    int moves[MAX_MOVES];
    int n = order_moves(s, legal_mask(s), -1, moves);
    for (int i = 0; i < n; i++) {
        actions[i] = moves[i];
        values[i] = win_only ? (child_value(s, moves[i], 0, 1) >= 1 ? 1 : -1) : exact_child(s, moves[i]);
    }
    return n;
}

/* the table: 2 MiB-aligned and, where the kernel allows, backed by huge pages (it is probed at random and small
 * pages would cost a TLB miss per node). 0, or -1 with MemoryError */
int solver_init(void) {
    void *memory = NULL;
    if (posix_memalign(&memory, HUGE_PAGE, sizeof(Entry) * TT_SIZE) != 0 || !memory) {
        PyErr_NoMemory();
        return -1;
    }
#ifdef MADV_HUGEPAGE
    madvise(memory, sizeof(Entry) * TT_SIZE, MADV_HUGEPAGE);
#endif
    tt = (Entry *)memory;
    memset(tt, 0, sizeof(Entry) * TT_SIZE); /* touch every page now, not during the first searches */
    tt_gen = 0;
    return 0;
}
