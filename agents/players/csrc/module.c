/* The module agents.players._solver_core: its entry points (agents/players/solver.py and agents/players/search.py are the intended
 * callers) and configure(). Every entry point reads its arguments with parse.c, so every state is validated once
 * where it enters; each raises RuntimeError until configure() has run.
 *
 *   configure(constants: dict) -> None           schnapsen_env's constants by name, once (agents.players.solver does)
 *   value(rules, state, closers) -> int          game points for the player to move (-3..3, never 0)
 *   action_values(rules, state, closers, win_only=False) -> [(action, value)]
 *   deal_action_values(rules, state, closers, generation) -> (generation, [(action, value)])
 *   solve(rules, state, closers) -> (value, [best actions ascending])
 *   legal_mask(rules, state, closers) -> int     bitmask over action ids (0 for a finished game)
 *   step(rules, state, action) -> None or (winner, game_points)
 *   step_fields(rules, state, action) -> dict    the compact state after the action, by GameState field name,
 *                                                plus "outcome": None or (winner, game points)
 *   search_tree(rules, state, worlds, options) -> ([(action, visits, reward, available)], iterations)
 *   sample_worlds(worlds, seed) -> (hands, talons)   the per-iteration worlds of a search (for the tests)
 *   nodes() -> int                               nodes searched by the last search (benchmarks)
 *
 * rules: a schnapsen_env Rules; state: a schnapsen_env GameState; closers: bitmask of the players who may close
 * (bit p: player p); worlds: an agents.players.search.WorldSpec; options: an agents.players.search.SearchOptions. */
#include "core.h"
#include <string.h>

extern int bonus_max;
int int_in(PyObject *value, const char *kind, const char *field, long low, long high, long *out);
int parse_rules(PyObject *obj, long closers, Rules *rules);
int parse_state(PyObject *obj, State *s, int allow_terminal);
int parse_world_spec(PyObject *obj, WorldSpec *spec);
int parse_search_options(PyObject *obj, SearchOptions *options, long *closers);

static int configured;

static int check_configured(void) {
    if (configured) return 0;
    PyErr_SetString(PyExc_RuntimeError,
                    "agents.players._solver_core is not configured: call configure() first (agents.players.solver does at import)");
    return -1;
}

/* (rules, state, closers) of a solver call into R and *s */
static int parse_position(PyObject *rules, PyObject *state, long closers, State *s, int allow_terminal) {
    if (check_configured() < 0) return -1;
    if (closers < 0 || closers > 3) {
        PyErr_Format(PyExc_ValueError, "closers must be a bitmask in 0..3 (bit p: player p may close), got %ld",
                     closers);
        return -1;
    }
    if (parse_rules(rules, closers, &R) < 0) return -1;
    return parse_state(state, s, allow_terminal);
}

static int parse_args(PyObject *args, State *s, int allow_terminal) {
    PyObject *rules, *state;
    long closers;
    if (!PyArg_ParseTuple(args, "OOl", &rules, &state, &closers)) return -1;
    return parse_position(rules, state, closers, s, allow_terminal);
}

/* NULL when a signal interrupted the last search (its Python error is set), else `result` */
static PyObject *unless_interrupted(PyObject *result) {
    if (!solver_stopped) return result;
    Py_XDECREF(result);
    return NULL;
}

static PyObject *py_value(PyObject *self, PyObject *args) {
    State s;
    if (parse_args(args, &s, 0) < 0) return NULL;
    new_search(&s);
    int value = exact_value(&s);
    return unless_interrupted(PyLong_FromLong(value));
}

/* [(action, value)] of every legal action of s, searched in the current table generation */
static PyObject *action_value_list(const State *s, int win_only) {
    int actions[MAX_MOVES], values[MAX_MOVES];
    int n = root_values(s, win_only, actions, values);
    if (solver_stopped) return NULL;
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *pair = Py_BuildValue("(ii)", actions[i], values[i]);
        if (!pair) {
            Py_DECREF(out);
            return NULL;
        }
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
    if (parse_position(rules, state, closers, &s, 0) < 0) return NULL;
    new_search(&s);
    return action_value_list(&s, win_only);
}

/* action_values with the table of `generation` kept when it is still the current one (no other search since;
 * 0: none), else a new generation. The caller passes only states of one deal (same talon, trump, rules and
 * closers): the key leaves those out. */
static PyObject *py_deal_action_values(PyObject *self, PyObject *args) {
    State s;
    PyObject *rules, *state;
    long closers;
    unsigned long generation;
    if (!PyArg_ParseTuple(args, "OOlk", &rules, &state, &closers, &generation)) return NULL;
    if (parse_position(rules, state, closers, &s, 0) < 0) return NULL;
    if (generation == 0 || generation != tt_gen) new_generation(&s); /* table part fixed until the next one */
    node_count = 0;
    PyObject *values = action_value_list(&s, 0);
    if (!values) return NULL;
    return Py_BuildValue("(kN)", (unsigned long)tt_gen, values);
}

