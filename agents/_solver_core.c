/* Compiled core of the perfect-information (double-dummy) Schnapsen solver.
 *
 * An accelerator, not a second rules authority: the rules here mirror
 * schnapsen_env/engine.py (RULES.md §2-§5, every option of §7) and
 * tests/engine/test_core_agreement.py checks legal masks and every action's outcome
 * against the engine state by state (benchmarks/core_agreement.py for more).
 *
 * Interface (agents/solver.py is the only intended caller, and agents/search.py of search_tree and
 * sample_worlds):
 *   - Game constants come from Python: agents/solver.py calls
 *     configure({...}) once at import with schnapsen_env's constants by name.
 *     The rule numbers (CARD_EYES, EYES_TO_WIN, MARRIAGE_EYES,
 *     TRUMP_MARRIAGE_EYES, SCHNEIDER_EYES) are taken from there; the layout
 *     numbers that size arrays and bit tricks (NUM_CARDS, RANKS_PER_SUIT, KING,
 *     QUEEN, the action ids, ...) are compile-time here and configure() raises
 *     RuntimeError when Python's differ. Every other entry point raises
 *     RuntimeError until configure() has run.
 *   - ``rules`` is a schnapsen_env Rules and ``state`` a schnapsen_env
 *     GameState (or any object with the same attributes): their fields are
 *     read BY NAME (interned attribute names: RULE_FIELDS and STATE_FIELDS
 *     below), so the layout is declared once, by GameState's fields. A
 *     missing field raises TypeError and an ill-typed or out-of-range one
 *     TypeError/ValueError, each naming the field.
 *   - ``closers``: bitmask of the players who may close the talon in this
 *     call (bit p: player p; 3 = both), applied where the rules allow closing.
 *
 *   configure(constants: dict) -> None
 *   value(rules, state, closers) -> int          game points for the player to move (-3..3)
 *   action_values(rules, state, closers) -> [(action, value)]
 *   solve(rules, state, closers) -> (value, [best actions ascending])
 *   legal_mask(rules, state, closers) -> int     bitmask over action ids (== GameState.legal_mask()
 *                                                with closers 3); 0 for a terminal state
 *   step(rules, state, action) -> None or (winner, game_points)
 *                                                the action applied to the compact state (both
 *                                                players may close); the outcome if it ends the game
 *   step_fields(rules, state, action) -> dict    the compact state after the action, by GameState
 *                                                field name, plus "outcome": None or (winner, points)
 *   nodes() -> int                               nodes searched by the last search (benchmarks)
 *   search_tree(...) -> (root edges, twister, iterations)
 *                                                agents/search.py's SO-ISMCTS loop in one call, its
 *                                                worlds drawn here (its only caller; see the sections
 *                                                "SO-ISMCTS search loop" and "the worlds of one search")
 *   sample_worlds(worlds, twister) -> (hands, talons, twister)
 *                                                the worlds search_tree draws (for the tests)
 *
 * State: bitmask hands, the talon as a small array with a draw index, small ints.
 * Search: fail-soft negamax alpha-beta over game-point values (-3..+3) with a
 * transposition table (full 128-bit position key, exact match) and move
 * ordering.  One decision may be several atomic actions by the same player
 * (exchange, close, marriage, card): each action is a node and the sign flips
 * only when the player to move changes.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>
#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#endif
#define HUGE_PAGE (2u << 20)

/* Layout numbers: compile-time (array sizes, bit tricks, divisions by constants);
 * configure() checks that schnapsen_env's values are the same. */
#define NUM_CARDS 24
#define RANKS_PER_SUIT 6
#define NUM_SUITS 4
#define KING 2
#define QUEEN 3 /* KING + 1: the marriage test hand & (hand >> 1) relies on it */
#define MARRIAGE_BASE 24
#define EXCHANGE 28
#define CLOSE 29
#define DECLARE 30
#define NUM_ACTIONS 31
#define NO_CARD (-1)
#define NOBODY (-1)
#define MAX_TALON 12
#define MAX_MOVES 32
#define VMAX 3
/* game points (RULES §5), compile-time because the search's value window is built on them;
 * configure() checks they equal schnapsen_env.rulebook's */
#define GP_NO_TRICK 3          /* the loser won no trick */
#define GP_SCHNEIDER 2         /* the loser has a trick and at most SCHNEIDER_EYES */
#define GP_PLAIN 1             /* the loser has more */
#define GP_LAST_TRICK 1        /* the winner of the last trick, talon not closed */
#define GP_CLOSING_FAILED 2    /* the closer's opponent, who had a trick at closing */
#define GP_CLOSING_FAILED_NO_TRICK 3
#define GP_FIXED_FALSE_DECLARATION 2 /* false_declaration_points=2 */
#define VMIN (-3)

/* Rule numbers: from Python (configure); the transposition key packs eyes in 8 bits
 * and held marriage eyes in 7, which configure() checks the numbers allow. */
static int configured;
static int EYES_TO_WIN, MARRIAGE_EYES, TRUMP_MARRIAGE_EYES, SCHNEIDER_EYES;
static int card_eyes[NUM_CARDS];

typedef struct {
    int sharp, manual, fdp_fixed, later, allow_close, king_only, credit_next, bonus, exrank;
} Rules;

typedef struct {
    uint32_t hand[2];
    int8_t talon[MAX_TALON];
    int8_t talon_len, talon_pos;
    int8_t trump_card, trump, leader, current_player, lead_card, pending;
    int16_t eyes[2], held[2];
    int8_t tw[2];
    int8_t closed_by, closed_opp_trick;
    int16_t closed_opp_eyes;
    int8_t winner, points; /* winner -1 while playing */
} State;

static Rules R;
static uint32_t suit_mask[NUM_SUITS];
static uint32_t higher[NUM_CARDS], lower[NUM_CARDS];
static uint32_t king_bits;
static long long node_count;

/* ------------------------------------------------------------ rules */
static int game_points_for(int loser_eyes, int loser_has_trick) {
    if (!loser_has_trick) return GP_NO_TRICK;
    if (loser_eyes <= SCHNEIDER_EYES) return GP_SCHNEIDER;
    return GP_PLAIN;
}

static void end_game(State *s, int winner, int pts) {
    s->winner = (int8_t)winner;
    s->points = (int8_t)pts;
    s->current_player = -1;
}

static void closing_failed(State *s) {
    end_game(s, 1 - s->closed_by, s->closed_opp_trick ? GP_CLOSING_FAILED : GP_CLOSING_FAILED_NO_TRICK);
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
        int pts = R.fdp_fixed ? GP_FIXED_FALSE_DECLARATION : game_points_for(s->eyes[o], s->tw[o] > 0);
        end_game(s, o, pts);
    } else if (d == c) {
        closing_failed(s);
    } else {
        end_game(s, c, R.fdp_fixed ? GP_FIXED_FALSE_DECLARATION : (s->closed_opp_trick ? GP_CLOSING_FAILED : GP_CLOSING_FAILED_NO_TRICK));
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
    s->current_player = (int8_t)w;
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
            else end_game(s, w, GP_LAST_TRICK);
        } else if (w == s->closed_by && s->eyes[w] >= EYES_TO_WIN) {
            reach_66(s, w);
        } else {
            closing_failed(s);
        }
    }
}

