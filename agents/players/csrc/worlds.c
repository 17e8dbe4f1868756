/* The worlds of one decision: the opponent's hand and the talon order, drawn as agents.players.pimc draws PIMC's
 * (known cards pinned, the opponent's skipped exchanges and marriages weighted by agents.players.pimc.inference_weight),
 * from the core's own generator. When the consistent worlds are at most WorldSpec.samples, all of them are
 * enumerated and each iteration draws one by its weight (each world once when they are as many as the
 * iterations and nothing weighs them); else WorldSpec.samples worlds are sampled (a hand
 * uniformly from the candidates, kept with probability its weight for the first max_attempts hands, the talon
 * shuffled) and the iterations cycle through them uniformly. */
#include "core.h"
#include <string.h>

#define SPLITMIX_INCREMENT 0x9E3779B97F4A7C15ull /* 2^64 / golden ratio */
#define SPLITMIX_MIX1 0xBF58476D1CE4E5B9ull
#define SPLITMIX_MIX2 0x94D049BB133111EBull
#define UNIT_BITS 53                             /* a double's mantissa: rng_unit's resolution */
#define UNIT_SCALE (1.0 / 9007199254740992.0)    /* 2^-53 */

/* SplitMix64 (Steele, Lea & Flood, OOPSLA 2014; Vigna's reference code): the next 64 random bits */
uint64_t rng_next(Rng *rng) {
    uint64_t z = (rng->state += SPLITMIX_INCREMENT);
    z = (z ^ (z >> 30)) * SPLITMIX_MIX1;
    z = (z ^ (z >> 27)) * SPLITMIX_MIX2;
    return z ^ (z >> 31);
}

/* uniform in 0..n-1 for 1 <= n (rejection of the last partial block: no modulo bias) */
int rng_below(Rng *rng, int n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % (uint64_t)n;
    uint64_t x = rng_next(rng);
    while (x >= limit) x = rng_next(rng);
    return (int)(x % (uint64_t)n);
}

/* uniform in [0, 1) with 53 bits */
double rng_unit(Rng *rng) {
    return (double)(rng_next(rng) >> (64 - UNIT_BITS)) * UNIT_SCALE;
}

void free_worlds(Worlds *worlds) {
    PyMem_Free(worlds->hands);
    PyMem_Free(worlds->talons);
    PyMem_Free(worlds->weights);
    PyMem_Free(worlds->picks);
}

/* math.comb(n, k) for 0 <= n <= NUM_CARDS (exact: every partial product fits 64 bits); 0 when k > n */
static uint64_t choose(int n, int k) {
    if (k < 0 || k > n) return 0;
    uint64_t out = 1;
    for (int i = 1; i <= k; i++) out = out * (uint64_t)(n - k + i) / (uint64_t)i;
    return out;
}

/* agents.players.pimc.inference_weight: the relative likelihood (0..1) of the opponent's `hand` */
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
            if (pool_count >= inference->draws)
                all_held = (double)choose(pool_count - held, inference->draws) /
                           (double)choose(pool_count, inference->draws);
            weight *= 1.0 - (1.0 - spec->violation_weight) * all_held;
        }
    }
    return weight;
}

/* k of population[:n] without replacement, uniformly, into out (a partial Fisher-Yates shuffle) */
static void sample_cards(Rng *rng, const int *population, int n, int k, int *out) {
    int pool[NUM_CARDS];
    memcpy(pool, population, sizeof(int) * (size_t)n);
    for (int i = 0; i < k; i++) {
        int j = rng_below(rng, n - i);
        out[i] = pool[j];
        pool[j] = pool[n - i - 1];
    }
}

