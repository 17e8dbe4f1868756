/* What enters the core, read from Python objects by field name and checked once, here: schnapsen_env's Rules and
 * GameState (validated by GameState.validate(), the one rule set of a possible state), agents.players.search's WorldSpec,
 * LeadInference and SearchOptions. A missing field is a TypeError, an ill-typed or out-of-range one a TypeError or
 * ValueError, each naming the record and the field; an impossible state is schnapsen_env's InvalidStateError (a
 * ValueError) naming what is wrong. */
#include "core.h"
#include <string.h>

/* the largest last-trick bonus the key allows on top of all cards and marriages (set by configure) */
int bonus_max;

#define MAX_FIELD_NAMES 128 /* more than the field names read here (about 50 call sites) */
static const char *field_texts[MAX_FIELD_NAMES];  /* the field names met so far (string literals: by address) */
static PyObject *field_names[MAX_FIELD_NAMES];    /* each one's interned str, kept for the module's life */
static int field_name_count;

/* the interned str of the field name `field` (a string literal), made once: a state's fields are read on every
 * solver call (borrowed reference; NULL with MemoryError) */
static PyObject *field_name(const char *field) {
    for (int i = 0; i < field_name_count; i++) {
        if (field_texts[i] == field) return field_names[i];
    }
    if (field_name_count == MAX_FIELD_NAMES) {
        PyErr_SetString(PyExc_RuntimeError, "agents._solver_core: more field names than MAX_FIELD_NAMES");
        return NULL;
    }
    PyObject *name = PyUnicode_InternFromString(field);
    if (!name) return NULL;
    field_texts[field_name_count] = field;
    field_names[field_name_count] = name;
    field_name_count++;
    return name;
}

/* attribute `field` of obj, a `kind` (new reference); TypeError naming both when it is missing */
static PyObject *read_field(PyObject *obj, const char *kind, const char *field) {
    PyObject *name = field_name(field);
    if (!name) return NULL;
    PyObject *value = PyObject_GetAttr(obj, name);
    if (!value && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s has no field '%s' (got %.100s)", kind, field, Py_TYPE(obj)->tp_name);
    }
    return value;
}

/* value, field `field` of a `kind`, as an int in low..high (a bool is 0 or 1); TypeError / ValueError naming it */
int int_in(PyObject *value, const char *kind, const char *field, long low, long high, long *out) {
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s field '%s' must be an int, got %.100s", kind, field, Py_TYPE(value)->tp_name);
        return -1;
    }
    int overflow;
    long x = PyLong_AsLongAndOverflow(value, &overflow);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow || x < low || x > high) {
        PyErr_Format(PyExc_ValueError, "%s field '%s' must be in %ld..%ld, got %R", kind, field, low, high, value);
        return -1;
    }
    *out = x;
    return 0;
}

/* attribute `field` of obj as an int in low..high */
static int read_int(PyObject *obj, const char *kind, const char *field, long low, long high, long *out) {
    PyObject *value = read_field(obj, kind, field);
    if (!value) return -1;
    int status = int_in(value, kind, field, low, high, out);
    Py_DECREF(value);
    return status;
}

/* attribute `field` of obj as a bool (True/False only) */
static int read_bool(PyObject *obj, const char *kind, const char *field, int *out) {
    PyObject *value = read_field(obj, kind, field);
    if (!value) return -1;
    int status = 0;
    if (!PyBool_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s field '%s' must be a bool, got %.100s", kind, field, Py_TYPE(value)->tp_name);
        status = -1;
    } else {
        *out = value == Py_True;
    }
    Py_DECREF(value);
    return status;
}

/* attribute `field` of obj as a float in low..high (an int or a float) */
static int read_float(PyObject *obj, const char *kind, const char *field, double low, double high, double *out) {
    PyObject *value = read_field(obj, kind, field);
    if (!value) return -1;
    int status = -1;
    if (!(PyFloat_Check(value) || PyLong_Check(value)) || PyBool_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s field '%s' must be a float, got %.100s", kind, field,
                     Py_TYPE(value)->tp_name);
    } else {
        double x = PyFloat_AsDouble(value);
        if (x == -1.0 && PyErr_Occurred()) {
            /* the error is set */
        } else if (!(x >= low && x <= high)) {
            PyErr_Format(PyExc_ValueError, "%s field '%s' must be in %g..%g, got %R", kind, field, low, high, value);
        } else {
            *out = x;
            status = 0;
        }
    }
    Py_DECREF(value);
    return status;
}

/* attribute `field` of obj as a list or tuple (new reference) of at most `most` items (exactly `most` when
 * exact) */