static void apply(State *s, int a) {
    int p = s->current_player;
    if (a < MARRIAGE_BASE) {
        s->hand[p] ^= 1u << a;
        if (s->lead_card < 0) {
            s->lead_card = (int8_t)a;
            s->pending = -1;
            s->current_player = (int8_t)(1 - p);
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
    int p = s->current_player;
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

#define TT_BITS 18  /* the largest part in use (new_generation): 24-card deals */
#define TT_SIZE (1u << TT_BITS)
static Entry *tt;
static uint32_t tt_gen;

/* which world's talon the table's talon-open positions belong to: 0 in a solve of one state; in the search
 * loop (search_tree) one tag per distinct talon, so that one table serves all its worlds: a position whose
 * talon is closed or exhausted has the same value in every world (the key holds both hands), one whose talon
 * is open only in the worlds with its talon. Below 2^WORLD_TAG_BITS; key bits WORLD_TAG_SHIFT.. */
#define WORLD_TAG_SHIFT 47
#define WORLD_TAG_BITS 17
static uint64_t world_tag;

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
static int order_moves(const State *s, uint32_t mask, int tt_best, int *moves) {
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
static int search(const State *s, int alpha, int beta);

/* value of action a in s for the player to move in s; child searched with (alpha, beta) */
static inline int child_value(const State *s, int a, int alpha, int beta) {
    State c = *s;
    int p = s->current_player;
    apply(&c, a);
    if (c.winner >= 0) return c.winner == p ? c.points : -c.points;
    if (c.current_player == p) return search(&c, alpha, beta);
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
static void new_generation(const State *s) {
    int cards = cards_left(s);
    int bits = cards <= SMALL_SEARCH_CARDS ? SMALL_TT_BITS : cards <= DEAL_CARDS ? DEAL_TT_BITS : DEAL_TT_BITS_24;
    tt_mask = (1u << bits) - 1;
    tt_gen++;
    if (tt_gen == 0) { memset(tt, 0, sizeof(Entry) * TT_SIZE); tt_gen = 1; }
}

/* start a new search of s */
static void new_search(const State *s) {
    new_generation(s);
    node_count = 0;
}

/* ------------------------------------------------------------ Python glue */

/* The fields read, by name. State: GameState's attributes (schnapsen_env/engine.py,
 * __slots__); rules: Rules' options and derived attributes (schnapsen_env/rules.py). */
enum {
    S_HANDS, S_TALON, S_TALON_POS, S_TRUMP_CARD, S_TRUMP_SUIT, S_LEADER, S_CURRENT_PLAYER, S_LEAD_CARD,
    S_PENDING_MARRIAGE, S_EYES, S_HELD_MARRIAGE_EYES, S_TRICKS_WON, S_CLOSED_BY, S_CLOSED_OPPONENT_EYES,
    S_CLOSED_OPPONENT_HAD_TRICK, N_STATE_FIELDS
};
static const char *const STATE_FIELDS[N_STATE_FIELDS] = {
    "hands", "talon", "talon_pos", "trump_card", "trump_suit", "leader", "current_player", "lead_card",
    "pending_marriage", "eyes", "held_marriage_eyes", "tricks_won", "closed_by", "closed_opponent_eyes",
    "closed_opponent_had_trick",
};
enum {
    R_SHARP, R_MANUAL_DECLARE, R_FALSE_DECLARATION_POINTS, R_CLOSING_COUNTS_LATER_EYES, R_ALLOW_CLOSING,
    R_KING_ONLY, R_CREDIT_MARRIAGE_AT_ONCE, R_LAST_TRICK_BONUS, R_EXCHANGE_RANK, N_RULE_FIELDS
};
static const char *const RULE_FIELDS[N_RULE_FIELDS] = {
    "sharp", "manual_declare", "false_declaration_points", "closing_counts_later_eyes", "allow_closing",
    "king_only", "credit_marriage_at_once", "last_trick_bonus", "exchange_rank",
};
/* interned at module init */
static PyObject *state_name[N_STATE_FIELDS], *rule_name[N_RULE_FIELDS], *outcome_name, *as_if_correct;

/* the largest eyes / held marriage eyes the transposition key can hold (8 and 7 bits) */
#define KEY_EYES_MAX 255
#define KEY_HELD_MAX 127
/* the largest last-trick bonus the key allows on top of all cards and marriages (set by configure) */
static int bonus_max;

static int check_configured(void) {
    if (configured) return 0;
    PyErr_SetString(PyExc_RuntimeError,
                    "agents._solver_core is not configured: call configure() first (agents.solver does at import)");
    return -1;
}

/* attribute `name` of obj (new reference); TypeError naming the field when it is missing */
static PyObject *get_field(PyObject *obj, PyObject *name, const char *kind) {
    PyObject *v = PyObject_GetAttr(obj, name);
    if (!v && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s has no field %R (expected a schnapsen_env %s, got %.100s)", kind, name,
                     kind, Py_TYPE(obj)->tp_name);
    }
    return v;
}

/* v as an int in lo..hi; TypeError / ValueError naming the field otherwise */
static int int_in(PyObject *v, PyObject *name, const char *kind, long lo, long hi, long *out) {
    if (!PyLong_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s field %R must be an int, got %.100s", kind, name, Py_TYPE(v)->tp_name);
        return -1;
    }
    int overflow;
    long x = PyLong_AsLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow || x < lo || x > hi) {
        PyErr_Format(PyExc_ValueError, "%s field %R must be in %ld..%ld, got %R", kind, name, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

static int int_field(PyObject *obj, PyObject *name, const char *kind, long lo, long hi, long *out) {
    PyObject *v = get_field(obj, name, kind);
    if (!v) return -1;
    int r = int_in(v, name, kind, lo, hi, out);
    Py_DECREF(v);
    return r;
}

/* a per-player field: a list or tuple of 2 ints in lo..hi */
static int pair_field(PyObject *obj, PyObject *name, long lo, long hi, long out[2]) {
    PyObject *v = get_field(obj, name, "GameState");
    if (!v) return -1;
    int r = -1;
    if (!(PyList_Check(v) || PyTuple_Check(v)) || PySequence_Fast_GET_SIZE(v) != 2) {
        PyErr_Format(PyExc_TypeError, "GameState field %R must be a list or tuple of 2 ints (one per player), got %.100s",
                     name, Py_TYPE(v)->tp_name);
    } else if (int_in(PySequence_Fast_GET_ITEM(v, 0), name, "GameState", lo, hi, &out[0]) == 0 &&
               int_in(PySequence_Fast_GET_ITEM(v, 1), name, "GameState", lo, hi, &out[1]) == 0) {
        r = 0;
    }
    Py_DECREF(v);
    return r;
}

/* R from a Rules object (read by name); closers: bit p = player p may close, where the rules allow it */
static int parse_rules(PyObject *obj, long closers) {
    long v[N_RULE_FIELDS];
    for (int i = 0; i < N_RULE_FIELDS; i++) {
        if (i == R_FALSE_DECLARATION_POINTS) continue;
        long lo = 0, hi = 1;
        if (i == R_LAST_TRICK_BONUS) hi = bonus_max;
        if (i == R_EXCHANGE_RANK) hi = RANKS_PER_SUIT - 1;
        if (int_field(obj, rule_name[i], "Rules", lo, hi, &v[i]) < 0) return -1;
    }
    /* false_declaration_points: "as_if_correct" or 2 (RULES §7) */
    PyObject *f = get_field(obj, rule_name[R_FALSE_DECLARATION_POINTS], "Rules");
    if (!f) return -1;
    int fixed = -1;
    if (PyUnicode_Check(f) && PyUnicode_Compare(f, as_if_correct) == 0) fixed = 0;
    else if (PyLong_Check(f) && !PyBool_Check(f) && PyLong_AsLong(f) == 2) fixed = 1;
    PyErr_Clear(); /* an int too large for PyLong_AsLong is simply not 2 */
    if (fixed < 0) {
        PyErr_Format(PyExc_ValueError, "Rules field %R must be \"as_if_correct\" or 2, got %R",
                     rule_name[R_FALSE_DECLARATION_POINTS], f);
        Py_DECREF(f);
        return -1;
    }
    Py_DECREF(f);
    R.sharp = (int)v[R_SHARP];
    R.manual = (int)v[R_MANUAL_DECLARE];
    R.fdp_fixed = fixed;
    R.later = (int)v[R_CLOSING_COUNTS_LATER_EYES];
    R.allow_close = v[R_ALLOW_CLOSING] ? (int)closers : 0;
    R.king_only = (int)v[R_KING_ONLY];
    R.credit_next = !v[R_CREDIT_MARRIAGE_AT_ONCE];
    R.bonus = (int)v[R_LAST_TRICK_BONUS];
    R.exrank = (int)v[R_EXCHANGE_RANK];
    return 0;
}

/* *s from a GameState (read by name). A terminal state (current_player NOBODY) is an
 * error unless allow_terminal. */
static int parse_state(PyObject *obj, State *s, int allow_terminal) {
    static const long lo[N_STATE_FIELDS] = {
        [S_TALON_POS] = 0, [S_TRUMP_CARD] = NO_CARD, [S_TRUMP_SUIT] = 0, [S_LEADER] = 0,
        [S_CURRENT_PLAYER] = NOBODY, [S_LEAD_CARD] = NO_CARD, [S_PENDING_MARRIAGE] = -1, [S_CLOSED_BY] = NOBODY,
        [S_CLOSED_OPPONENT_EYES] = 0, [S_CLOSED_OPPONENT_HAD_TRICK] = 0,
    };
    static const long hi[N_STATE_FIELDS] = {
        [S_TALON_POS] = MAX_TALON, [S_TRUMP_CARD] = NUM_CARDS - 1, [S_TRUMP_SUIT] = NUM_SUITS - 1, [S_LEADER] = 1,
        [S_CURRENT_PLAYER] = 1, [S_LEAD_CARD] = NUM_CARDS - 1, [S_PENDING_MARRIAGE] = NUM_SUITS - 1,
        [S_CLOSED_BY] = 1, [S_CLOSED_OPPONENT_EYES] = KEY_EYES_MAX, [S_CLOSED_OPPONENT_HAD_TRICK] = 1,
    };
    long v[N_STATE_FIELDS], hands[2], eyes[2], held[2], tw[2];
    for (int i = 0; i < N_STATE_FIELDS; i++) {
        switch (i) {
        case S_HANDS: case S_TALON: case S_EYES: case S_HELD_MARRIAGE_EYES: case S_TRICKS_WON: continue;
        default:
            if (int_field(obj, state_name[i], "GameState", lo[i], hi[i], &v[i]) < 0) return -1;
        }
    }
    if (pair_field(obj, state_name[S_HANDS], 0, (1L << NUM_CARDS) - 1, hands) < 0 ||
        pair_field(obj, state_name[S_EYES], 0, KEY_EYES_MAX, eyes) < 0 ||
        pair_field(obj, state_name[S_HELD_MARRIAGE_EYES], 0, KEY_HELD_MAX, held) < 0 ||
        pair_field(obj, state_name[S_TRICKS_WON], 0, NUM_CARDS / 2, tw) < 0)
        return -1;
    memset(s, 0, sizeof(*s));
    PyObject *talon = get_field(obj, state_name[S_TALON], "GameState");
    if (!talon) return -1;
    if (!(PyTuple_Check(talon) || PyList_Check(talon)) || PySequence_Fast_GET_SIZE(talon) > MAX_TALON) {
        PyErr_Format(PyExc_TypeError, "GameState field %R must be a tuple of at most %d card ids, got %.100s",
                     state_name[S_TALON], MAX_TALON, Py_TYPE(talon)->tp_name);
        Py_DECREF(talon);
        return -1;
    }
    s->talon_len = (int8_t)PySequence_Fast_GET_SIZE(talon);
    for (int i = 0; i < s->talon_len; i++) {
        long c;
        if (int_in(PySequence_Fast_GET_ITEM(talon, i), state_name[S_TALON], "GameState", 0, NUM_CARDS - 1, &c) < 0) {
            Py_DECREF(talon);
            return -1;
        }
        s->talon[i] = (int8_t)c;
    }
    Py_DECREF(talon);
    if (v[S_TALON_POS] > s->talon_len) {
        PyErr_Format(PyExc_ValueError, "GameState field %R must be in 0..len(talon) = 0..%d, got %ld",
                     state_name[S_TALON_POS], s->talon_len, v[S_TALON_POS]);
        return -1;
    }
    if (v[S_CURRENT_PLAYER] == NOBODY && !allow_terminal) {
        PyErr_SetString(PyExc_ValueError, "the state is terminal (no player to move): nothing to solve");
        return -1;
    }
    s->hand[0] = (uint32_t)hands[0];
    s->hand[1] = (uint32_t)hands[1];
    s->talon_pos = (int8_t)v[S_TALON_POS];
    s->trump_card = (int8_t)v[S_TRUMP_CARD];
    s->trump = (int8_t)v[S_TRUMP_SUIT];
    s->leader = (int8_t)v[S_LEADER];
    s->current_player = (int8_t)v[S_CURRENT_PLAYER];
    s->lead_card = (int8_t)v[S_LEAD_CARD];
    s->pending = (int8_t)v[S_PENDING_MARRIAGE];
    s->eyes[0] = (int16_t)eyes[0]; s->eyes[1] = (int16_t)eyes[1];
    s->held[0] = (int16_t)held[0]; s->held[1] = (int16_t)held[1];
    s->tw[0] = (int8_t)tw[0]; s->tw[1] = (int8_t)tw[1];
    s->closed_by = (int8_t)v[S_CLOSED_BY];
    s->closed_opp_eyes = (int16_t)v[S_CLOSED_OPPONENT_EYES];
    s->closed_opp_trick = (int8_t)v[S_CLOSED_OPPONENT_HAD_TRICK];
    s->winner = -1;
    return 0;
}

/* (rules, state, closers) of a search or legal_mask call */
static int parse_search(PyObject *rules, PyObject *state, long closers, State *s, int allow_terminal) {
    if (check_configured() < 0) return -1;
    if (closers < 0 || closers > 3) {
        PyErr_Format(PyExc_ValueError, "closers must be a bitmask in 0..3 (bit p: player p may close), got %ld",
                     closers);
        return -1;
    }
    if (parse_rules(rules, closers) < 0) return -1;
    if (parse_state(state, s, allow_terminal) < 0) return -1;
    return 0;
}

static int parse_args(PyObject *args, State *s, int allow_terminal) {
    PyObject *rules, *state;
    long closers;
    if (!PyArg_ParseTuple(args, "OOl", &rules, &state, &closers)) return -1;
    return parse_search(rules, state, closers, s, allow_terminal);
}

static PyObject *py_value(PyObject *self, PyObject *args) {
    State s;
    if (parse_args(args, &s, 0) < 0) return NULL;
    new_search(&s);
    int v = exact_value(&s);
    return PyLong_FromLong(v);
}

/* each legal action's exact value, or with win_only its sign alone (1 wins, -1 loses: one null-window test) */
static int root_values(const State *s, int win_only, int *acts, int *vals) {
    int moves[MAX_MOVES];
    int n = order_moves(s, legal_mask(s), -1, moves);
    for (int i = 0; i < n; i++) {
        acts[i] = moves[i];
        vals[i] = win_only ? (child_value(s, moves[i], 0, 1) >= 1 ? 1 : -1) : exact_child(s, moves[i]);
    }
    return n;
}

/* [(action, value)] of every legal action of s, searched in the current table generation */
static PyObject *py_action_values_of(const State *s, int win_only) {
    int acts[MAX_MOVES], vals[MAX_MOVES];
    int n = root_values(s, win_only, acts, vals);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *pair = Py_BuildValue("(ii)", acts[i], vals[i]);
        if (!pair) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, pair);
    }
    return out;
}

static PyObject *py_action_values(PyObject *self, PyObject *args) {
    State s;
    PyObject *rules, *state;
    long closers;
    int win_only = 0;
    if (!PyArg_ParseTuple(args, "OOl|p", &rules, &state, &closers, &win_only)) return NULL;
    if (parse_search(rules, state, closers, &s, 0) < 0) return NULL;
    new_search(&s);
    return py_action_values_of(&s, win_only);
}

/* deal_action_values(rules, state, closers, generation): action_values with the table of `generation` kept
 * when it is still the current one (no other search since; 0: none), else a new generation. The caller passes only states of one deal (same talon, trump,
 * rules and closers): the key leaves those out. Returns (generation, [(action, value)]). */
static PyObject *py_deal_action_values(PyObject *self, PyObject *args) {
    State s;
    PyObject *rules, *state;
    long closers;
    unsigned long gen;
    if (!PyArg_ParseTuple(args, "OOlk", &rules, &state, &closers, &gen)) return NULL;
    if (parse_search(rules, state, closers, &s, 0) < 0) return NULL;
    if (gen == 0 || gen != tt_gen) new_generation(&s);  /* table part fixed until the next generation */
    node_count = 0;
    PyObject *values = py_action_values_of(&s, 0);
    if (!values) return NULL;
    return Py_BuildValue("(kN)", (unsigned long)tt_gen, values);
}

static PyObject *py_solve(PyObject *self, PyObject *args) {
    State s;
    if (parse_args(args, &s, 0) < 0) return NULL;
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
    for (int i = 0; i < nb; i++) {
        PyObject *a = PyLong_FromLong(best[i]);
        if (!a) { Py_DECREF(lst); return NULL; }
        PyList_SET_ITEM(lst, i, a);
    }
    return Py_BuildValue("(iN)", v, lst);
}

static PyObject *py_legal_mask(PyObject *self, PyObject *args) {
    State s;
    if (parse_args(args, &s, 1) < 0) return NULL;
    return PyLong_FromUnsignedLong(legal_mask(&s));
}

/* (rules, state, action) of step / step_fields: s after the action (both players may close) */
static int parse_step(PyObject *args, State *s) {
    PyObject *rules, *state;
    long a;
    if (check_configured() < 0) return -1;
    if (!PyArg_ParseTuple(args, "OOl", &rules, &state, &a)) return -1;
    if (parse_rules(rules, 3) < 0) return -1;
    if (parse_state(state, s, 1) < 0) return -1;
    if (s->current_player < 0) {
        PyErr_SetString(PyExc_ValueError, "the game is over: no action can be applied");
        return -1;
    }
    uint32_t m = legal_mask(s);
    if (a < 0 || a >= NUM_ACTIONS || !(m >> a & 1)) {
        PyErr_Format(PyExc_ValueError, "action %ld is not legal in this state (legal mask of the core: 0x%lx)", a,
                     (unsigned long)m);
        return -1;
    }
    apply(s, (int)a);
    return 0;
}

static PyObject *outcome_of(const State *s) {
    if (s->winner < 0) Py_RETURN_NONE;
    return Py_BuildValue("(ii)", s->winner, s->points);
}

static PyObject *py_step(PyObject *self, PyObject *args) {
    State s;
    if (parse_step(args, &s) < 0) return NULL;
    return outcome_of(&s);
}

static int set_item(PyObject *d, PyObject *key, PyObject *value) {
    if (!value) return -1;
    int r = PyDict_SetItem(d, key, value);
    Py_DECREF(value);
    return r;
}

static PyObject *py_step_fields(PyObject *self, PyObject *args) {
    State s;
    if (parse_step(args, &s) < 0) return NULL;
    PyObject *d = PyDict_New(), *talon = PyTuple_New(s.talon_len);
    if (!d || !talon) { Py_XDECREF(d); Py_XDECREF(talon); return NULL; }
    for (int i = 0; i < s.talon_len; i++) {
        PyObject *c = PyLong_FromLong(s.talon[i]);
        if (!c) { Py_DECREF(d); Py_DECREF(talon); return NULL; }
        PyTuple_SET_ITEM(talon, i, c);
    }
    if (set_item(d, state_name[S_HANDS], Py_BuildValue("[kk]", (unsigned long)s.hand[0], (unsigned long)s.hand[1])) ||
        set_item(d, state_name[S_TALON], talon) ||
        set_item(d, state_name[S_TALON_POS], PyLong_FromLong(s.talon_pos)) ||
        set_item(d, state_name[S_TRUMP_CARD], PyLong_FromLong(s.trump_card)) ||
        set_item(d, state_name[S_TRUMP_SUIT], PyLong_FromLong(s.trump)) ||
        set_item(d, state_name[S_LEADER], PyLong_FromLong(s.leader)) ||
        set_item(d, state_name[S_CURRENT_PLAYER], PyLong_FromLong(s.current_player)) ||
        set_item(d, state_name[S_LEAD_CARD], PyLong_FromLong(s.lead_card)) ||
        set_item(d, state_name[S_PENDING_MARRIAGE], PyLong_FromLong(s.pending)) ||
        set_item(d, state_name[S_EYES], Py_BuildValue("[ii]", s.eyes[0], s.eyes[1])) ||
        set_item(d, state_name[S_HELD_MARRIAGE_EYES], Py_BuildValue("[ii]", s.held[0], s.held[1])) ||
        set_item(d, state_name[S_TRICKS_WON], Py_BuildValue("[ii]", s.tw[0], s.tw[1])) ||
        set_item(d, state_name[S_CLOSED_BY], PyLong_FromLong(s.closed_by)) ||
        set_item(d, state_name[S_CLOSED_OPPONENT_EYES], PyLong_FromLong(s.closed_opp_eyes)) ||
        set_item(d, state_name[S_CLOSED_OPPONENT_HAD_TRICK], PyBool_FromLong(s.closed_opp_trick)) ||
        set_item(d, outcome_name, outcome_of(&s))) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

/* ------------------------------------------------------------ SO-ISMCTS search loop */
/* agents/search.py's tree walk (SearchAgent._root_edges_python, the reference) in one call per decision:
 * the same iterations over the same worlds, drawing the same random numbers from the same Mersenne Twister
 * stream as Python's random.Random, and the same floating-point sums, so that it returns the same counts.
 * The worlds are drawn here too (draw_worlds, below: the same worlds as agents/search.py's SearchAgent.worlds). */

#define MT_WORDS 624        /* MT19937 state words (random.Random.getstate()[1][:624]) */
#define MT_SHIFT 397        /* MT19937's middle word offset */
#define MT_MATRIX 0x9908b0dfu
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu
#define MT_TEMPER_B 0x9d2c5680u /* MT19937's tempering masks */
#define MT_TEMPER_C 0xefc60000u
#define NO_NODE (-1)
#define NO_EDGE (-1)
#define ROOT_NODE 0
#define MAX_GAME_ACTIONS 64 /* more than any game's actions: 24 cards, 4 marriages, exchange, close, declare */
#define TREE_START_CAPACITY 1024
#define NS_PER_S 1000000000LL

/* random.Random's generator (CPython Modules/_randommodule.c), state taken from and given back to Python */
typedef struct {
    uint32_t words[MT_WORDS]; /* the generator's words, as in getstate() */
    int index;                /* the next word to temper, 0..MT_WORDS (MT_WORDS: regenerate the words first) */
} Twister;

static uint32_t twister_next(Twister *twister) {
    static const uint32_t matrix_if_odd[2] = {0u, MT_MATRIX};
    uint32_t *mt = twister->words;
    uint32_t y;
    if (twister->index >= MT_WORDS) {
        int k;
        for (k = 0; k < MT_WORDS - MT_SHIFT; k++) {
            y = (mt[k] & MT_UPPER) | (mt[k + 1] & MT_LOWER);
            mt[k] = mt[k + MT_SHIFT] ^ (y >> 1) ^ matrix_if_odd[y & 1u];
        }
        for (; k < MT_WORDS - 1; k++) {
            y = (mt[k] & MT_UPPER) | (mt[k + 1] & MT_LOWER);
            mt[k] = mt[k + (MT_SHIFT - MT_WORDS)] ^ (y >> 1) ^ matrix_if_odd[y & 1u];
        }
        y = (mt[MT_WORDS - 1] & MT_UPPER) | (mt[0] & MT_LOWER);
        mt[MT_WORDS - 1] = mt[MT_SHIFT - 1] ^ (y >> 1) ^ matrix_if_odd[y & 1u];
        twister->index = 0;
    }
    y = mt[twister->index++];
    y ^= y >> 11;
    y ^= (y << 7) & MT_TEMPER_B;
    y ^= (y << 15) & MT_TEMPER_C;
    y ^= y >> 18;
    return y;
}

/* random.Random._randbelow(n) (randrange(n)) for 1 <= n < 2^31: getrandbits(n.bit_length()) until below n */
static int twister_below(Twister *twister, int n) {
    int bits = 32 - __builtin_clz((unsigned)n);
    uint32_t r = twister_next(twister) >> (32 - bits);
    while (r >= (uint32_t)n) r = twister_next(twister) >> (32 - bits);
    return (int)r;
}

/* one action of a node (search.py's _Edge) */
typedef struct {
    int visits;      /* iterations backed up through it (0 only until its first iteration ends) */
    double reward;   /* their total reward (each 0..1) for the player who chose the action */
    int available;   /* iterations that visited its node with the action legal (>= visits, >= 1) */
    int first_child; /* the first node after the action (NO_NODE: none yet); one per hand of the viewer, linked
                        by Node.next_sibling */
} Edge;

/* one information set of the viewer: the actions since the root and the viewer's hand */
typedef struct {
    uint32_t hand;            /* the viewer's hand here (the key among the nodes after one edge) */
    int next_sibling;         /* the next node after the same edge, another hand (NO_NODE: the last) */
    int edge_of[NUM_ACTIONS]; /* each action's edge (index into Tree.edges), NO_EDGE while not added */
    int edge_count;           /* actions added so far (0: a new node) */
} Node;

/* the tree of one search; the arrays grow as needed (PyMem) */
typedef struct {
    Node *nodes;       /* nodes[ROOT_NODE] is the root */
    int node_count;    /* nodes in use, <= node_capacity */
    int node_capacity; /* nodes allocated */
    Edge *edges;       /* in the order they were added */
    int edge_count;    /* edges in use, <= edge_capacity */
    int edge_capacity; /* edges allocated */
} Tree;

/* one step of an iteration's path, backed up at its end */
typedef struct {
    int edge; /* the edge taken (index into Tree.edges) */
    int mine; /* whether the viewer chose it (else the opponent: the reward is 1 - the viewer's) */
} Step;

/* the options of one search (SearchAgent's), fixed for its iterations */
typedef struct {
    Rules tree_rules;  /* the rules in the tree: every player may close where the rules allow it */
    Rules leaf_rules;  /* the rules at the leaves: only the `closers` (bitmask) may close */
    int viewer;        /* the searching player (0 or 1) */
    double exploration; /* UCB1's constant c (>= 0) */
    int win_reward;    /* objective "win": reward 1 for a won game, else 0; else game points scaled to 0..1 */
    int win_only;      /* leaves valued by win or loss only (+1 / -1 game points) */
    int expand_all;    /* a new node values every action (expand="all"); else one action per iteration */
    int rollout_leaves; /* leaf="rollout": a talon-open leaf is played on by rollout_action until the talon is
                           exhausted or closed, then solved; else (leaf="exact") solved where it is */
} SearchOptions;

static int tree_new_node(Tree *tree, uint32_t hand) {
    if (tree->node_count == tree->node_capacity) {
        int capacity = tree->node_capacity ? 2 * tree->node_capacity : TREE_START_CAPACITY;
        Node *grown = PyMem_Realloc(tree->nodes, sizeof(Node) * (size_t)capacity);
        if (!grown) return NO_NODE;
        tree->nodes = grown;
        tree->node_capacity = capacity;
    }
    int index = tree->node_count++;
    Node *node = &tree->nodes[index];
    node->hand = hand;
    node->next_sibling = NO_NODE;
    for (int a = 0; a < NUM_ACTIONS; a++) node->edge_of[a] = NO_EDGE;
    node->edge_count = 0;
    return index;
}

/* a new edge for `action` in node `node_index`: its index, or NO_EDGE when out of memory */
static int tree_new_edge(Tree *tree, int node_index, int action, int visits, double reward) {
    if (tree->edge_count == tree->edge_capacity) {
        int capacity = tree->edge_capacity ? 2 * tree->edge_capacity : TREE_START_CAPACITY;
        Edge *grown = PyMem_Realloc(tree->edges, sizeof(Edge) * (size_t)capacity);
        if (!grown) return NO_EDGE;
        tree->edges = grown;
        tree->edge_capacity = capacity;
    }
    int index = tree->edge_count++;
    Edge *edge = &tree->edges[index];
    edge->visits = visits;
    edge->reward = reward;
    edge->available = 1;
    edge->first_child = NO_NODE;
    Node *node = &tree->nodes[node_index];
    node->edge_of[action] = index;
    node->edge_count++;
    return index;
}

/* the node after edge `edge_index` for the viewer's `hand`, added when new (NO_NODE: out of memory) */
static int tree_child(Tree *tree, int edge_index, uint32_t hand) {
    int last = NO_NODE;
    for (int n = tree->edges[edge_index].first_child; n != NO_NODE; n = tree->nodes[n].next_sibling) {
        if (tree->nodes[n].hand == hand) return n;
        last = n;
    }
    int child = tree_new_node(tree, hand);
    if (child == NO_NODE) return NO_NODE;
    if (last == NO_NODE) tree->edges[edge_index].first_child = child;
    else tree->nodes[last].next_sibling = child;
    return child;
}

/* reward (0..1) of `points` game points (-3..3) for a player, under the objective */
static double reward_of(const SearchOptions *options, int points) {
    return options->win_reward ? (double)(points > 0) : (points + VMAX) / (2.0 * VMAX);
}

/* UCB1 with availability counts (search.py's _ucb; same operations, same rounding) */
static double ucb(const Edge *edge, double exploration) {
    return edge->reward / edge->visits + exploration * sqrt(log((double)edge->available) / edge->visits);
}

#define TEN_EYES 10        /* a lead worth this many eyes or more (an ace or a ten) is trumped in a rollout */
#define TRUMP_SORT_KEY 16  /* more than any card's eyes: trumps after every other card in cheapest_card */

/* the card of `cards` (a non-empty mask) a rollout gives up most readily: a non-trump before a trump, then
 * fewer eyes, then the lower id (search.py's _cheapest_card) */
static int cheapest_card(uint32_t cards, int trump) {
    int best = NO_CARD, best_key = 0;
    for (uint32_t m = cards; m; m &= m - 1) {
        int card = __builtin_ctz(m);
        int key = (card / RANKS_PER_SUIT == trump) * TRUMP_SORT_KEY + card_eyes[card];
        if (best == NO_CARD || key < best_key) { best = card; best_key = key; }
    }
    return best;
}

/* the rollout policy, the same for both players, in a talon-open state of the leaf rules (search.py's
 * _rollout_action): declare 66 when reached, exchange, announce a marriage (trump first, else the lowest
 * suit); lead the cheapest card; follow with the cheapest card of the led suit that wins, else the cheapest
 * trump on an ace or ten, else the cheapest card. It never closes. */
static int rollout_action(const State *s) {
    uint32_t legal = legal_mask(s);
    int player = s->current_player;
    if ((legal >> DECLARE & 1) && s->eyes[player] >= EYES_TO_WIN) return DECLARE;
    if (legal >> EXCHANGE & 1) return EXCHANGE;
    uint32_t marriages = legal >> MARRIAGE_BASE & ((1u << NUM_SUITS) - 1);
    if (marriages) return MARRIAGE_BASE + ((marriages >> s->trump & 1) ? s->trump : __builtin_ctz(marriages));
    uint32_t cards = legal & ((1u << NUM_CARDS) - 1);
    int lead = s->lead_card;
    if (lead < 0) return cheapest_card(cards, s->trump);
    int lead_suit = lead / RANKS_PER_SUIT;
    uint32_t winners = cards & higher[lead];
    if (winners) return cheapest_card(winners, s->trump);
    uint32_t trumps = cards & suit_mask[s->trump];
    if (lead_suit != s->trump && card_eyes[lead] >= TEN_EYES && trumps) return cheapest_card(trumps, s->trump);
    return cheapest_card(cards, s->trump);
}

/* game points for the viewer of s (changed), valued with the leaf rules: its outcome when terminal, else, after
 * the rollout under leaf="rollout", the solver's value (with win_only: only its sign, the same reward under
 * objective "win") (search.py's _value_for) */
static int value_for_viewer(State *s, const SearchOptions *options) {
    R = options->leaf_rules;
    if (options->rollout_leaves) {
        while (s->winner < 0 && s->closed_by < 0 && s->trump_card >= 0) apply(s, rollout_action(s));
    }
    if (s->winner >= 0) return s->winner == options->viewer ? s->points : -s->points;
    int value;
    if (options->rollout_leaves && options->win_only) value = search(s, 0, 1) >= 1 ? 1 : -1;
    else value = exact_value(s);
    return s->current_player == options->viewer ? value : -value;
}

/* root_values for leaf="rollout": each legal action of s (ascending) applied, then valued by value_for_viewer,
 * for the player to move in s */
static int rollout_root_values(const State *s, const SearchOptions *options, int *acts, int *vals) {
    int n = 0, mover = s->current_player;
    R = options->leaf_rules;
    for (uint32_t m = legal_mask(s); m; m &= m - 1) {
        State child = *s;
        acts[n] = __builtin_ctz(m);
        apply(&child, acts[n]);
        int points = value_for_viewer(&child, options);
        vals[n] = mover == options->viewer ? points : -points;
        n++;
    }
    return n;
}

/* values every action of the new node `node_index` in world s (expand="all"): one edge per action, ascending,
 * with one visit; returns the best value's game points for the viewer, or VMIN - 1 when out of memory */
static int expand_node(Tree *tree, int node_index, State *s, const SearchOptions *options) {
    int acts[MAX_MOVES], vals[MAX_MOVES], mover = s->current_player;
    R = options->leaf_rules;
    int n;
    if (options->rollout_leaves) n = rollout_root_values(s, options, acts, vals);
    else n = root_values(s, options->win_only, acts, vals);
    int value_of[NUM_ACTIONS], best = VMIN - 1;
    uint32_t added = 0;
    for (int i = 0; i < n; i++) {
        value_of[acts[i]] = vals[i];
        added |= 1u << acts[i];
        if (vals[i] > best) best = vals[i];
    }
    for (uint32_t m = added; m; m &= m - 1) {
        int a = __builtin_ctz(m);
        if (tree_new_edge(tree, node_index, a, 1, reward_of(options, value_of[a])) == NO_EDGE) return VMIN - 1;
    }
    return mover == options->viewer ? best : -best;
}

/* one iteration in world s (changed): select, expand, value, back up. 0, or -1 when out of memory */
static int iterate(Tree *tree, State *s, const SearchOptions *options, Twister *twister) {
    Step path[MAX_GAME_ACTIONS];
    int depth = 0, node_index = ROOT_NODE, points, valued = 0;
    for (;;) {
        if (options->expand_all && tree->nodes[node_index].edge_count == 0) {
            points = expand_node(tree, node_index, s, options);
            if (points < VMIN) return -1;
            valued = 1;
            break;
        }
        R = options->tree_rules;
        uint32_t legal = legal_mask(s), untried = 0;
        int untried_count = 0;
        for (uint32_t m = legal; m; m &= m - 1) {
            int a = __builtin_ctz(m);
            int e = tree->nodes[node_index].edge_of[a];
            if (e != NO_EDGE) tree->edges[e].available++;
            else { untried |= 1u << a; untried_count++; }
        }
        int action, edge_index;
        if (untried_count) {
            int pick = untried_count > 1 ? twister_below(twister, untried_count) : 0;
            for (int i = 0; i < pick; i++) untried &= untried - 1;
            action = __builtin_ctz(untried);
            edge_index = tree_new_edge(tree, node_index, action, 0, 0.0);
            if (edge_index == NO_EDGE) return -1;
        } else {
            double best = 0.0;
            action = -1;
            for (uint32_t m = legal; m; m &= m - 1) {
                int a = __builtin_ctz(m);
                double u = ucb(&tree->edges[tree->nodes[node_index].edge_of[a]], options->exploration);
                if (action < 0 || u > best) { best = u; action = a; }
            }
            edge_index = tree->nodes[node_index].edge_of[action];
        }
        int mover = s->current_player;
        apply(s, action);
        path[depth].edge = edge_index;
        path[depth].mine = mover == options->viewer;
        depth++;
        int perfect_information = s->closed_by < 0 && s->trump_card < 0;
        if ((untried_count && !options->expand_all) || s->winner >= 0 || perfect_information) break;
        node_index = tree_child(tree, edge_index, s->hand[options->viewer]);
        if (node_index == NO_NODE) return -1;
    }
    if (!valued) points = value_for_viewer(s, options);
    double reward = reward_of(options, points);
    for (int i = 0; i < depth; i++) {
        Edge *edge = &tree->edges[path[i].edge];
        edge->visits++;
        edge->reward += path[i].mine ? reward : 1.0 - reward;
    }
    return 0;
}

/* the Twister from random.Random.getstate()[1] (MT_WORDS words and the index) */
static int parse_twister(PyObject *obj, Twister *twister) {
    PyObject *seq = PySequence_Fast(obj, "twister must be random.Random.getstate()[1]");
    if (!seq) return -1;
    int r = 0;
    if (PySequence_Fast_GET_SIZE(seq) != MT_WORDS + 1) {
        PyErr_Format(PyExc_ValueError, "twister must hold %d words and an index, got %zd items", MT_WORDS,
                     PySequence_Fast_GET_SIZE(seq));
        r = -1;
    }
    for (int i = 0; r == 0 && i <= MT_WORDS; i++) {
        unsigned long word = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(seq, i));
        if (word == (unsigned long)-1 && PyErr_Occurred()) r = -1;
        else if (i < MT_WORDS) twister->words[i] = (uint32_t)word;
        else if (word > MT_WORDS) { PyErr_SetString(PyExc_ValueError, "twister index must be in 0..624"); r = -1; }
        else twister->index = (int)word;
    }
    Py_DECREF(seq);
    return r;
}

static PyObject *twister_tuple(const Twister *twister) {
    PyObject *out = PyTuple_New(MT_WORDS + 1);
    if (!out) return NULL;
    for (int i = 0; i <= MT_WORDS; i++) {
        PyObject *word = PyLong_FromUnsignedLong(i < MT_WORDS ? twister->words[i] : (unsigned long)twister->index);
        if (!word) { Py_DECREF(out); return NULL; }
        PyTuple_SET_ITEM(out, i, word);
    }
    return out;
}

/* nanoseconds of a clock for the time budget: monotonic where POSIX has one, else the calendar clock */
static long long clock_ns(void) {
    struct timespec now;
#ifdef CLOCK_MONOTONIC
    clock_gettime(CLOCK_MONOTONIC, &now);
#else
    timespec_get(&now, TIME_UTC);
#endif
    return (long long)now.tv_sec * NS_PER_S + now.tv_nsec;
}

#define TALON_CARD_BITS 5 /* one card id + 1 in a packed talon (NUM_CARDS < 2^5; MAX_TALON * 5 < 64 bits) */
#define TALON_HASH_MULTIPLIER 0x9E3779B97F4A7C15ull /* 2^64 / golden ratio: spreads packed talons over slots */
#define TALON_HASH_SHIFT 20                         /* drops the product's low bits, the least mixed */

/* the world tag of each distinct talon (world_tag), tags 1, 2, ... in order of first appearance */
typedef struct {
    uint64_t *talons; /* packed talons (card id + 1 per TALON_CARD_BITS, first card lowest), by slot */
    uint32_t *tags;   /* the tag of the talon in the same slot; 0: an empty slot */
    size_t mask;      /* slots - 1 (a power of two minus one, slots > 2 x the talons it holds) */
    uint32_t count;   /* tags given so far */
} TalonTags;

static uint32_t talon_tag(TalonTags *tags, const int8_t *talon, int talon_len) {
    uint64_t packed = 0;
    for (int k = talon_len - 1; k >= 0; k--) packed = packed << TALON_CARD_BITS | (uint64_t)(talon[k] + 1);
    size_t slot = (size_t)(packed * TALON_HASH_MULTIPLIER >> TALON_HASH_SHIFT) & tags->mask;
    while (tags->tags[slot] && tags->talons[slot] != packed) slot = (slot + 1) & tags->mask;
    if (!tags->tags[slot]) {
        tags->talons[slot] = packed;
        tags->tags[slot] = ++tags->count;
    }
    return tags->tags[slot];
}

/* ------------------------------------------------------------ the worlds of one search */
/* agents/search.py's SearchAgent.worlds (the reference: agents.pimc's weighted_worlds, consistent_worlds and
 * inference_weight, then random.Random.choices) in C, drawing the same worlds in the same order from the same
 * Mersenne Twister stream: CPython 3.11's random.Random.sample, shuffle, random() and choices, step for step,
 * and inference_weight's floating-point products in the same order. Python passes what needs the information
 * set (agents.search.WorldSpec, read by field name) once per decision. */

#define MAX_INFERENCES (NUM_CARDS / 2) /* lead inferences: at most one per trick */
#define MAX_GROUPS (1 + NUM_SUITS)     /* card groups of one lead inference: the exchange card, the marriages */
#define MAX_WORLDS ((1 << WORLD_TAG_BITS) - 1) /* distinct worlds of one search: one world tag each at most */
#define RANDOM_HIGH_SHIFT 5                    /* random(): 27 bits of the first word ... */
#define RANDOM_LOW_SHIFT 6                     /* ... and 26 of the second */
#define RANDOM_HIGH_SCALE 67108864.0           /* 2^26 */
#define RANDOM_SCALE (1.0 / 9007199254740992.0) /* 2^-53 */

/* one skipped exchange or marriage of the opponent (agents.pimc.LeadInference) */
typedef struct {
    uint32_t groups[MAX_GROUPS]; /* card masks the opponent did not hold all of at that lead */
    int group_count;
    uint32_t led;         /* the card led (held for sure) */
    uint32_t later_plays; /* cards the opponent played later */
    int draws;            /* cards the opponent drew since */
} Inference;

/* how one decision's worlds are drawn (agents.search.WorldSpec, whose fields document these) */
typedef struct {
    int need;                    /* the opponent's cards the viewer does not know */
    int candidate_count;
    int candidates[NUM_CARDS];   /* card ids, ascending, that may be among them or in the talon */
    uint32_t opponent_known;     /* the opponent's known cards */
    uint32_t unseen;             /* the opponent's unknown cards and the talon */
    int talon_len;               /* popcount(unseen) - need: the face-down talon */
    int order_matters;           /* talon orders are different worlds */
    int samples;                 /* the most distinct worlds, 1..MAX_WORLDS */
    long iterations;             /* worlds drawn in all, one per iteration */
    int inference_count;
    Inference inferences[MAX_INFERENCES];
    double violation_weight;     /* weight of a world contradicting a skipped exchange or marriage, 0..1 */
    long max_attempts;           /* hands drawn before the rejection sampler keeps every hand */
} WorldSpec;

/* the worlds of one search: `count` distinct worlds and, per iteration, which one */
typedef struct {
    int count;
    uint32_t *hands;              /* the opponent's hand per world */
    int8_t (*talons)[MAX_TALON];  /* the talon per world, in draw order (WorldSpec.talon_len cards) */
    double *weights;              /* per world: inference_weight, or 1.0 */
    int *picks;                   /* per iteration, the world (an index); NULL: iteration i plays world i */
} Worlds;

static void free_worlds(Worlds *worlds) {
    PyMem_Free(worlds->hands);
    PyMem_Free(worlds->talons);
    PyMem_Free(worlds->weights);
    PyMem_Free(worlds->picks);
}

/* random.Random.random(): 53 bits from two words */
static double twister_random(Twister *twister) {
    uint32_t high = twister_next(twister) >> RANDOM_HIGH_SHIFT;
    uint32_t low = twister_next(twister) >> RANDOM_LOW_SHIFT;
    return (high * RANDOM_HIGH_SCALE + low) * RANDOM_SCALE;
}

/* math.comb(n, k) for 0 <= n <= NUM_CARDS (exact: every partial product fits 64 bits); 0 when k > n */
static uint64_t choose(int n, int k) {
    if (k < 0 || k > n) return 0;
    uint64_t out = 1;
    for (int i = 1; i <= k; i++) out = out * (uint64_t)(n - k + i) / (uint64_t)i;
    return out;
}

/* agents.pimc.inference_weight: the relative likelihood (0..1) of the opponent's `hand` */
static double inference_weight(const WorldSpec *spec, uint32_t hand) {
    double weight = 1.0;
    for (int i = 0; i < spec->inference_count; i++) {
        const Inference *inference = &spec->inferences[i];
        uint32_t pool = hand | inference->later_plays;
        int pool_count = __builtin_popcount(pool);
        for (int g = 0; g < inference->group_count; g++) {
            uint32_t group = inference->groups[g];
            if (group & ~(pool | inference->led)) continue;
            int held = __builtin_popcount(group & pool);
            double all_held = 0.0;
            /* int / int in Python: one correctly rounded division of two exact integers */
            if (pool_count >= inference->draws)
                all_held = (double)choose(pool_count - held, inference->draws) /
                           (double)choose(pool_count, inference->draws);
            weight *= 1.0 - (1.0 - spec->violation_weight) * all_held;
        }
    }
    return weight;
}

/* random.Random.sample(population[:n], k) into out, by its pool method: the one it takes while n <= its setsize
 * (21 for k <= 5, more for larger k), always here, since n <= k + MAX_TALON (parse_world_spec) */
static void twister_sample(Twister *twister, const int *population, int n, int k, int *out) {
    int pool[NUM_CARDS];
    memcpy(pool, population, sizeof(int) * (size_t)n);
    for (int i = 0; i < k; i++) {
        int j = twister_below(twister, n - i);
        out[i] = pool[j];
        pool[j] = pool[n - i - 1];
    }
}

/* random.Random.shuffle(cards[:n]) */
static void twister_shuffle(Twister *twister, int8_t *cards, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = twister_below(twister, i + 1);
        int8_t card = cards[i];
        cards[i] = cards[j];
        cards[j] = card;
    }
}

/* the cards of `mask` ascending into cards; their number */
static int mask_cards(uint32_t mask, int8_t *cards) {
    int n = 0;
    for (; mask; mask &= mask - 1) cards[n++] = (int8_t)__builtin_ctz(mask);
    return n;
}

/* the next permutation of cards[:n] in itertools.permutations' order (that of sorted distinct cards); 0 after
 * the last */
static int next_permutation(int8_t *cards, int n) {
    int i = n - 2;
    while (i >= 0 && cards[i] > cards[i + 1]) i--;
    if (i < 0) return 0;
    int j = n - 1;
    while (cards[j] < cards[i]) j--;
    int8_t card = cards[i];
    cards[i] = cards[j];
    cards[j] = card;
    for (int lo = i + 1, hi = n - 1; lo < hi; lo++, hi--) {
        card = cards[lo];
        cards[lo] = cards[hi];
        cards[hi] = card;
    }
    return 1;
}

/* the next index combination of combinations(range(n), k) in itertools' order; 0 after the last */
static int next_combination(int *index, int n, int k) {
    int i = k - 1;
    while (i >= 0 && index[i] == i + n - k) i--;
    if (i < 0) return 0;
    index[i]++;
    for (int j = i + 1; j < k; j++) index[j] = index[j - 1] + 1;
    return 1;
}

static void add_world(Worlds *worlds, uint32_t hand, const int8_t *talon, int talon_len) {
    worlds->hands[worlds->count] = hand;
    memcpy(worlds->talons[worlds->count], talon, (size_t)talon_len);
    worlds->count++;
}

/* every consistent world, in agents.pimc.consistent_worlds' order (its count `total` <= spec->samples) */
static void enumerate_worlds(const WorldSpec *spec, Worlds *worlds) {
    int index[NUM_CARDS];
    int8_t talon[NUM_CARDS];
    int order = spec->order_matters && spec->talon_len > 1;
    for (int i = 0; i < spec->need; i++) index[i] = i;
    do {
        uint32_t hand = spec->opponent_known;
        for (int i = 0; i < spec->need; i++) hand |= 1u << spec->candidates[index[i]];
        int talon_len = mask_cards(spec->unseen & ~hand, talon);
        do add_world(worlds, hand, talon, talon_len);
        while (order && next_permutation(talon, talon_len));
    } while (next_combination(index, spec->candidate_count, spec->need));
}

/* spec->samples worlds drawn as consistent_worlds draws them, a hand kept as PIMCAgent.weighted_worlds'
 * accept keeps it (rejection by inference_weight for the first max_attempts hands) */
static void sample_worlds(const WorldSpec *spec, Twister *twister, Worlds *worlds) {
    long attempts = 0;
    int chosen[NUM_CARDS];
    int8_t talon[NUM_CARDS];
    while (worlds->count < spec->samples) {
        twister_sample(twister, spec->candidates, spec->candidate_count, spec->need, chosen);
        uint32_t hand = spec->opponent_known;
        for (int i = 0; i < spec->need; i++) hand |= 1u << chosen[i];
        attempts++;
        if (spec->inference_count && attempts <= spec->max_attempts &&
            twister_random(twister) >= inference_weight(spec, hand))
            continue;
        int talon_len = mask_cards(spec->unseen & ~hand, talon);
        twister_shuffle(twister, talon, talon_len);
        add_world(worlds, hand, talon, talon_len);
    }
}

/* bisect.bisect_right(cumulative, x, 0, hi) */
static int bisect_right(const double *cumulative, double x, int hi) {
    int lo = 0;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (x < cumulative[mid]) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* SearchAgent.worlds: the distinct worlds, then, when fewer than the iterations, random.Random.choices of them
 * by their weights for every iteration. 0, or -1 with MemoryError / ValueError (no consistent world) */
static int draw_worlds(const WorldSpec *spec, Twister *twister, Worlds *worlds) {
    uint64_t total = choose(spec->candidate_count, spec->need);
    int order = spec->order_matters && spec->talon_len > 1;
    for (int n = 2; order && n <= spec->talon_len; n++) total *= (uint64_t)n;
    if (total == 0) {
        PyErr_SetString(PyExc_ValueError, "no world is consistent: fewer candidates than the opponent's unknown cards");
        return -1;
    }
    int enumerated = total <= (uint64_t)spec->samples;
    int capacity = enumerated ? (int)total : spec->samples;
    worlds->hands = PyMem_Malloc(sizeof(uint32_t) * (size_t)capacity);
    worlds->talons = PyMem_Malloc(sizeof(*worlds->talons) * (size_t)capacity);
    worlds->weights = PyMem_Malloc(sizeof(double) * (size_t)capacity);
    if (!worlds->hands || !worlds->talons || !worlds->weights) { PyErr_NoMemory(); return -1; }
    int any_weight = 0;
    if (enumerated) {
        enumerate_worlds(spec, worlds);
        for (int w = 0; w < worlds->count; w++) {
            worlds->weights[w] = spec->inference_count ? inference_weight(spec, worlds->hands[w]) : 1.0;
            any_weight |= worlds->weights[w] != 0.0;
        }
    } else {
        sample_worlds(spec, twister, worlds);
    }
    if (!any_weight) for (int w = 0; w < worlds->count; w++) worlds->weights[w] = 1.0;
    if (worlds->count >= spec->iterations) return 0;
    double *cumulative = PyMem_Malloc(sizeof(double) * (size_t)worlds->count);
    worlds->picks = PyMem_Malloc(sizeof(int) * (size_t)spec->iterations);
    if (!cumulative || !worlds->picks) { PyMem_Free(cumulative); PyErr_NoMemory(); return -1; }
    double sum = 0.0;
    for (int w = 0; w < worlds->count; w++) {
        sum = w ? sum + worlds->weights[w] : worlds->weights[w];
        cumulative[w] = sum;
    }
    double total_weight = cumulative[worlds->count - 1] + 0.0;
    for (long i = 0; i < spec->iterations; i++)
        worlds->picks[i] = bisect_right(cumulative, twister_random(twister) * total_weight, worlds->count - 1);
    PyMem_Free(cumulative);
    return 0;
}

#define WORLD_SPEC "agents.search.WorldSpec"
#define LEAD_INFERENCE "agents.pimc.LeadInference"

/* attribute `field` of obj, a `kind` (WORLD_SPEC or LEAD_INFERENCE; new reference), TypeError naming it when
 * missing */
static PyObject *spec_field(PyObject *obj, const char *kind, const char *field) {
    PyObject *v = PyObject_GetAttrString(obj, field);
    if (!v && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s has no field '%s' (got %.100s)", kind, field, Py_TYPE(obj)->tp_name);
    }
    return v;
}

/* attribute `field` of obj, a `kind`, as an int in lo..hi; TypeError / ValueError naming it otherwise */
static int spec_int(PyObject *obj, const char *kind, const char *field, long lo, long hi, long *out) {
    PyObject *v = spec_field(obj, kind, field);
    if (!v) return -1;
    PyObject *name = PyUnicode_FromString(field);
    int r = name ? int_in(v, name, kind, lo, hi, out) : -1;
    Py_XDECREF(name);
    Py_DECREF(v);
    return r;
}

/* attribute `field` of obj, a `kind`, as a list or tuple (new reference, PySequence_Fast) of at most `most`
 * items */
static PyObject *spec_sequence(PyObject *obj, const char *kind, const char *field, Py_ssize_t most) {
    PyObject *v = spec_field(obj, kind, field);
    if (!v) return NULL;
    PyObject *seq = NULL;
    if (!(PyList_Check(v) || PyTuple_Check(v)) || PySequence_Fast_GET_SIZE(v) > most)
        PyErr_Format(PyExc_ValueError, "%s field '%s' must be a tuple of at most %zd items, got %R", kind, field,
                     most, v);
    else seq = PySequence_Fast(v, field);
    Py_DECREF(v);
    return seq;
}

static int parse_inference(PyObject *obj, Inference *inference) {
    long led, later_plays, draws;
    if (spec_int(obj, LEAD_INFERENCE, "led", 1, (1L << NUM_CARDS) - 1, &led) < 0 ||
        spec_int(obj, LEAD_INFERENCE, "later_plays", 0, (1L << NUM_CARDS) - 1, &later_plays) < 0 ||
        spec_int(obj, LEAD_INFERENCE, "draws", 0, NUM_CARDS, &draws) < 0)
        return -1;
    PyObject *groups = spec_sequence(obj, LEAD_INFERENCE, "groups", MAX_GROUPS);
    if (!groups) return -1;
    PyObject *name = PyUnicode_FromString("groups");
    int r = name ? 0 : -1;
    inference->group_count = (int)PySequence_Fast_GET_SIZE(groups);
    for (int g = 0; r == 0 && g < inference->group_count; g++) {
        long group = 0;
        r = int_in(PySequence_Fast_GET_ITEM(groups, g), name, LEAD_INFERENCE, 1, (1L << NUM_CARDS) - 1, &group);
        inference->groups[g] = (uint32_t)group;
    }
    Py_XDECREF(name);
    Py_DECREF(groups);
    inference->led = (uint32_t)led;
    inference->later_plays = (uint32_t)later_plays;
    inference->draws = (int)draws;
    return r;
}

/* the WorldSpec `obj`, checked: ValueError / TypeError naming the first bad field */
static int parse_world_spec(PyObject *obj, WorldSpec *spec) {
    long need, known, unseen, order_matters, samples, iterations, max_attempts;
    if (spec_int(obj, WORLD_SPEC, "need", 0, NUM_CARDS, &need) < 0 ||
        spec_int(obj, WORLD_SPEC, "opponent_known", 0, (1L << NUM_CARDS) - 1, &known) < 0 ||
        spec_int(obj, WORLD_SPEC, "unseen", 0, (1L << NUM_CARDS) - 1, &unseen) < 0 ||
        spec_int(obj, WORLD_SPEC, "order_matters", 0, 1, &order_matters) < 0 ||
        spec_int(obj, WORLD_SPEC, "samples", 1, MAX_WORLDS, &samples) < 0 ||
        spec_int(obj, WORLD_SPEC, "iterations", 1, INT_MAX, &iterations) < 0 ||
        spec_int(obj, WORLD_SPEC, "max_attempts", 0, LONG_MAX, &max_attempts) < 0)
        return -1;
    spec->need = (int)need;
    spec->opponent_known = (uint32_t)known;
    spec->unseen = (uint32_t)unseen;
    spec->talon_len = __builtin_popcount(spec->unseen) - spec->need;
    if (spec->talon_len < 0 || spec->talon_len > MAX_TALON) {
        PyErr_Format(PyExc_ValueError, "WorldSpec: unseen holds %d cards, need %d: the talon must be 0..%d cards",
                     __builtin_popcount(spec->unseen), spec->need, MAX_TALON);
        return -1;
    }
    if (known & unseen) {
        PyErr_SetString(PyExc_ValueError, "WorldSpec: opponent_known and unseen must not share a card");
        return -1;
    }
    if (samples > iterations) {
        PyErr_Format(PyExc_ValueError, "WorldSpec: samples (%ld) must not exceed iterations (%ld)", samples,
                     iterations);
        return -1;
    }
    spec->order_matters = (int)order_matters;
    spec->samples = (int)samples;
    spec->iterations = iterations;
    spec->max_attempts = max_attempts;
    PyObject *weight = spec_field(obj, WORLD_SPEC, "violation_weight");
    if (!weight) return -1;
    spec->violation_weight = PyFloat_AsDouble(weight);
    Py_DECREF(weight);
    if (spec->violation_weight == -1.0 && PyErr_Occurred()) return -1;
    if (!(spec->violation_weight >= 0.0 && spec->violation_weight <= 1.0)) {
        PyErr_Format(PyExc_ValueError, "WorldSpec field 'violation_weight' must be in 0..1, got %g",
                     spec->violation_weight);
        return -1;
    }
    PyObject *candidates = spec_sequence(obj, WORLD_SPEC, "candidates", NUM_CARDS);
    if (!candidates) return -1;
    PyObject *name = PyUnicode_FromString("candidates");
    int r = name ? 0 : -1;
    spec->candidate_count = (int)PySequence_Fast_GET_SIZE(candidates);
    for (int i = 0; r == 0 && i < spec->candidate_count; i++) {
        long card = 0;
        r = int_in(PySequence_Fast_GET_ITEM(candidates, i), name, WORLD_SPEC, 0, NUM_CARDS - 1, &card);
        spec->candidates[i] = (int)card;
        if (r == 0 && ((i && card <= spec->candidates[i - 1]) || !(spec->unseen >> card & 1u))) {
            PyErr_Format(PyExc_ValueError, "WorldSpec field 'candidates' must be unseen card ids, ascending, got %R",
                         candidates);
            r = -1;
        }
    }
    Py_XDECREF(name);
    Py_DECREF(candidates);
    if (r < 0) return -1;
    PyObject *inferences = spec_sequence(obj, WORLD_SPEC, "inferences", MAX_INFERENCES);
    if (!inferences) return -1;
    spec->inference_count = (int)PySequence_Fast_GET_SIZE(inferences);
    for (int i = 0; r == 0 && i < spec->inference_count; i++)
        r = parse_inference(PySequence_Fast_GET_ITEM(inferences, i), &spec->inferences[i]);
    Py_DECREF(inferences);
    return r;
}

/* sample_worlds(worlds, twister) -> (hands, talons, twister): the per-iteration worlds search_tree draws for the
 * WorldSpec `worlds` (SearchAgent.worlds' list, for the tests) */
static PyObject *py_sample_worlds(PyObject *self, PyObject *args) {
    PyObject *spec_in, *twister_in;
    if (!PyArg_ParseTuple(args, "OO", &spec_in, &twister_in)) return NULL;
    WorldSpec spec;
    Twister twister;
    if (parse_world_spec(spec_in, &spec) < 0 || parse_twister(twister_in, &twister) < 0) return NULL;
    Worlds worlds = {0};
    PyObject *hands = NULL, *talons = NULL, *result = NULL;
    if (draw_worlds(&spec, &twister, &worlds) < 0) goto out;
    Py_ssize_t n = worlds.picks ? spec.iterations : worlds.count;
    hands = PyList_New(n);
    talons = PyList_New(n);
    if (!hands || !talons) goto out;
    for (Py_ssize_t i = 0; i < n; i++) {
        int w = worlds.picks ? worlds.picks[i] : (int)i;
        PyObject *talon = PyTuple_New(spec.talon_len);
        PyObject *hand = PyLong_FromUnsignedLong(worlds.hands[w]);
        if (!talon || !hand) { Py_XDECREF(talon); Py_XDECREF(hand); goto out; }
        for (int k = 0; k < spec.talon_len; k++) {
            PyObject *card = PyLong_FromLong(worlds.talons[w][k]);
            if (!card) { Py_DECREF(talon); Py_DECREF(hand); goto out; }
            PyTuple_SET_ITEM(talon, k, card);
        }
        PyList_SET_ITEM(hands, i, hand);
        PyList_SET_ITEM(talons, i, talon);
    }
    PyObject *twister_out = twister_tuple(&twister);
    if (twister_out) result = Py_BuildValue("(OON)", hands, talons, twister_out);
out:
    Py_XDECREF(hands);
    Py_XDECREF(talons);
    free_worlds(&worlds);
    return result;
}

/* [(action, visits, reward, available)] of the root's edges in the order they were added */
static PyObject *root_edge_list(const Tree *tree) {
    int order[NUM_ACTIONS], n = 0;
    const Node *root = &tree->nodes[ROOT_NODE];
    for (int a = 0; a < NUM_ACTIONS; a++) {
        if (root->edge_of[a] == NO_EDGE) continue;
        int i = n++;
        while (i > 0 && root->edge_of[order[i - 1]] > root->edge_of[a]) { order[i] = order[i - 1]; i--; }
        order[i] = a;
    }
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        const Edge *edge = &tree->edges[root->edge_of[order[i]]];
        PyObject *row = Py_BuildValue("(iidi)", order[i], edge->visits, edge->reward, edge->available);
        if (!row) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, row);
    }
    return out;
}

/* whether the most visited root action leads the next by more than `iterations_left` visits (each iteration
 * adds one root visit), so that no later iteration can change it (search.py's _decided) */
static int decided(const Tree *tree, Py_ssize_t iterations_left) {
    int most = 0, runner_up = 0;
    for (int a = 0; a < NUM_ACTIONS; a++) {
        int e = tree->nodes[ROOT_NODE].edge_of[a];
        if (e == NO_EDGE) continue;
        int visits = tree->edges[e].visits;
        if (visits > most) { runner_up = most; most = visits; }
        else if (visits > runner_up) runner_up = visits;
    }
    return most - runner_up > iterations_left;
}

/* search_tree(rules, state, viewer, worlds, closers, exploration, win_reward, win_only, expand_all, twister,
 *             seconds_left, until_decided[, rollout_leaves]) -> (root edges, twister, iterations)
 * worlds: an agents.search.WorldSpec (drawn here by draw_worlds, then one iteration per world); state: any
 * world of it (each iteration swaps in its world's opponent hand and talon); seconds_left: None, or the time
 * budget left (float seconds, counted from the call, the worlds drawn included; at most: one iteration) */
static PyObject *py_search_tree(PyObject *self, PyObject *args) {
    long long start = clock_ns();
    PyObject *rules, *state, *spec_in, *twister_in;
    PyObject *seconds_left;
    long closers;
    int viewer, until_decided;
    SearchOptions options;
    options.rollout_leaves = 0;
    if (!PyArg_ParseTuple(args, "OOiOldpppOOp|p", &rules, &state, &viewer, &spec_in, &closers,
                          &options.exploration, &options.win_reward, &options.win_only, &options.expand_all,
                          &twister_in, &seconds_left, &until_decided, &options.rollout_leaves))
        return NULL;
    State root;
    if (viewer < 0 || viewer > 1) {
        PyErr_Format(PyExc_ValueError, "viewer must be 0 or 1, got %d", viewer);
        return NULL;
    }
    double budget_s = 0.0;
    int budgeted = seconds_left != Py_None;
    if (budgeted) {
        budget_s = PyFloat_AsDouble(seconds_left);
        if (budget_s == -1.0 && PyErr_Occurred()) return NULL;
    }
    if (parse_search(rules, state, closers, &root, 0) < 0) return NULL;
    options.leaf_rules = R;
    if (parse_rules(rules, 3) < 0) return NULL;
    options.tree_rules = R;
    options.viewer = viewer;
    Twister twister;
    WorldSpec spec;
    if (parse_twister(twister_in, &twister) < 0 || parse_world_spec(spec_in, &spec) < 0) return NULL;
    if (spec.talon_len != root.talon_len) {
        PyErr_Format(PyExc_ValueError, "the worlds' talon has %d cards, the state's %d", spec.talon_len,
                     root.talon_len);
        return NULL;
    }
    PyObject *result = NULL;
    Tree tree = {0};
    TalonTags talon_tags = {0};
    Worlds worlds = {0};
    uint32_t *world_tags = NULL;
    long done = 0;
    if (draw_worlds(&spec, &twister, &worlds) < 0) goto out;
    size_t slots = 1;
    while (slots <= 2 * (size_t)worlds.count) slots <<= 1;
    talon_tags.talons = PyMem_Malloc(sizeof(uint64_t) * slots);
    talon_tags.tags = PyMem_Calloc(slots, sizeof(uint32_t));
    talon_tags.mask = slots - 1;
    world_tags = PyMem_Malloc(sizeof(uint32_t) * (size_t)worlds.count);
    if (!talon_tags.talons || !talon_tags.tags || !world_tags) { PyErr_NoMemory(); goto out; }
    for (int w = 0; w < worlds.count; w++) world_tags[w] = talon_tag(&talon_tags, worlds.talons[w], spec.talon_len);
    if (tree_new_node(&tree, root.hand[viewer]) == NO_NODE) { PyErr_NoMemory(); goto out; }
    /* one table generation for the whole search (world_tag keeps the worlds' talon-open positions apart) */
    new_search(&root);
    long long deadline = budgeted ? start + (long long)(budget_s * NS_PER_S) : 0;
    for (; done < spec.iterations; done++) {
        if (budgeted && done && clock_ns() >= deadline) break;
        int w = worlds.picks ? worlds.picks[done] : (int)done;
        State world = root;
        world.hand[1 - viewer] = worlds.hands[w];
        memcpy(world.talon, worlds.talons[w], (size_t)spec.talon_len);
        world.talon_pos = 0;
        world_tag = world_tags[w];
        if (iterate(&tree, &world, &options, &twister) < 0) { PyErr_NoMemory(); goto out; }
        if (until_decided && decided(&tree, spec.iterations - done - 1)) { done++; break; }
    }
    PyObject *edges = root_edge_list(&tree);
    PyObject *twister_out = edges ? twister_tuple(&twister) : NULL;
    if (twister_out) result = Py_BuildValue("(NNl)", edges, twister_out, done);
    else Py_XDECREF(edges);
out:
    world_tag = 0;
    PyMem_Free(tree.nodes);
    PyMem_Free(tree.edges);
    PyMem_Free(talon_tags.talons);
    PyMem_Free(talon_tags.tags);
    PyMem_Free(world_tags);
    free_worlds(&worlds);
    return result;
}

static PyObject *py_nodes(PyObject *self, PyObject *args) {
    return PyLong_FromLongLong(node_count);
}

/* constants: {name: value} with schnapsen_env's names (cards, actions, rules, engine) */
static long dict_int(PyObject *d, const char *key, long lo, long hi, int *err) {
    if (*err) return 0;
    PyObject *k = PyUnicode_InternFromString(key);
    if (!k) { *err = 1; return 0; }
    PyObject *v = PyDict_GetItemWithError(d, k); /* borrowed */
    long x = 0;
    if (!v) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "configure: missing constant %R", k);
        *err = 1;
    } else if (int_in(v, k, "constant", lo, hi, &x) < 0) {
        *err = 1;
    }
    Py_DECREF(k);
    return x;
}

