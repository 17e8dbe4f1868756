/* The compiled core of agents.players.solver and agents.players.search (the extension agents.players._solver_core), one header for
 * its five files:
 *   rules.c   the compact state, apply and the legal actions (RULES §2-§5, every option of §7)
 *   solver.c  the exact perfect-information search (alpha-beta, transposition table)
 *   worlds.c  the worlds of one decision (the opponent's hand and the talon) and the core's generator
 *   search.c  the information-set search (SO-ISMCTS) over those worlds
 *   module.c  the Python glue: parsing and checking what enters, the entry points, configure()
 *
 * An accelerator, not a second rules authority: the rules mirror schnapsen_env/engine.py, and
 * tests/engine/test_core_agreement.py checks legal masks and outcomes against the engine state by state.
 * Every state that enters is checked once, in module.c, by GameState.validate() (the one rule set). */
#ifndef SCHNAPSEN_CORE_H
#define SCHNAPSEN_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

/* Layout numbers: compile-time (array sizes, bit tricks); configure() checks that schnapsen_env's are the same */
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
#define MAX_GAME_ACTIONS 64 /* more than any game's actions: 24 cards, 4 marriages, exchange, close, declare */
/* game points (RULES §5), compile-time because the search's value window is built on them */
#define VMAX 3
#define VMIN (-3)
#define GP_NO_TRICK 3          /* the loser won no trick */
#define GP_SCHNEIDER 2         /* the loser has a trick and at most SCHNEIDER_EYES */
#define GP_PLAIN 1             /* the loser has more */
#define GP_LAST_TRICK 1        /* the winner of the last trick, talon not closed */
#define GP_CLOSING_FAILED 2    /* the closer's opponent, who had a trick at closing */
#define GP_CLOSING_FAILED_NO_TRICK 3
#define GP_FIXED_FALSE_DECLARATION 2 /* false_declaration_points=2 */
/* the largest eyes / held marriage eyes the transposition key can hold (8 and 7 bits) */
#define KEY_EYES_MAX 255
#define KEY_HELD_MAX 127

/* the options of RULES §7 the rules read (schnapsen_env.rules.Rules, parsed in module.c) */
typedef struct {
    int sharp;       /* Rules.sharp */
    int manual;      /* Rules.manual_declare */
    int fdp_fixed;   /* Rules.false_declaration_points == 2 (else "as_if_correct") */
    int later;       /* Rules.closing_counts_later_eyes */
    int allow_close; /* bitmask of the players who may close (bit p: player p), 0 when Rules.allow_closing is off */
    int king_only;   /* Rules.king_only */
    int credit_next; /* not Rules.credit_marriage_at_once */
    int bonus;       /* Rules.last_trick_bonus (eyes) */
    int exrank;      /* Rules.exchange_rank */
} Rules;

/* the compact state (GameState's fields, schnapsen_env/engine.py) */
typedef struct {
    uint32_t hand[2];          /* each player's cards (bit c: card c) */
    int8_t talon[MAX_TALON];   /* the face-down talon in draw order */
    int8_t talon_len;          /* cards in talon[] */
    int8_t talon_pos;          /* the next card to draw, 0..talon_len */
    int8_t trump_card;         /* the face-up trump card, NO_CARD once drawn */
    int8_t trump;              /* the trump suit */
    int8_t leader;             /* the player who leads the current trick */
    int8_t current_player;     /* the player to move, NOBODY once the game is over */
    int8_t lead_card;          /* the card led to the current trick, NO_CARD before the lead */
    int8_t pending;            /* the suit of a marriage just announced (its king or queen must be led), or -1 */
    int16_t eyes[2];           /* eyes credited per player */
    int16_t held[2];           /* marriage eyes announced but not yet credited (no trick won yet) */
    int8_t tw[2];              /* tricks won per player */
    int8_t closed_by;          /* the player who closed the talon, NOBODY while open */
    int8_t closed_opp_trick;   /* whether the closer's opponent had a trick at closing */
    int16_t closed_opp_eyes;   /* the closer's opponent's eyes at closing */
    int8_t winner;             /* the winner once the game is over, NOBODY while playing */
    int8_t points;             /* the winner's game points once over */
} State;

/* rules.c */
extern Rules R;                    /* the rules of the current call (module.c and search.c set them) */
extern int EYES_TO_WIN, MARRIAGE_EYES, TRUMP_MARRIAGE_EYES, SCHNEIDER_EYES; /* from configure() */
extern int card_eyes[NUM_CARDS];   /* eyes per card id, from configure() */
extern int suit_eyes[64];          /* eyes of a 6-bit rank mask of one suit */
extern uint32_t suit_mask[NUM_SUITS];
extern uint32_t higher[NUM_CARDS]; /* the cards of c's suit that beat c */
extern uint32_t lower[NUM_CARDS];  /* the cards of c's suit that c beats */
extern uint32_t king_bits;         /* every king */
void rules_init(void);
void rules_set_eyes(const long *eyes);
int game_points_for(int loser_eyes, int loser_has_trick);
void apply(State *s, int action);
uint32_t legal_mask(const State *s);

