/* The rules on the compact State (RULES §2-§5, every option of §7): apply an action, the legal actions. The same
 * rules as schnapsen_env/engine.py's GameState.apply and legal_mask (tests/engine/test_core_agreement.py). */
#include "core.h"

Rules R;
int EYES_TO_WIN, MARRIAGE_EYES, TRUMP_MARRIAGE_EYES, SCHNEIDER_EYES;
int card_eyes[NUM_CARDS];
int suit_eyes[64];
uint32_t suit_mask[NUM_SUITS];
uint32_t higher[NUM_CARDS], lower[NUM_CARDS];
uint32_t king_bits;

/* the card tables that do not depend on configure() */
void rules_init(void) {
    for (int c = 0; c < NUM_CARDS; c++) suit_mask[c / RANKS_PER_SUIT] |= 1u << c;
    king_bits = 0;
    for (int s = 0; s < NUM_SUITS; s++) king_bits |= 1u << (s * RANKS_PER_SUIT + KING);
    for (int c = 0; c < NUM_CARDS; c++) {
        uint32_t same_suit = suit_mask[c / RANKS_PER_SUIT];
        higher[c] = same_suit & ((1u << c) - 1);
        lower[c] = same_suit & ~((1u << (c + 1)) - 1);
    }
}

/* card_eyes and suit_eyes from configure()'s CARD_EYES (eyes per card id, by rank only) */
void rules_set_eyes(const long *eyes) {
    for (int c = 0; c < NUM_CARDS; c++) card_eyes[c] = (int)eyes[c];
    for (int m = 0; m < 64; m++) {
        suit_eyes[m] = 0;
        for (int r = 0; r < RANKS_PER_SUIT; r++) if (m >> r & 1) suit_eyes[m] += card_eyes[r];
    }
}

int game_points_for(int loser_eyes, int loser_has_trick) {
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

void apply(State *s, int a) {
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
uint32_t legal_mask(const State *s) {
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