static PyObject *py_configure(PyObject *self, PyObject *d) {
    static const struct { const char *name; long value; } LAYOUT[] = {
        {"NUM_CARDS", NUM_CARDS}, {"NUM_SUITS", NUM_SUITS}, {"RANKS_PER_SUIT", RANKS_PER_SUIT},
        {"KING", KING}, {"QUEEN", QUEEN}, {"MARRIAGE_BASE", MARRIAGE_BASE}, {"EXCHANGE", EXCHANGE},
        {"CLOSE", CLOSE}, {"DECLARE", DECLARE}, {"NUM_ACTIONS", NUM_ACTIONS}, {"NO_CARD", NO_CARD},
        {"NOBODY", NOBODY}, {"NO_TRICK_GAME_POINTS", GP_NO_TRICK}, {"SCHNEIDER_GAME_POINTS", GP_SCHNEIDER},
        {"PLAIN_GAME_POINTS", GP_PLAIN}, {"LAST_TRICK_GAME_POINTS", GP_LAST_TRICK},
        {"CLOSING_FAILED_POINTS", GP_CLOSING_FAILED}, {"CLOSING_FAILED_NO_TRICK_POINTS", GP_CLOSING_FAILED_NO_TRICK},
        {"FIXED_FALSE_DECLARATION_POINTS", GP_FIXED_FALSE_DECLARATION},
    };
    static const char *const RULE_NUMBERS[] = {
        "CARD_EYES", "EYES_TO_WIN", "MARRIAGE_EYES", "TRUMP_MARRIAGE_EYES", "SCHNEIDER_EYES",
    };
    const int n_layout = (int)(sizeof(LAYOUT) / sizeof(LAYOUT[0]));
    const int n_rule = (int)(sizeof(RULE_NUMBERS) / sizeof(RULE_NUMBERS[0]));
    if (!PyDict_Check(d)) {
        PyErr_Format(PyExc_TypeError, "configure takes a dict {constant name: value}, got %.100s", Py_TYPE(d)->tp_name);
        return NULL;
    }
    /* no unknown names (a misspelt constant would otherwise be silently ignored) */
    PyObject *key, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &key, &val)) {
        int known = 0;
        for (int i = 0; i < n_layout && !known; i++) known = PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, LAYOUT[i].name) == 0;
        for (int i = 0; i < n_rule && !known; i++) known = PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, RULE_NUMBERS[i]) == 0;
        if (!known) { PyErr_Format(PyExc_ValueError, "configure: unknown constant %R", key); return NULL; }
    }
    int err = 0;
    for (int i = 0; i < n_layout; i++) {
        long x = dict_int(d, LAYOUT[i].name, LONG_MIN, LONG_MAX, &err);
        if (err) return NULL;
        if (x != LAYOUT[i].value) {
            PyErr_Format(PyExc_RuntimeError,
                         "agents._solver_core was compiled for %s = %ld but schnapsen_env has %ld: "
                         "update agents/_solver_core.c and rebuild it (pip install -e .)",
                         LAYOUT[i].name, LAYOUT[i].value, x);
            return NULL;
        }
    }
    long win = dict_int(d, "EYES_TO_WIN", 1, KEY_EYES_MAX, &err);
    long me = dict_int(d, "MARRIAGE_EYES", 0, KEY_HELD_MAX, &err);
    long tme = dict_int(d, "TRUMP_MARRIAGE_EYES", 0, KEY_HELD_MAX, &err);
    long sch = dict_int(d, "SCHNEIDER_EYES", 0, KEY_EYES_MAX, &err);
    if (err) return NULL;
    PyObject *ce = PyDict_GetItemString(d, "CARD_EYES"); /* borrowed; present: checked below */
    if (!ce) { PyErr_SetString(PyExc_ValueError, "configure: missing constant 'CARD_EYES'"); return NULL; }
    if (!(PyTuple_Check(ce) || PyList_Check(ce)) || PySequence_Fast_GET_SIZE(ce) != NUM_CARDS) {
        PyErr_Format(PyExc_ValueError, "configure: CARD_EYES must be a tuple of %d ints (eyes per card id)", NUM_CARDS);
        return NULL;
    }
    PyObject *ce_name = PyUnicode_FromString("CARD_EYES");
    if (!ce_name) return NULL;
    long eyes[NUM_CARDS], total = 0;
    for (int c = 0; c < NUM_CARDS; c++) {
        if (int_in(PySequence_Fast_GET_ITEM(ce, c), ce_name, "constant", 0, KEY_EYES_MAX, &eyes[c]) < 0) {
            Py_DECREF(ce_name);
            return NULL;
        }
        total += eyes[c];
    }
    Py_DECREF(ce_name);
    /* the bound tables (suit_eyes) count eyes by rank within a suit */
    for (int c = 0; c < NUM_CARDS; c++) {
        if (eyes[c] != eyes[c % RANKS_PER_SUIT]) {
            PyErr_SetString(PyExc_RuntimeError, "configure: CARD_EYES must depend on the rank only");
            return NULL;
        }
    }
    /* the transposition key packs each player's eyes in 8 bits and held marriage eyes in 7 */
    long most = total + (NUM_SUITS - 1) * me + tme, most_held = (NUM_SUITS - 1) * me + tme;
    if (most > KEY_EYES_MAX || most_held > KEY_HELD_MAX) {
        PyErr_Format(PyExc_RuntimeError, "configure: eyes up to %ld (held marriages up to %ld) do not fit the core's "
                     "transposition key (%d, %d)", most, most_held, KEY_EYES_MAX, KEY_HELD_MAX);
        return NULL;
    }
    EYES_TO_WIN = (int)win;
    MARRIAGE_EYES = (int)me;
    TRUMP_MARRIAGE_EYES = (int)tme;
    SCHNEIDER_EYES = (int)sch;
    bonus_max = (int)(KEY_EYES_MAX - most);
    for (int c = 0; c < NUM_CARDS; c++) card_eyes[c] = (int)eyes[c];
    for (int m = 0; m < 64; m++) {
        suit_eyes[m] = 0;
        for (int r = 0; r < RANKS_PER_SUIT; r++) if (m >> r & 1) suit_eyes[m] += card_eyes[r];
    }
    configured = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"configure", py_configure, METH_O,
     "configure(constants) -> None: the game constants by schnapsen_env name (once, before any other call)"},
    {"value", py_value, METH_VARARGS, "value(rules, state, closers) -> game points for the player to move (-3..3)"},
    {"action_values", py_action_values, METH_VARARGS, "action_values(rules, state, closers, win_only=False) -> [(action, value)] (win_only: 1 wins, -1 loses)"},
    {"deal_action_values", py_deal_action_values, METH_VARARGS,
     "deal_action_values(rules, state, closers, generation) -> (generation, [(action, value)]): the table of "
     "`generation` kept while no other search ran (states of one deal only; 0: a new table)"},
    {"solve", py_solve, METH_VARARGS, "solve(rules, state, closers) -> (value, [best actions ascending])"},
    {"legal_mask", py_legal_mask, METH_VARARGS,
     "legal_mask(rules, state, closers) -> the core's legal actions as a bitmask over action ids"},
    {"step", py_step, METH_VARARGS,
     "step(rules, state, action) -> None, or (winner, game_points) if the action ends the game"},
    {"step_fields", py_step_fields, METH_VARARGS,
     "step_fields(rules, state, action) -> {GameState field name: value after the action, 'outcome': ...}"},
    {"search_tree", py_search_tree, METH_VARARGS,
     "search_tree(rules, state, viewer, worlds, closers, exploration, win_reward, win_only, expand_all, "
     "twister, seconds_left, until_decided[, rollout_leaves]) -> ([(action, visits, reward, available)], twister, "
     "iterations): agents.search's SO-ISMCTS loop over the worlds of the WorldSpec `worlds` (see the C source)"},
    {"sample_worlds", py_sample_worlds, METH_VARARGS,
     "sample_worlds(worlds, twister) -> (opponent hands, talons, twister): the per-iteration worlds search_tree "
     "draws for the WorldSpec `worlds`"},
    {"nodes", py_nodes, METH_NOARGS, "nodes searched by the last call"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_solver_core", "Compiled alpha-beta core of agents.solver (see agents/solver.py).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__solver_core(void) {
    for (int i = 0; i < N_STATE_FIELDS; i++)
        if (!(state_name[i] = PyUnicode_InternFromString(STATE_FIELDS[i]))) return NULL;
    for (int i = 0; i < N_RULE_FIELDS; i++)
        if (!(rule_name[i] = PyUnicode_InternFromString(RULE_FIELDS[i]))) return NULL;
    if (!(outcome_name = PyUnicode_InternFromString("outcome"))) return NULL;
    if (!(as_if_correct = PyUnicode_InternFromString("as_if_correct"))) return NULL;
    for (int c = 0; c < NUM_CARDS; c++) suit_mask[c / RANKS_PER_SUIT] |= 1u << c;
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
