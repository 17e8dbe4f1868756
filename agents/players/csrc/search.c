/* The information-set search (single-observer ISMCTS, Cowling, Powley & Whitehouse, IEEE TCIAIG 2012) of
 * agents/players/search.py, one call per decision: each iteration plays one world of draw_worlds (worlds.c) down one tree
 * whose nodes are the viewer's information sets (the actions since the root and the viewer's hand), choosing
 * by UCB1 with availability counts among the actions legal in that world, and values the first node off the
 * tree exactly (solver.c) or after a rollout. Random numbers: the generator seeded by SearchOptions.seed. */
#include "core.h"
#include <math.h>
#include <string.h>
#include <time.h>

#define NO_NODE (-1)
#define NO_EDGE (-1)
#define ROOT_NODE 0
#define TREE_START_CAPACITY 1024
#define NS_PER_S 1000000000LL
#define INTERRUPT_NS 10000000LL /* nanoseconds between two polls of PyErr_CheckSignals in the loop (10 ms) */

/* one action of a node  */
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

/* UCB1 with availability counts: mean reward plus exploration * sqrt(ln(available) / visits) */
static double ucb(const Edge *edge, double exploration) {
    return edge->reward / edge->visits + exploration * sqrt(log((double)edge->available) / edge->visits);
}

#define TEN_EYES 10        /* a lead worth this many eyes or more (an ace or a ten) is trumped in a rollout */
#define TRUMP_SORT_KEY 16  /* more than any card's eyes: trumps after every other card in cheapest_card */

/* the card of `cards` (a non-empty mask) a rollout gives up most readily: a non-trump before a trump, then
 * fewer eyes, then the lower id */
static int cheapest_card(uint32_t cards, int trump) {
    int best = NO_CARD, best_key = 0;
    for (uint32_t m = cards; m; m &= m - 1) {
        int card = __builtin_ctz(m);
        int key = (card / RANKS_PER_SUIT == trump) * TRUMP_SORT_KEY + card_eyes[card];
        if (best == NO_CARD || key < best_key) { best = card; best_key = key; }
    }
    return best;
}

/* the rollout policy, the same for both players, in a talon-open state of the leaf rules: declare 66 when
 * reached, exchange, announce a marriage (trump first, else the lowest suit); lead the cheapest card; follow with the cheapest card of the led suit that wins, else the cheapest
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
 * objective "win") */