static PyObject *read_sequence(PyObject *obj, const char *kind, const char *field, Py_ssize_t most, int exact) {
    PyObject *value = read_field(obj, kind, field);
    if (!value) return NULL;
    int is_sequence = PyList_Check(value) || PyTuple_Check(value);
    Py_ssize_t size = is_sequence ? PySequence_Fast_GET_SIZE(value) : -1;
    if (!is_sequence || size > most || (exact && size != most)) {
        PyErr_Format(PyExc_TypeError, "%s field '%s' must be a list or tuple of %s%zd ints, got %R", kind, field,
                     exact ? "" : "at most ", most, value);
        Py_DECREF(value);
        return NULL;
    }
    return value;
}

/* attribute `field` of obj, a list or tuple of `count` ints in low..high, into out */
static int read_ints(PyObject *obj, const char *kind, const char *field, Py_ssize_t count, int exact, long low,
                     long high, long *out, int *got) {
    PyObject *sequence = read_sequence(obj, kind, field, count, exact);
    if (!sequence) return -1;
    int n = (int)PySequence_Fast_GET_SIZE(sequence);
    int status = 0;
    for (int i = 0; status == 0 && i < n; i++)
        status = int_in(PySequence_Fast_GET_ITEM(sequence, i), kind, field, low, high, &out[i]);
    Py_DECREF(sequence);
    if (got) *got = n;
    return status;
}

/* R from a schnapsen_env Rules; closers: bit p = player p may close, where the rules allow it (RULES §7) */
int parse_rules(PyObject *obj, long closers, Rules *rules) {
    long sharp, manual, later, allow_closing, king_only, at_once, bonus, exchange_rank;
    if (read_int(obj, "Rules", "sharp", 0, 1, &sharp) < 0 ||
        read_int(obj, "Rules", "manual_declare", 0, 1, &manual) < 0 ||
        read_int(obj, "Rules", "closing_counts_later_eyes", 0, 1, &later) < 0 ||
        read_int(obj, "Rules", "allow_closing", 0, 1, &allow_closing) < 0 ||
        read_int(obj, "Rules", "king_only", 0, 1, &king_only) < 0 ||
        read_int(obj, "Rules", "credit_marriage_at_once", 0, 1, &at_once) < 0 ||
        read_int(obj, "Rules", "last_trick_bonus", 0, bonus_max, &bonus) < 0 ||
        read_int(obj, "Rules", "exchange_rank", 0, RANKS_PER_SUIT - 1, &exchange_rank) < 0)
        return -1;
    /* false_declaration_points: "as_if_correct" or 2 */
    PyObject *points = read_field(obj, "Rules", "false_declaration_points");
    if (!points) return -1;
    int as_if_correct = PyUnicode_Check(points) && PyUnicode_CompareWithASCIIString(points, "as_if_correct") == 0;
    int fixed = PyLong_CheckExact(points) && PyLong_AsLong(points) == GP_FIXED_FALSE_DECLARATION;
    PyErr_Clear(); /* an int too large for a long is simply not 2 */
    if (!as_if_correct && !fixed) {
        PyErr_Format(PyExc_ValueError, "Rules field 'false_declaration_points' must be \"as_if_correct\" or 2, got %R",
                     points);
        Py_DECREF(points);
        return -1;
    }
    Py_DECREF(points);
    rules->sharp = (int)sharp;
    rules->manual = (int)manual;
    rules->fdp_fixed = fixed;
    rules->later = (int)later;
    rules->allow_close = allow_closing ? (int)closers : 0;
    rules->king_only = (int)king_only;
    rules->credit_next = !at_once;
    rules->bonus = (int)bonus;
    rules->exrank = (int)exchange_rank;
    return 0;
}

/* *s from a schnapsen_env GameState: read field by field (each range guards an array below), then validated by
 * its validate() (InvalidStateError naming the broken invariant). A finished game is a ValueError unless
 * allow_terminal. */