/* cards[:n] in a uniformly random order (Fisher-Yates) */
static void shuffle_cards(Rng *rng, int8_t *cards, int n) {
    for (int i = n - 1; i > 0; i--) {
        int j = rng_below(rng, i + 1);
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

/* the next permutation of cards[:n] in lexicographic order; 0 after the last */
static int next_permutation(int8_t *cards, int n) {
    int i = n - 2;
    while (i >= 0 && cards[i] > cards[i + 1]) i--;
    if (i < 0) return 0;
    int j = n - 1;
    while (cards[j] < cards[i]) j--;
    int8_t card = cards[i];
    cards[i] = cards[j];
    cards[j] = card;
    for (int low = i + 1, high = n - 1; low < high; low++, high--) {
        card = cards[low];
        cards[low] = cards[high];
        cards[high] = card;
    }
    return 1;
}

/* the next k-combination of the indices 0..n-1 in lexicographic order; 0 after the last */
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

/* every consistent world: each hand of `need` candidates, and each talon order when order matters */
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

/* spec->samples worlds: a hand drawn uniformly, kept with probability its inference weight for the first
 * max_attempts hands (then every hand), its talon shuffled */
static void sample_worlds(const WorldSpec *spec, Rng *rng, Worlds *worlds) {
    long attempts = 0;
    int chosen[NUM_CARDS];
    int8_t talon[NUM_CARDS];
    while (worlds->count < spec->samples) {
        sample_cards(rng, spec->candidates, spec->candidate_count, spec->need, chosen);
        uint32_t hand = spec->opponent_known;
        for (int i = 0; i < spec->need; i++) hand |= 1u << chosen[i];
        attempts++;
        int weighed = spec->inference_count && attempts <= spec->max_attempts;
        if (weighed && rng_unit(rng) >= inference_weight(spec, hand)) continue;
        int talon_len = mask_cards(spec->unseen & ~hand, talon);
        shuffle_cards(rng, talon, talon_len);
        add_world(worlds, hand, talon, talon_len);
    }
}

/* the first index whose cumulative weight exceeds x, at most last */
static int first_above(const double *cumulative, double x, int last) {
    int low = 0;
    int high = last;
    while (low < high) {
        int middle = (low + high) / 2;
        if (x < cumulative[middle]) high = middle;
        else low = middle + 1;
    }
    return low;
}

/* for every iteration, a world drawn with probability proportional to its weight */
static int pick_worlds(const WorldSpec *spec, Rng *rng, Worlds *worlds) {
    double *cumulative = PyMem_Malloc(sizeof(double) * (size_t)worlds->count);
    worlds->picks = PyMem_Malloc(sizeof(int) * (size_t)spec->iterations);
    if (!cumulative || !worlds->picks) {
        PyMem_Free(cumulative);
        PyErr_NoMemory();
        return -1;
    }
    double sum = 0.0;
    for (int w = 0; w < worlds->count; w++) {
        sum += worlds->weights[w];
        cumulative[w] = sum;
    }
    for (long i = 0; i < spec->iterations; i++)
        worlds->picks[i] = first_above(cumulative, rng_unit(rng) * sum, worlds->count - 1);
    PyMem_Free(cumulative);
    return 0;
}

/* the worlds of one search (see the top of this file). 0, or -1 with MemoryError / ValueError (no consistent
 * world) */
int draw_worlds(const WorldSpec *spec, Rng *rng, Worlds *worlds) {
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
    if (!worlds->hands || !worlds->talons || !worlds->weights) {
        PyErr_NoMemory();
        return -1;
    }
    if (enumerated) enumerate_worlds(spec, worlds);
    else sample_worlds(spec, rng, worlds);
    int any_weight = 0;
    for (int w = 0; w < worlds->count; w++) {
        /* sampled worlds were kept by their weight already: each counts once */
        worlds->weights[w] = enumerated && spec->inference_count ? inference_weight(spec, worlds->hands[w]) : 1.0;
        any_weight |= worlds->weights[w] > 0.0;
    }
    if (!any_weight) {
        for (int w = 0; w < worlds->count; w++) worlds->weights[w] = 1.0;
    }
    /* each world once when there are as many as iterations and they weigh the same */
    if (worlds->count >= spec->iterations && !(enumerated && spec->inference_count)) return 0;
    return pick_worlds(spec, rng, worlds);
}