static int value_for_viewer(State *s, const SearchOptions *options) {
    R = options->leaf_rules;
    /* at most MAX_GAME_ACTIONS actions: a rollout ends even where a bad state would let it repeat itself */
    for (int step = 0; options->rollout_leaves && step < MAX_GAME_ACTIONS; step++) {
        if (s->winner >= 0 || s->closed_by >= 0 || s->trump_card < 0 || !legal_mask(s)) break;
        apply(s, rollout_action(s));
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

/* one iteration in world s (changed): select, expand, value, back up. 0, or -1 with MemoryError, or ValueError
 * when a node has no legal action or the path outgrows a game (impossible from a checked state) */
static int iterate(Tree *tree, State *s, const SearchOptions *options, Rng *rng) {
    Step path[MAX_GAME_ACTIONS];
    int depth = 0, node_index = ROOT_NODE, points, valued = 0;
    for (;;) {
        if (options->expand_all && tree->nodes[node_index].edge_count == 0) {
            points = expand_node(tree, node_index, s, options);
            if (points < VMIN) {
                PyErr_NoMemory();
                return -1;
            }
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
        if (!legal || depth == MAX_GAME_ACTIONS) {
            PyErr_SetString(PyExc_ValueError, "the search reached a state with no legal action: an impossible state");
            return -1;
        }
        int action, edge_index;
        if (untried_count) {
            int pick = untried_count > 1 ? rng_below(rng, untried_count) : 0;
            for (int i = 0; i < pick; i++) untried &= untried - 1;
            action = __builtin_ctz(untried);
            edge_index = tree_new_edge(tree, node_index, action, 0, 0.0);
            if (edge_index == NO_EDGE) {
                PyErr_NoMemory();
                return -1;
            }
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
        if (node_index == NO_NODE) {
            PyErr_NoMemory();
            return -1;
        }
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

/* nanoseconds of a clock for the time budget: monotonic where POSIX has one, else the calendar clock */
long long clock_ns(void) {
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

/* whether the most visited root action leads the next by more than `iterations_left` visits (each iteration
 * adds one root visit), so that no later iteration can change it */
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


/* the root's edges in the order they were added, into result */
static void collect_root_edges(const Tree *tree, SearchResult *result) {
    int order[NUM_ACTIONS];
    int n = 0;
    const Node *root = &tree->nodes[ROOT_NODE];
    for (int a = 0; a < NUM_ACTIONS; a++) {
        if (root->edge_of[a] == NO_EDGE) continue;
        int i = n++;
        while (i > 0 && root->edge_of[order[i - 1]] > root->edge_of[a]) { order[i] = order[i - 1]; i--; }
        order[i] = a;
    }
    result->edge_count = n;
    for (int i = 0; i < n; i++) {
        const Edge *edge = &tree->edges[root->edge_of[order[i]]];
        result->edges[i].action = order[i];
        result->edges[i].visits = edge->visits;
        result->edges[i].reward = edge->reward;
        result->edges[i].available = edge->available;
    }
}

/* the tag of every world's talon: equal talons share a tag (1, 2, ... in order of first appearance) */
static int tag_talons(const Worlds *worlds, int talon_len, uint32_t *world_tags) {
    size_t slots = 1;
    while (slots <= 2 * (size_t)worlds->count) slots <<= 1;
    TalonTags talon_tags = {0};
    talon_tags.talons = PyMem_Malloc(sizeof(uint64_t) * slots);
    talon_tags.tags = PyMem_Calloc(slots, sizeof(uint32_t));
    talon_tags.mask = slots - 1;
    int ok = talon_tags.talons && talon_tags.tags;
    for (int w = 0; ok && w < worlds->count; w++) world_tags[w] = talon_tag(&talon_tags, worlds->talons[w], talon_len);
    PyMem_Free(talon_tags.talons);
    PyMem_Free(talon_tags.tags);
    if (!ok) PyErr_NoMemory();
    return ok ? 0 : -1;
}

/* the search from `root` (any world of `spec`: each iteration swaps in its world's opponent hand and talon) over
 * the worlds of `spec`, as `options` say; start_ns: clock_ns() at the call's start (the time budget counts from
 * it). Stops after spec->iterations, at the budget (after one iteration at least), or once decided. Polls
 * Python's signal handlers every INTERRUPT_NS. 0, or -1 with a Python error set */
int run_search(const State *root, const WorldSpec *spec, const SearchOptions *options, long long start_ns,
               SearchResult *result) {
    Rng rng = {options->seed};
    Tree tree = {0};
    Worlds worlds = {0};
    uint32_t *world_tags = NULL;
    int status = -1;
    long done = 0;
    if (draw_worlds(spec, &rng, &worlds) < 0) goto out;
    world_tags = PyMem_Malloc(sizeof(uint32_t) * (size_t)worlds.count);
    if (!world_tags) {
        PyErr_NoMemory();
        goto out;
    }
    if (tag_talons(&worlds, spec->talon_len, world_tags) < 0) goto out;
    if (tree_new_node(&tree, root->hand[options->viewer]) == NO_NODE) {
        PyErr_NoMemory();
        goto out;
    }
    /* one table generation for the whole search (world_tag keeps the worlds' talon-open positions apart) */
    new_search(root);
    long long deadline = start_ns + options->budget_ns;
    long long next_poll = start_ns + INTERRUPT_NS;
    for (; done < spec->iterations; done++) {
        long long now = clock_ns();
        if (options->budgeted && done && now >= deadline) break;
        if (now >= next_poll) {
            if (PyErr_CheckSignals() < 0) goto out;
            next_poll = now + INTERRUPT_NS;
        }
        int w = worlds.picks ? worlds.picks[done] : (int)done;
        State world = *root;
        world.hand[1 - options->viewer] = worlds.hands[w];
        memcpy(world.talon, worlds.talons[w], (size_t)spec->talon_len);
        world.talon_pos = 0;
        world_tag = world_tags[w];
        if (iterate(&tree, &world, options, &rng) < 0) goto out;
        if (solver_stopped) goto out; /* a signal or an impossible position in a leaf's solve: the error is set */
        if (options->until_decided && decided(&tree, spec->iterations - done - 1)) {
            done++;
            break;
        }
    }
    collect_root_edges(&tree, result);
    result->iterations = done;
    status = 0;
out:
    world_tag = 0;
    PyMem_Free(tree.nodes);
    PyMem_Free(tree.edges);
    PyMem_Free(world_tags);
    free_worlds(&worlds);
    return status;
}