int parse_state(PyObject *obj, State *s, int allow_terminal) {
    long hands[2], eyes[2], held[2], tricks_won[2], talon[MAX_TALON];
    long talon_pos, trump_card, trump_suit, leader, current_player, lead_card, pending, closed_by;
    long closed_opponent_eyes, closed_opponent_had_trick;
    int talon_len = 0;
    const char *kind = "GameState";
    if (read_ints(obj, kind, "hands", 2, 1, 0, (1L << NUM_CARDS) - 1, hands, NULL) < 0 ||
        read_ints(obj, kind, "eyes", 2, 1, 0, KEY_EYES_MAX, eyes, NULL) < 0 ||
        read_ints(obj, kind, "held_marriage_eyes", 2, 1, 0, KEY_HELD_MAX, held, NULL) < 0 ||
        read_ints(obj, kind, "tricks_won", 2, 1, 0, NUM_CARDS / 2, tricks_won, NULL) < 0 ||
        read_ints(obj, kind, "talon", MAX_TALON, 0, 0, NUM_CARDS - 1, talon, &talon_len) < 0 ||
        read_int(obj, kind, "talon_pos", 0, talon_len, &talon_pos) < 0 ||
        read_int(obj, kind, "trump_card", NO_CARD, NUM_CARDS - 1, &trump_card) < 0 ||
        read_int(obj, kind, "trump_suit", 0, NUM_SUITS - 1, &trump_suit) < 0 ||
        read_int(obj, kind, "leader", 0, 1, &leader) < 0 ||
        read_int(obj, kind, "current_player", NOBODY, 1, &current_player) < 0 ||
        read_int(obj, kind, "lead_card", NO_CARD, NUM_CARDS - 1, &lead_card) < 0 ||
        read_int(obj, kind, "pending_marriage", -1, NUM_SUITS - 1, &pending) < 0 ||
        read_int(obj, kind, "closed_by", NOBODY, 1, &closed_by) < 0 ||
        read_int(obj, kind, "closed_opponent_eyes", 0, KEY_EYES_MAX, &closed_opponent_eyes) < 0 ||
        read_int(obj, kind, "closed_opponent_had_trick", 0, 1, &closed_opponent_had_trick) < 0)
        return -1;
    PyObject *checked = PyObject_CallMethod(obj, "validate", NULL);
    if (!checked) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "the state must be a schnapsen_env GameState (it has no validate()), got "
                         "%.100s", Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    Py_DECREF(checked);
    if (current_player == NOBODY && !allow_terminal) {
        PyErr_SetString(PyExc_ValueError, "the state is terminal (no player to move): nothing to solve");
        return -1;
    }
    memset(s, 0, sizeof(*s));
    s->hand[0] = (uint32_t)hands[0];
    s->hand[1] = (uint32_t)hands[1];
    s->talon_len = (int8_t)talon_len;
    for (int i = 0; i < talon_len; i++) s->talon[i] = (int8_t)talon[i];
    s->talon_pos = (int8_t)talon_pos;
    s->trump_card = (int8_t)trump_card;
    s->trump = (int8_t)trump_suit;
    s->leader = (int8_t)leader;
    s->current_player = (int8_t)current_player;
    s->lead_card = (int8_t)lead_card;
    s->pending = (int8_t)pending;
    s->eyes[0] = (int16_t)eyes[0];
    s->eyes[1] = (int16_t)eyes[1];
    s->held[0] = (int16_t)held[0];
    s->held[1] = (int16_t)held[1];
    s->tw[0] = (int8_t)tricks_won[0];
    s->tw[1] = (int8_t)tricks_won[1];
    s->closed_by = (int8_t)closed_by;
    s->closed_opp_eyes = (int16_t)closed_opponent_eyes;
    s->closed_opp_trick = (int8_t)closed_opponent_had_trick;
    s->winner = NOBODY;
    return 0;
}

#define WORLD_SPEC "WorldSpec"
#define LEAD_INFERENCE "LeadInference"
#define SEARCH_OPTIONS "SearchOptions"
#define ANY_MASK ((1L << NUM_CARDS) - 1)

static int parse_inference(PyObject *obj, Inference *inference) {
    long led, later_plays, draws, groups[MAX_GROUPS];
    int group_count = 0;
    if (read_int(obj, LEAD_INFERENCE, "led", 1, ANY_MASK, &led) < 0 ||
        read_int(obj, LEAD_INFERENCE, "later_plays", 0, ANY_MASK, &later_plays) < 0 ||
        read_int(obj, LEAD_INFERENCE, "draws", 0, NUM_CARDS, &draws) < 0 ||
        read_ints(obj, LEAD_INFERENCE, "groups", MAX_GROUPS, 0, 1, ANY_MASK, groups, &group_count) < 0)
        return -1;
    inference->group_count = group_count;
    for (int g = 0; g < group_count; g++) inference->groups[g] = (uint32_t)groups[g];
    inference->led = (uint32_t)led;
    inference->later_plays = (uint32_t)later_plays;
    inference->draws = (int)draws;
    return 0;
}