/* solver.c: values are game points (-3..3, never 0) for the player to move */
#define WORLD_TAG_BITS 17             /* world tags below 2^WORLD_TAG_BITS (search.c: one per distinct talon) */
extern uint64_t world_tag;            /* which world's talon the table's talon-open positions belong to */
extern long long node_count;          /* nodes searched since the last new_search */
extern uint32_t tt_gen;               /* the table's generation (deal_action_values keeps one) */
extern int solver_stopped;       /* a signal handler raised or a mover had no legal action: every search returns at
                                    * once, Python's error set; cleared by new_generation */
int solver_init(void);
void new_generation(const State *s);
void new_search(const State *s);
int search(const State *s, int alpha, int beta);
int exact_value(const State *s);
int order_moves(const State *s, uint32_t mask, int tt_best, int *moves);
int child_value(const State *s, int action, int alpha, int beta);
int root_values(const State *s, int win_only, int *actions, int *values);

/* worlds.c */
/* the core's generator: SplitMix64 (Steele, Lea & Flood 2014), seeded once per decision by the caller */
typedef struct {
    uint64_t state;
} Rng;
uint64_t rng_next(Rng *rng);
int rng_below(Rng *rng, int n);
double rng_unit(Rng *rng);

#define MAX_INFERENCES (NUM_CARDS / 2) /* lead inferences: at most one per trick */
#define MAX_GROUPS (1 + NUM_SUITS)     /* card groups of one lead inference: the exchange card, the marriages */
#define MAX_WORLDS ((1 << WORLD_TAG_BITS) - 1) /* distinct worlds of one search: one world tag each at most */

/* one skipped exchange or marriage of the opponent (agents.players.pimc.LeadInference) */
typedef struct {
    uint32_t groups[MAX_GROUPS]; /* card masks the opponent did not hold all of at that lead */
    int group_count;             /* groups in use */
    uint32_t led;                /* the card led (held for sure) */
    uint32_t later_plays;        /* cards the opponent played later */
    int draws;                   /* cards the opponent drew since */
} Inference;

/* how one decision's worlds are drawn (agents.players.search.WorldSpec, whose fields document these) */
typedef struct {
    int need;                  /* the opponent's cards the viewer does not know */
    int candidate_count;       /* candidates in use */
    int candidates[NUM_CARDS]; /* card ids, ascending, that may be among them or in the talon */
    uint32_t opponent_known;   /* the opponent's known cards */
    uint32_t unseen;           /* the opponent's unknown cards and the talon */
    int talon_len;             /* popcount(unseen) - need: the face-down talon */
    int order_matters;         /* talon orders are different worlds */
    int samples;               /* the most distinct worlds, 1..MAX_WORLDS */
    long iterations;           /* worlds drawn in all, one per iteration */
    int inference_count;       /* inferences in use */
    Inference inferences[MAX_INFERENCES];
    double violation_weight;   /* weight of a world contradicting a skipped exchange or marriage, 0..1 */
    long max_attempts;         /* hands drawn before the rejection sampler keeps every hand */
} WorldSpec;

/* the worlds of one search: `count` distinct worlds and, per iteration, which one */
typedef struct {
    int count;                   /* distinct worlds */
    uint32_t *hands;             /* the opponent's hand per world */
    int8_t (*talons)[MAX_TALON]; /* the talon per world, in draw order (WorldSpec.talon_len cards) */
    double *weights;             /* per world: its inference weight, or 1.0 */
    int *picks;                  /* per iteration, the world (an index); NULL: iteration i plays world i */
} Worlds;
int draw_worlds(const WorldSpec *spec, Rng *rng, Worlds *worlds);
void free_worlds(Worlds *worlds);

/* search.c */
/* the options of one search (agents.players.search.SearchOptions, parsed in module.c), fixed for its iterations */
typedef struct {
    Rules tree_rules;    /* the rules in the tree: every player may close where the rules allow it */
    Rules leaf_rules;    /* the rules at the leaves: only the closers may close */
    int viewer;          /* the searching player (0 or 1) */
    double exploration;  /* UCB1's constant c (>= 0) */
    int win_reward;      /* objective "win": reward 1 for a won game, else 0; else game points scaled to 0..1 */
    int win_only;        /* leaves valued by win or loss only (+1 / -1 game points) */
    int expand_all;      /* a new node values every action (expand="all"); else one action per iteration */
    int rollout_leaves;  /* leaf="rollout": a talon-open leaf is played on by the rollout policy first */
    int until_decided;   /* stop once the iterations left cannot change the most visited root action */
    int budgeted;        /* whether budget_ns applies */
    long long budget_ns; /* the time budget from the call's start (at least one iteration runs) */
    uint64_t seed;       /* seeds the generator of the worlds and the tree walk */
} SearchOptions;

/* one root action after a search */
typedef struct {
    int action;       /* the action id */
    int visits;       /* iterations through it */
    double reward;    /* their total reward (each 0..1) for the viewer */
    int available;    /* iterations that found it legal at the root */
} RootEdge;

/* what a search returns */
typedef struct {
    int edge_count;                 /* root edges, in the order they were added */
    RootEdge edges[NUM_ACTIONS];
    long iterations;                /* iterations run */
} SearchResult;

/* 0, or -1 with a Python error set (MemoryError, KeyboardInterrupt, ...) */
int run_search(const State *root, const WorldSpec *spec, const SearchOptions *options, long long start_ns,
               SearchResult *result);
long long clock_ns(void);

#endif