static PyObject *py_solve(PyObject *self, PyObject *args) {
    State s;
    if (parse_args(args, &s, 0) < 0) return NULL;
    new_search(&s);
    /* value first (full window), then a null-window test per action: is it as good? */
    int value = exact_value(&s);
    int moves[MAX_MOVES];
    int n = order_moves(&s, legal_mask(&s), -1, moves);
    int best[MAX_MOVES];
    int best_count = 0;
    for (int i = 0; i < n; i++) {
        if (child_value(&s, moves[i], value - 1, value) >= value) best[best_count++] = moves[i];
    }
    if (solver_stopped) return NULL;
    PyObject *actions = PyList_New(0);
    if (!actions) return NULL;
    for (int a = 0; a < NUM_ACTIONS; a++) {
        for (int i = 0; i < best_count; i++) {
            if (best[i] != a) continue;
            PyObject *action = PyLong_FromLong(a);
            if (!action || PyList_Append(actions, action) < 0) {
                Py_XDECREF(action);
                Py_DECREF(actions);
                return NULL;
            }
            Py_DECREF(action);
        }
    }
    return Py_BuildValue("(iN)", value, actions);
}

static PyObject *py_legal_mask(PyObject *self, PyObject *args) {
    State s;
    if (parse_args(args, &s, 1) < 0) return NULL;
    return PyLong_FromUnsignedLong(legal_mask(&s));
}

/* (rules, state, action) of step / step_fields: s after the action (both players may close) */
static int parse_step(PyObject *args, State *s) {
    PyObject *rules, *state;
    long action;
    if (!PyArg_ParseTuple(args, "OOl", &rules, &state, &action)) return -1;
    if (parse_position(rules, state, 3, s, 1) < 0) return -1;
    if (s->current_player < 0) {
        PyErr_SetString(PyExc_ValueError, "the game is over: no action can be applied");
        return -1;
    }
    uint32_t mask = legal_mask(s);
    if (action < 0 || action >= NUM_ACTIONS || !(mask >> action & 1)) {
        PyErr_Format(PyExc_ValueError, "action %ld is not legal in this state (legal mask of the core: 0x%lx)", action,
                     (unsigned long)mask);
        return -1;
    }
    apply(s, (int)action);
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

static PyObject *py_step_fields(PyObject *self, PyObject *args) {
    State s;
    if (parse_step(args, &s) < 0) return NULL;
    PyObject *talon = PyTuple_New(s.talon_len);
    if (!talon) return NULL;
    for (int i = 0; i < s.talon_len; i++) {
        PyObject *card = PyLong_FromLong(s.talon[i]);
        if (!card) {
            Py_DECREF(talon);
            return NULL;
        }
        PyTuple_SET_ITEM(talon, i, card);
    }
    PyObject *outcome = outcome_of(&s);
    if (!outcome) {
        Py_DECREF(talon);
        return NULL;
    }
    /* the format, a field per line: each "s" a GameState field name, then its value */
    return Py_BuildValue("{"
                         "s[kk]" "sN" "si" "si"
                         "si" "si" "si" "si"
                         "si" "s[ii]" "s[ii]" "s[ii]"
                         "si" "si" "sN" "sN"
                         "}",
                         "hands", (unsigned long)s.hand[0], (unsigned long)s.hand[1],
                         "talon", talon,
                         "talon_pos", s.talon_pos,
                         "trump_card", s.trump_card,
                         "trump_suit", s.trump,
                         "leader", s.leader,
                         "current_player", s.current_player,
                         "lead_card", s.lead_card,
                         "pending_marriage", s.pending,
                         "eyes", s.eyes[0], s.eyes[1],
                         "held_marriage_eyes", s.held[0], s.held[1],
                         "tricks_won", s.tw[0], s.tw[1],
                         "closed_by", s.closed_by,
                         "closed_opponent_eyes", s.closed_opp_eyes,
                         "closed_opponent_had_trick", PyBool_FromLong(s.closed_opp_trick),
                         "outcome", outcome);
}

/* sample_worlds(worlds, seed) -> (hands, talons): the world of every iteration of a search of the WorldSpec
 * `worlds` seeded with `seed` (for the tests) */
static PyObject *py_sample_worlds(PyObject *self, PyObject *args) {
    PyObject *spec_in;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "OK", &spec_in, &seed)) return NULL;
    WorldSpec spec;
    if (parse_world_spec(spec_in, &spec) < 0) return NULL;
    Rng rng = {seed};
    Worlds worlds = {0};
    PyObject *hands = NULL;
    PyObject *talons = NULL;
    PyObject *result = NULL;
    if (draw_worlds(&spec, &rng, &worlds) < 0) goto out;
    Py_ssize_t n = worlds.picks ? spec.iterations : worlds.count;
    hands = PyList_New(n);
    talons = PyList_New(n);
    if (!hands || !talons) goto out;
    for (Py_ssize_t i = 0; i < n; i++) {
        int w = worlds.picks ? worlds.picks[i] : (int)i;
        PyObject *talon = PyTuple_New(spec.talon_len);
        PyObject *hand = PyLong_FromUnsignedLong(worlds.hands[w]);
        if (!talon || !hand) {
            Py_XDECREF(talon);
            Py_XDECREF(hand);
            goto out;
        }
        for (int k = 0; k < spec.talon_len; k++) PyTuple_SET_ITEM(talon, k, PyLong_FromLong(worlds.talons[w][k]));
        PyList_SET_ITEM(hands, i, hand);
        PyList_SET_ITEM(talons, i, talon);
    }
    result = Py_BuildValue("(OO)", hands, talons);
