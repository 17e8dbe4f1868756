/* Compiled core of the perfect-information (double-dummy) Schnapsen solver.
 *
 * The rules here mirror schnapsen_env/engine.py exactly (RULES.md §2-§5, every
 * option of §7); agents/solver.py holds the readable Python reference and the
 * tests check the two against each other and against the engine.
 *
 * State: bitmask hands, the talon as a small array with a draw index, small ints.
 * Search: fail-soft negamax alpha-beta over game-point values (-3..+3) with a
 * transposition table (full 128-bit position key, exact match) and move
 * ordering.  One decision may be several atomic actions by the same player
 * (exchange, close, marriage, card): each action is a node and the sign flips
 * only when the player to move changes.
 *
 * Python API (all take ``(rules_tuple, state_tuple)``, see agents/solver.py
 * ``_to_core``):
 *   value(rules, state) -> int
 *   action_values(rules, state) -> list[(action, value)]
 *   solve(rules, state) -> (value, [best actions])
 *   nodes() -> int   (nodes searched by the last call; for benchmarks)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif
#define HUGE_PAGE (2u << 20)

#define NUM_CARDS 24
#define RANKS_PER_SUIT 6
#define NUM_SUITS 4
#define KING 2
#define QUEEN 3
#define MARRIAGE_BASE 24
#define EXCHANGE 28
#define CLOSE 29
#define DECLARE 30
#define NUM_ACTIONS 31
#define EYES_TO_WIN 66
#define MARRIAGE_EYES 20
#define TRUMP_MARRIAGE_EYES 40
#define SCHNEIDER_EYES 32
#define MAX_TALON 12
#define MAX_MOVES 32
#define VMAX 3
#define VMIN (-3)

typedef struct {
    int deck24, sharp, manual, fdp_fixed, later, allow_close, king_only, credit_next, bonus, exrank;
} Rules;

typedef struct {
    uint32_t hand[2];
    int8_t talon[MAX_TALON];
    int8_t talon_len, talon_pos;
    int8_t trump_card, trump, leader, to_move, lead_card, pending;
    int16_t eyes[2], held[2];
    int8_t tw[2];
    int8_t closed_by, closed_opp_trick;
    int16_t closed_opp_eyes;
    int8_t winner, points; /* winner -1 while playing */
} State;

static Rules R;
static const int CARD_EYES_RANK[6] = {11, 10, 4, 3, 2, 0};
static int card_eyes[NUM_CARDS];
static uint32_t suit_mask[NUM_SUITS];
static uint32_t higher[NUM_CARDS], lower[NUM_CARDS];
static uint32_t king_bits;
static long long node_count;

/* ------------------------------------------------------------ rules */
static int game_points_for(int loser_eyes, int loser_has_trick) {
    if (!loser_has_trick) return 3;
    if (loser_eyes <= SCHNEIDER_EYES) return 2;
    return 1;
}

static void end_game(State *s, int winner, int pts) {
    s->winner = (int8_t)winner;
    s->points = (int8_t)pts;
    s->to_move = -1;
}

static void closing_failed(State *s) {
    end_game(s, 1 - s->closed_by, s->closed_opp_trick ? 2 : 3);
}

static void reach_66(State *s, int p) {
    int c = s->closed_by, o = 1 - p;
    if (c < 0) {
        end_game(s, p, game_points_for(s->eyes[o], s->tw[o] > 0));
    } else if (p == c) {
        int pts = R.later ? game_points_for(s->eyes[o], s->tw[o] > 0)
                          : game_points_for(s->closed_opp_eyes, s->closed_opp_trick);
        end_game(s, p, pts);
    } else {
        closing_failed(s);
    }
}

static void declare(State *s, int d) {
    if (s->eyes[d] >= EYES_TO_WIN) { reach_66(s, d); return; }
    int o = 1 - d, c = s->closed_by;
    if (c < 0) {
        int pts = R.fdp_fixed ? 2 : game_points_for(s->eyes[o], s->tw[o] > 0);
        end_game(s, o, pts);
    } else if (d == c) {
        closing_failed(s);
    } else {
        end_game(s, c, R.fdp_fixed ? 2 : (s->closed_opp_trick ? 2 : 3));
    }
}