/* an agents.players.search.WorldSpec, checked: ValueError / TypeError naming the first bad field */
int parse_world_spec(PyObject *obj, WorldSpec *spec) {
    long need, known, unseen, samples, iterations, max_attempts, candidates[NUM_CARDS];
    int order_matters;
    if (read_int(obj, WORLD_SPEC, "need", 0, NUM_CARDS, &need) < 0 ||
        read_int(obj, WORLD_SPEC, "opponent_known", 0, ANY_MASK, &known) < 0 ||
        read_int(obj, WORLD_SPEC, "unseen", 0, ANY_MASK, &unseen) < 0 ||
        read_bool(obj, WORLD_SPEC, "order_matters", &order_matters) < 0 ||
        read_int(obj, WORLD_SPEC, "samples", 1, MAX_WORLDS, &samples) < 0 ||
        read_int(obj, WORLD_SPEC, "iterations", 1, INT_MAX, &iterations) < 0 ||
        read_int(obj, WORLD_SPEC, "max_attempts", 0, LONG_MAX, &max_attempts) < 0 ||
        read_float(obj, WORLD_SPEC, "violation_weight", 0.0, 1.0, &spec->violation_weight) < 0 ||
        read_ints(obj, WORLD_SPEC, "candidates", NUM_CARDS, 0, 0, NUM_CARDS - 1, candidates,
                  &spec->candidate_count) < 0)
        return -1;
    if (samples > iterations) {
        PyErr_Format(PyExc_ValueError, "WorldSpec field 'samples' (%ld) must not exceed iterations (%ld)", samples,
                     iterations);
        return -1;
    }
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
    for (int i = 0; i < spec->candidate_count; i++) {
        spec->candidates[i] = (int)candidates[i];
        if ((i && candidates[i] <= candidates[i - 1]) || !(spec->unseen >> candidates[i] & 1u)) {
            PyErr_SetString(PyExc_ValueError, "WorldSpec field 'candidates' must be unseen card ids, ascending");
            return -1;
        }
    }
    spec->order_matters = order_matters;
    spec->samples = (int)samples;
    spec->iterations = iterations;
    spec->max_attempts = max_attempts;
    PyObject *inferences = read_field(obj, WORLD_SPEC, "inferences");
    if (!inferences) return -1;
    int status = 0;
    if (!(PyList_Check(inferences) || PyTuple_Check(inferences)) ||
        PySequence_Fast_GET_SIZE(inferences) > MAX_INFERENCES) {
        PyErr_Format(PyExc_TypeError, "WorldSpec field 'inferences' must be a tuple of at most %d LeadInference",
                     MAX_INFERENCES);
        status = -1;
    } else {
        spec->inference_count = (int)PySequence_Fast_GET_SIZE(inferences);
        for (int i = 0; status == 0 && i < spec->inference_count; i++)
            status = parse_inference(PySequence_Fast_GET_ITEM(inferences, i), &spec->inferences[i]);
    }
    Py_DECREF(inferences);
    return status;
}

#define MAX_EXPLORATION 1e6
#define MAX_SECONDS 1e6

/* an agents.players.search.SearchOptions into options (the rules set by the caller); its closers into *closers */
int parse_search_options(PyObject *obj, SearchOptions *options, long *closers) {
    long viewer;
    unsigned long long seed;
    if (read_int(obj, SEARCH_OPTIONS, "viewer", 0, 1, &viewer) < 0 ||
        read_int(obj, SEARCH_OPTIONS, "closers", 0, 3, closers) < 0 ||
        read_float(obj, SEARCH_OPTIONS, "exploration", 0.0, MAX_EXPLORATION, &options->exploration) < 0 ||
        read_bool(obj, SEARCH_OPTIONS, "win_reward", &options->win_reward) < 0 ||
        read_bool(obj, SEARCH_OPTIONS, "win_only", &options->win_only) < 0 ||
        read_bool(obj, SEARCH_OPTIONS, "expand_all", &options->expand_all) < 0 ||
        read_bool(obj, SEARCH_OPTIONS, "rollout_leaves", &options->rollout_leaves) < 0 ||
        read_bool(obj, SEARCH_OPTIONS, "until_decided", &options->until_decided) < 0)
        return -1;
    PyObject *seconds = read_field(obj, SEARCH_OPTIONS, "seconds");
    if (!seconds) return -1;
    options->budgeted = seconds != Py_None;
    Py_DECREF(seconds);
    double budget_s = 0.0;
    if (options->budgeted && read_float(obj, SEARCH_OPTIONS, "seconds", 0.0, MAX_SECONDS, &budget_s) < 0) return -1;
    options->budget_ns = (long long)(budget_s * 1e9);
    PyObject *seed_value = read_field(obj, SEARCH_OPTIONS, "seed");
    if (!seed_value) return -1;
    seed = PyLong_Check(seed_value) && !PyBool_Check(seed_value) ? PyLong_AsUnsignedLongLong(seed_value) : 0;
    if (!PyLong_Check(seed_value) || PyBool_Check(seed_value) || PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "SearchOptions field 'seed' must be an int in 0..2**64-1, got %R", seed_value);
        Py_DECREF(seed_value);
        return -1;
    }
    Py_DECREF(seed_value);
    options->viewer = (int)viewer;
    options->seed = seed;
    return 0;
}