out:
    Py_XDECREF(hands);
    Py_XDECREF(talons);
    free_worlds(&worlds);
    return result;
}

/* search_tree(rules, state, worlds, options) -> ([(action, visits, reward, available)], iterations): the
 * information-set search of search.c from `state` (any world of the WorldSpec `worlds`) under the
 * SearchOptions `options`; the root edges in the order they were added */
static PyObject *py_search_tree(PyObject *self, PyObject *args) {
    long long start_ns = clock_ns();
    PyObject *rules, *state, *spec_in, *options_in;
    if (!PyArg_ParseTuple(args, "OOOO", &rules, &state, &spec_in, &options_in)) return NULL;
    if (check_configured() < 0) return NULL;
    SearchOptions options;
    long closers;
    WorldSpec spec;
    State root;
    if (parse_search_options(options_in, &options, &closers) < 0 || parse_world_spec(spec_in, &spec) < 0) return NULL;
    if (parse_rules(rules, 3, &options.tree_rules) < 0) return NULL;
    /* the same rules at the leaves, where only the closers may close */
    options.leaf_rules = options.tree_rules;
    options.leaf_rules.allow_close = options.tree_rules.allow_close & (int)closers;
    if (parse_state(state, &root, 0) < 0) return NULL;
    if (spec.talon_len != root.talon_len - root.talon_pos || root.current_player != options.viewer) {
        PyErr_Format(PyExc_ValueError, "the worlds (talon of %d cards) do not fit the state (talon of %d, player %d "
                     "to move, viewer %d)", spec.talon_len, root.talon_len - root.talon_pos, root.current_player,
                     options.viewer);
        return NULL;
    }
    if (root.talon_pos) { /* the worlds hold the talon left to draw */
        memmove(root.talon, root.talon + root.talon_pos, (size_t)spec.talon_len);
        root.talon_len = (int8_t)spec.talon_len;
        root.talon_pos = 0;
    }
    SearchResult result;
    if (run_search(&root, &spec, &options, start_ns, &result) < 0) return NULL;
    PyObject *edges = PyList_New(result.edge_count);
    if (!edges) return NULL;
    for (int i = 0; i < result.edge_count; i++) {
        const RootEdge *edge = &result.edges[i];
        PyObject *row = Py_BuildValue("(iidi)", edge->action, edge->visits, edge->reward, edge->available);
        if (!row) {
            Py_DECREF(edges);
            return NULL;
        }
        PyList_SET_ITEM(edges, i, row);
    }
    return Py_BuildValue("(Nl)", edges, result.iterations);
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
    } else if (int_in(v, "constant", key, lo, hi, &x) < 0) {
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
                         "agents.players._solver_core was compiled for %s = %ld but schnapsen_env has %ld: "
                         "update agents/players/_solver_core.c and rebuild it (pip install -e .)",
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
    long eyes[NUM_CARDS], total = 0;
    for (int c = 0; c < NUM_CARDS; c++) {
        if (int_in(PySequence_Fast_GET_ITEM(ce, c), "constant", "CARD_EYES", 0, KEY_EYES_MAX, &eyes[c]) < 0) return NULL;
        total += eyes[c];
    }
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
    rules_set_eyes(eyes);
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
     "search_tree(rules, state, worlds, options) -> ([(action, visits, reward, available)], iterations): "
     "agents.players.search's information-set search over the worlds of the WorldSpec `worlds`, as the SearchOptions "
     "`options` say"},
    {"sample_worlds", py_sample_worlds, METH_VARARGS,
     "sample_worlds(worlds, seed) -> (opponent hands, talons): the per-iteration worlds search_tree draws for the "
     "WorldSpec `worlds` and the seed `seed`"},
    {"nodes", py_nodes, METH_NOARGS, "nodes searched by the last call"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "_solver_core", "Compiled alpha-beta core of agents.players.solver (see agents/players/solver.py).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__solver_core(void) {
    rules_init();
    if (solver_init() < 0) return NULL;
    return PyModule_Create(&moduledef);
}