static void finish_trick(State *s, int follow) {
    int lead = s->lead_card, leader = s->leader, follower = 1 - leader;
    int ls = lead / RANKS_PER_SUIT, fs = follow / RANKS_PER_SUIT, w;
    if ((fs == ls && follow < lead) || (fs == s->trump && ls != s->trump)) w = follower; else w = leader;
    s->eyes[w] += card_eyes[lead] + card_eyes[follow] + s->held[w];
    s->held[w] = 0;
    s->tw[w] += 1;
    s->lead_card = -1;
    s->leader = (int8_t)w;
    s->to_move = (int8_t)w;
    int closed = s->closed_by >= 0, last;
    if (s->trump_card >= 0 && !closed) {
        int pos = s->talon_pos;
        if (s->talon_len - pos >= 2) {
            s->hand[w] |= 1u << s->talon[pos];
            s->hand[1 - w] |= 1u << s->talon[pos + 1];
            s->talon_pos = (int8_t)(pos + 2);
        } else {
            s->hand[w] |= 1u << s->talon[pos];
            s->hand[1 - w] |= 1u << s->trump_card;
            s->trump_card = -1;
            s->talon_pos = (int8_t)(pos + 1);
        }
        last = 0;
    } else {
        last = !(s->hand[0] | s->hand[1]);
    }
    if (last && !closed) s->eyes[w] += R.bonus;
    if (!R.manual && s->eyes[w] >= EYES_TO_WIN) {
        reach_66(s, w);
    } else if (last) {
        if (!closed) {
            if (s->eyes[w] >= EYES_TO_WIN) reach_66(s, w);
            else end_game(s, w, 1);
        } else if (w == s->closed_by && s->eyes[w] >= EYES_TO_WIN) {
            reach_66(s, w);
        } else {
            closing_failed(s);
        }
    }
}

static void apply(State *s, int a) {
    int p = s->to_move;
    if (a < MARRIAGE_BASE) {
        s->hand[p] ^= 1u << a;
        if (s->lead_card < 0) {
            s->lead_card = (int8_t)a;
            s->pending = -1;
            s->to_move = (int8_t)(1 - p);
        } else {
            finish_trick(s, a);
        }
    } else if (a < EXCHANGE) {
        int suit = a - MARRIAGE_BASE;
        int pts = suit == s->trump ? TRUMP_MARRIAGE_EYES : MARRIAGE_EYES;
        s->pending = (int8_t)suit;
        if (!R.credit_next && s->tw[p] > 0) {
            s->eyes[p] += pts;
            if (!R.manual && s->eyes[p] >= EYES_TO_WIN) reach_66(s, p);
        } else {
            s->held[p] += pts;
        }
    } else if (a == EXCHANGE) {
        int low = s->trump * RANKS_PER_SUIT + R.exrank;
        s->hand[p] = (s->hand[p] & ~(1u << low)) | (1u << s->trump_card);
        s->trump_card = (int8_t)low;
    } else if (a == CLOSE) {
        s->closed_by = (int8_t)p;
        s->closed_opp_eyes = s->eyes[1 - p];
        s->closed_opp_trick = s->tw[1 - p] > 0;
    } else {
        declare(s, p);
    }
}

/* legal actions as a bitmask over action ids (same as GameState.legal_mask) */
static uint32_t legal_mask(const State *s) {
    int p = s->to_move;
    if (p < 0) return 0;
    uint32_t hand = s->hand[p], m;
    int lead = s->lead_card;
    if (lead < 0) {
        if (s->pending >= 0) {
            int k = s->pending * RANKS_PER_SUIT + KING;
            m = R.king_only ? (1u << k) : (3u << k);
            m &= hand;
            if (R.manual) m |= 1u << DECLARE;
            return m;
        }
        m = hand;
        uint32_t kq = hand & (hand >> 1) & king_bits;
        if (kq && !(R.sharp && s->tw[p] == 0)) {
            while (kq) {
                int c = __builtin_ctz(kq);
                m |= 1u << (MARRIAGE_BASE + c / RANKS_PER_SUIT);
                kq &= kq - 1;
            }
        }
        if (s->trump_card >= 0 && s->closed_by < 0) {
            int one_left = s->talon_len - s->talon_pos == 1;
            int no_trick = s->tw[0] + s->tw[1] == 0;
            if ((hand >> (s->trump * RANKS_PER_SUIT + R.exrank) & 1) && !(R.sharp && (one_left || no_trick)))
                m |= 1u << EXCHANGE;
            if ((R.allow_close >> p & 1) && !(R.sharp && one_left)) m |= 1u << CLOSE;
        }
        if (R.manual) m |= 1u << DECLARE;
        return m;
    }
    if (s->trump_card >= 0 && s->closed_by < 0) return hand;
    m = hand & higher[lead];
    if (m) return m;
    m = hand & lower[lead];
    if (m) return m;
    m = hand & suit_mask[(int)s->trump];
    if (m) return m;
    return hand;
}

/* ------------------------------------------------------------ transposition table */
typedef struct {
    uint64_t k1, k2;
    uint32_t gen;
    int8_t lo, hi;
    int8_t best;
} Entry;

#define TT_BITS 20
#define TT_SIZE (1u << TT_BITS)
static Entry *tt;
static uint32_t tt_gen;

static void make_key(const State *s, uint64_t *k1, uint64_t *k2) {
    *k1 = (uint64_t)s->hand[0] | ((uint64_t)s->hand[1] << 24) | ((uint64_t)s->talon_pos << 48) |
          ((uint64_t)(s->trump_card + 1) << 52) | ((uint64_t)s->to_move << 57) | ((uint64_t)s->leader << 58) |
          ((uint64_t)(s->pending + 1) << 59) | ((uint64_t)(s->tw[0] > 0) << 62) | ((uint64_t)(s->tw[1] > 0) << 63);
    *k2 = (uint64_t)(s->lead_card + 1) | ((uint64_t)s->eyes[0] << 5) | ((uint64_t)s->eyes[1] << 13) |
          ((uint64_t)s->held[0] << 21) | ((uint64_t)s->held[1] << 28) | ((uint64_t)(s->closed_by + 1) << 35) |
          ((uint64_t)s->closed_opp_eyes << 37) | ((uint64_t)s->closed_opp_trick << 45) |
          ((uint64_t)(s->tw[0] + s->tw[1] > 0) << 46);
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
static int order_moves(const State *s, uint32_t mask, int tt_best, int *moves) {
    int scores[MAX_MOVES], n = 0, p = s->to_move, trump = s->trump;
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
static int search(const State *s, int alpha, int beta);

/* value of action a in s for the player to move in s; child searched with (alpha, beta) */
static inline int child_value(const State *s, int a, int alpha, int beta) {
    State c = *s;
    int p = s->to_move;
    apply(&c, a);
    if (c.winner >= 0) return c.winner == p ? c.points : -c.points;
    if (c.to_move == p) return search(&c, alpha, beta);
    return -search(&c, -beta, -alpha);
}

static int suit_eyes[64]; /* eyes of a 6-bit rank mask of one suit */

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
    int p = s->to_move, o = 1 - p;
    if (s->closed_by >= 0) {
        int c = s->closed_by, oc = 1 - c;
        int F = s->closed_opp_trick ? 2 : 3;
        if (reachable_eyes(s, c) < EYES_TO_WIN) {
            /* the closer can no longer reach 66: the closing fails (the opponent just plays on) */
            *lo = *hi = p == c ? -F : F;
            return 1;
        }
        int cmax = R.later ? game_points_for(s->eyes[oc], s->tw[oc] > 0)
                           : game_points_for(s->closed_opp_eyes, s->closed_opp_trick);
        if (R.manual) { int fd = R.fdp_fixed ? 2 : F; if (fd > cmax) cmax = fd; }
        if (p == c) { *lo = -F; *hi = cmax; } else { *lo = -cmax; *hi = F; }
        return 1;
    }
    if (s->trump_card < 0) {
        int gp = game_points_for(s->eyes[p], s->tw[p] > 0), go = game_points_for(s->eyes[o], s->tw[o] > 0);
        int hp = go, ho = gp;
        /* a player who cannot reach 66 wins only the last trick (1) or by a false declaration */
        if (reachable_eyes(s, p) < EYES_TO_WIN) hp = 1;
        if (reachable_eyes(s, o) < EYES_TO_WIN) ho = 1;
        if (R.manual) {
            int fp = R.fdp_fixed ? 2 : gp, fo = R.fdp_fixed ? 2 : go;
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

/* a follow node (a card has been led): searched without the table. Its positions
 * rarely transpose before the trick is complete, and skipping the probe saves a
 * cache miss per node (same node count, about 30% less time) */
static int search_follow(const State *s, int alpha, int beta) {
    node_count++;
    int cut;
    if (narrow_window(s, &alpha, &beta, &cut)) return cut;
    int moves[MAX_MOVES];
    int n = order_moves(s, legal_mask(s), -1, moves);
    int best = VMIN - 1;
    for (int i = 0; i < n; i++) {
        int v = child_value(s, moves[i], alpha, beta);
        if (v > best) best = v;
        if (best > alpha) alpha = best;
        if (alpha >= beta) break;
    }
    return best;
}

static int search(const State *s, int alpha, int beta) {
    if (s->lead_card >= 0) return search_follow(s, alpha, beta);
    node_count++;
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
    int best = VMIN - 1, best_a = moves[0], a0 = alpha;
    for (int i = 0; i < n; i++) {
        int v = child_value(s, moves[i], alpha, beta);
        if (v > best) { best = v; best_a = moves[i]; }
        if (best > alpha) alpha = best;
        if (alpha >= beta) break;
    }
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

static int exact_value(const State *s) {
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

/* start a new search of s: fresh table generation, table part sized by the cards left */
static void new_search(const State *s) {
    int cards = __builtin_popcount(s->hand[0]) + __builtin_popcount(s->hand[1]);
    if (s->trump_card >= 0 && s->closed_by < 0) cards += s->talon_len - s->talon_pos + 1;
    tt_mask = cards <= SMALL_SEARCH_CARDS ? (1u << SMALL_TT_BITS) - 1 : TT_SIZE - 1;
    tt_gen++;
    if (tt_gen == 0) { memset(tt, 0, sizeof(Entry) * TT_SIZE); tt_gen = 1; }
    node_count = 0;
}

/* ------------------------------------------------------------ Python glue */
static int parse_rules(PyObject *obj) {
    int v[10];
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != 10) {
        PyErr_SetString(PyExc_ValueError, "rules must be a tuple of 10 ints (see agents.solver._rules_to_core)");
        return -1;
    }
    for (int i = 0; i < 10; i++) {
        long x = PyLong_AsLong(PyTuple_GET_ITEM(obj, i));
        if (x == -1 && PyErr_Occurred()) return -1;
        v[i] = (int)x;
    }
    R.deck24 = v[0]; R.sharp = v[1]; R.manual = v[2]; R.fdp_fixed = v[3]; R.later = v[4];
    R.allow_close = v[5]; R.king_only = v[6]; R.credit_next = v[7]; R.bonus = v[8]; R.exrank = v[9];
    return 0;
}

#define STATE_FIELDS 19
static int parse_state(PyObject *obj, State *s) {
    if (!PyTuple_Check(obj) || PyTuple_GET_SIZE(obj) != STATE_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "state must be a tuple of 19 items (see agents.solver._state_to_core)");
        return -1;
    }
    long v[STATE_FIELDS];
    for (int i = 0; i < STATE_FIELDS; i++) {
        if (i == 2) continue;
        v[i] = PyLong_AsLong(PyTuple_GET_ITEM(obj, i));
        if (v[i] == -1 && PyErr_Occurred()) return -1;
    }
    memset(s, 0, sizeof(*s));
    s->hand[0] = (uint32_t)v[0];
    s->hand[1] = (uint32_t)v[1];
    PyObject *talon = PyTuple_GET_ITEM(obj, 2);
    if (!PyTuple_Check(talon) || PyTuple_GET_SIZE(talon) > MAX_TALON) {
        PyErr_SetString(PyExc_ValueError, "talon must be a tuple of at most 12 card ids");
        return -1;
    }
    s->talon_len = (int8_t)PyTuple_GET_SIZE(talon);
    for (int i = 0; i < s->talon_len; i++) {
        long c = PyLong_AsLong(PyTuple_GET_ITEM(talon, i));
        if (c == -1 && PyErr_Occurred()) return -1;
        if (c < 0 || c >= NUM_CARDS) { PyErr_SetString(PyExc_ValueError, "talon card id out of range"); return -1; }
        s->talon[i] = (int8_t)c;
    }
    s->talon_pos = (int8_t)v[3];
    s->trump_card = (int8_t)v[4];
    s->trump = (int8_t)v[5];
    s->leader = (int8_t)v[6];
    s->to_move = (int8_t)v[7];
    s->lead_card = (int8_t)v[8];
    s->pending = (int8_t)v[9];
    s->eyes[0] = (int16_t)v[10]; s->eyes[1] = (int16_t)v[11];
    s->held[0] = (int16_t)v[12]; s->held[1] = (int16_t)v[13];
    s->tw[0] = (int8_t)v[14]; s->tw[1] = (int8_t)v[15];
    s->closed_by = (int8_t)v[16];
    s->closed_opp_eyes = (int16_t)v[17];
    s->closed_opp_trick = (int8_t)v[18];
    s->winner = -1;
    if (s->to_move < 0 || s->to_move > 1) {
        PyErr_SetString(PyExc_ValueError, "the state is terminal (no player to move): nothing to solve");
        return -1;
    }
    if (s->talon_pos > s->talon_len) { PyErr_SetString(PyExc_ValueError, "talon_pos beyond the talon"); return -1; }
    return 0;
}

static int parse_args(PyObject *args, State *s) {
    PyObject *rules, *state;
    if (!PyArg_ParseTuple(args, "OO", &rules, &state)) return -1;
    if (parse_rules(rules) < 0) return -1;
    if (parse_state(state, s) < 0) return -1;
    return 0;
}

static PyObject *py_value(PyObject *self, PyObject *args) {
    State s;
    if (parse_args(args, &s) < 0) return NULL;
    new_search(&s);
    int v = exact_value(&s);
    return PyLong_FromLong(v);
}

static int root_values(const State *s, int *acts, int *vals) {
    int moves[MAX_MOVES];
    int n = order_moves(s, legal_mask(s), -1, moves);
    for (int i = 0; i < n; i++) {
        acts[i] = moves[i];
        vals[i] = exact_child(s, moves[i]);
    }
    return n;
}

static PyObject *py_action_values(PyObject *self, PyObject *args) {
    State s;
    if (parse_args(args, &s) < 0) return NULL;
    new_search(&s);
    int acts[MAX_MOVES], vals[MAX_MOVES];
    int n = root_values(&s, acts, vals);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) PyList_SET_ITEM(out, i, Py_BuildValue("(ii)", acts[i], vals[i]));
    return out;
}

static PyObject *py_solve(PyObject *self, PyObject *args) {
    State s;
    if (parse_args(args, &s) < 0) return NULL;
    new_search(&s);
    /* value first (full window), then a null-window test per action: is it as good? */
    int v = exact_value(&s);
    int moves[MAX_MOVES];
    int n = order_moves(&s, legal_mask(&s), -1, moves);
    int best[MAX_MOVES], nb = 0;
    for (int i = 0; i < n; i++) {
        int cv = child_value(&s, moves[i], v - 1, v);
        if (cv >= v) best[nb++] = moves[i];
    }
    /* ascending action ids */
    for (int i = 1; i < nb; i++) {
        int x = best[i], j = i;
        while (j > 0 && best[j - 1] > x) { best[j] = best[j - 1]; j--; }
        best[j] = x;
    }
    PyObject *lst = PyList_New(nb);
    if (!lst) return NULL;
    for (int i = 0; i < nb; i++) PyList_SET_ITEM(lst, i, PyLong_FromLong(best[i]));
    return Py_BuildValue("(iN)", v, lst);
}

static PyObject *py_nodes(PyObject *self, PyObject *args) {
    return PyLong_FromLongLong(node_count);
}

static PyMethodDef methods[] = {
    {"value", py_value, METH_VARARGS, "value(rules, state) -> game points for the player to move (-3..3)"},
    {"action_values", py_action_values, METH_VARARGS, "action_values(rules, state) -> [(action, value)]"},
    {"solve", py_solve, METH_VARARGS, "solve(rules, state) -> (value, [best actions ascending])"},
    {"nodes", py_nodes, METH_NOARGS, "nodes searched by the last call"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_solver_core", "Compiled alpha-beta core of agents.solver (see agents/solver.py).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__solver_core(void) {
    for (int c = 0; c < NUM_CARDS; c++) {
        int s = c / RANKS_PER_SUIT;
        card_eyes[c] = CARD_EYES_RANK[c % RANKS_PER_SUIT];
        suit_mask[s] |= 1u << c;
    }
    for (int m = 0; m < 64; m++) {
        suit_eyes[m] = 0;
        for (int r = 0; r < RANKS_PER_SUIT; r++) if (m >> r & 1) suit_eyes[m] += CARD_EYES_RANK[r];
    }
    king_bits = 0;
    for (int s = 0; s < NUM_SUITS; s++) king_bits |= 1u << (s * RANKS_PER_SUIT + KING);
    for (int c = 0; c < NUM_CARDS; c++) {
        uint32_t sm = suit_mask[c / RANKS_PER_SUIT];
        higher[c] = sm & ((1u << c) - 1);
        lower[c] = sm & ~((1u << (c + 1)) - 1);
    }
    /* 2 MiB-aligned and, where the kernel allows, backed by huge pages: the table is
     * probed at random and small pages would cost a TLB miss per node */
    void *mem = NULL;
    if (posix_memalign(&mem, HUGE_PAGE, sizeof(Entry) * TT_SIZE) != 0) mem = NULL;
    if (!mem) return PyErr_NoMemory();
#ifdef MADV_HUGEPAGE
    madvise(mem, sizeof(Entry) * TT_SIZE, MADV_HUGEPAGE);
#endif
    tt = (Entry *)mem;
    memset(tt, 0, sizeof(Entry) * TT_SIZE); /* touch every page now, not during the first searches */
    tt_gen = 0;
    return PyModule_Create(&moduledef);
}
