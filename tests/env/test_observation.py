"""schnapsen_env.observation: layout, masks, the spec, and every path agreeing with ``encode`` of the information
set, so an observation holds nothing hidden (RULES §8; test_properties checks the information set)."""

import json
import random
import re

import numpy as np
import pytest

from schnapsen_env import VARIANTS, GameState, Rules
from schnapsen_env.cards import mask_of
from schnapsen_env.observation import (
    NUM_BINARY,
    NUM_NUMERIC,
    OBS_HIGH,
    OBS_LOW,
    OBS_SIZE,
    OBS_SLICES,
    OBSERVATION_TABLE,
    OBSERVATION_VERSION,
    RULE_COLUMNS,
    RULE_FIELDS,
    STATE_SIZE,
    Observer,
    encode,
    encode_full_state,
    encode_state,
    observation_view,
    observer_for,
    rules_from_observation,
    spec_difference,
)
from schnapsen_env.rules import EYES_TO_WIN


def action_mask(state, player):
    """int8 (NUM_ACTIONS,): the legal actions of ``player`` (zeros when not to move)."""
    return Observer(state.rules).state_and_mask(state, player)[1]


def _random_states(rules, games, seed):
    """Every state of ``games`` random games (a fresh clone per state)."""
    rng = random.Random(seed)
    for _ in range(games):
        s = GameState.from_seed(rules, rng=rng)
        while True:
            yield s.clone()
            if s.is_terminal:
                break
            s.apply(rng.choice(s.legal_actions()))


def test_table_is_contiguous_and_sized():
    pos = 0
    for name, size, high, meaning in OBSERVATION_TABLE:
        assert OBS_SLICES[name] == slice(pos, pos + size)
        assert high > 0 and meaning
        pos += size
    assert pos == OBS_SIZE
    assert OBS_LOW.shape == OBS_HIGH.shape == (OBS_SIZE,)
    assert np.all(OBS_HIGH[:NUM_BINARY] == 1.0)
    assert len({n for n, *_ in OBSERVATION_TABLE}) == len(OBSERVATION_TABLE)


def test_fields_mean_what_the_table_says():
    rules = Rules.preset("schnapsen")
    for s in _random_states(rules, 5, seed=7):
        for p in (0, 1):
            v = observation_view(encode_state(s, p))
            hand = [c for c in range(24) if s.hands[p] >> c & 1]
            assert sorted(np.flatnonzero(v["hand"]).tolist()) == hand
            assert np.flatnonzero(v["trump_suit"]).tolist() == [s.trump_suit]
            assert v["to_move"][0] == (s.current_player == p)
            assert v["is_dealer"][0] == (s.dealer == p)
            assert v["eyes_self"][0] == pytest.approx(s.eyes[p] / EYES_TO_WIN)
            assert v["eyes_opponent"][0] == pytest.approx(s.eyes[1 - p] / EYES_TO_WIN)
            assert v["talon_size"][0] == pytest.approx(s.talon_size / 11)
            played = v["played_self"] + v["played_opponent"]
            assert played.sum() == 2 * len(s.tricks)
            assert v["bummerl"][0] == 0 and v["rule_show_eyes"][0] == 1


def test_hidden_eyes_are_zero_and_bummerl_score_is_relative():
    rules = Rules.preset("schnapsen-sharp")
    eyes_seen = False
    for s in _random_states(rules, 10, seed=3):
        eyes_seen |= s.eyes[0] > 0
        for p in (0, 1):
            v = observation_view(encode_state(s, p, bummerl_score=(4, 1)))
            for name in (
                "eyes_self",
                "eyes_opponent",
                "held_marriage_eyes_self",
                "held_marriage_eyes_opponent",
                "closed_opponent_eyes",
            ):
                assert v[name][0] == 0.0
            assert v["rule_show_eyes"][0] == 0 and v["rule_sharp"][0] == 1
            own, other = (4, 1) if p == 0 else (1, 4)
            assert v["bummerl"][0] == 1
            assert v["bummerl_score_self"][0] == pytest.approx(own / rules.bummerl_target)
            assert v["bummerl_score_opponent"][0] == pytest.approx(other / rules.bummerl_target)
    assert eyes_seen


def test_mask_is_zero_for_the_player_not_to_move():
    s = GameState.from_seed(Rules(), seed=5)
    p = s.current_player
    assert action_mask(s, 1 - p).sum() == 0
    assert sorted(np.flatnonzero(action_mask(s, p)).tolist()) == s.legal_actions()


def test_full_state_has_both_hands_and_talon_order():
    s = GameState.from_seed(Rules(), seed=9)
    st = encode_full_state(s, bummerl_score=(2, 3))
    assert st.shape == (STATE_SIZE,) and st.dtype == np.float32
    np.testing.assert_array_equal(st[:OBS_SIZE], encode_state(s, 0, (2, 3)))
    h1 = st[OBS_SIZE : OBS_SIZE + 24]
    assert mask_of(np.flatnonzero(h1).tolist()) == s.hands[1]
    order = st[OBS_SIZE + 24 :]
    drawn = sorted(np.flatnonzero(order).tolist(), key=lambda c: order[c])
    assert drawn == list(s.talon)


def test_out_is_filled_in_place():
    s = GameState.from_seed(Rules(), seed=2)
    out = np.full(OBS_SIZE, 7.0, dtype=np.float32)
    res = encode_state(s, 1, out=out)
    assert res is out
    np.testing.assert_array_equal(out, encode_state(s, 1))


# ------------------------------------------------------------------ the observer and its spec
def test_spec_describes_the_layout_and_the_context():
    spec = Observer(Rules.preset("schnapsen-sharp"), bummerl=True).spec
    assert json.loads(json.dumps(spec)) == spec  # plain JSON-able data
    assert type(spec["version"]) is int and spec["version"] == OBSERVATION_VERSION >= 1
    assert spec["size"] == OBS_SIZE and spec["dtype"] == "float32" and spec["low"] == 0.0
    pos = 0
    for f, (name, size, high, meaning) in zip(spec["fields"], OBSERVATION_TABLE, strict=True):
        assert (f["name"], f["offset"], f["size"], f["high"], f["meaning"]) == (name, pos, size, high, meaning)
        assert OBS_SLICES[name] == slice(pos, pos + size)
        pos += size
        assert ("rule" in f) == (name in RULE_FIELDS)
    assert pos == OBS_SIZE
    assert spec["rules"] == Rules.preset("schnapsen-sharp").to_dict() and spec["bummerl"] is True
    rule = {f["name"]: f["rule"] for f in spec["fields"] if "rule" in f}
    assert rule["rule_deck_24"] == {"option": "deck", "one": 24, "zero": 20}
    assert set(rule) == {n for n in OBS_SLICES if n.startswith("rule_")}
    spec["fields"].clear()  # a copy: the observer's spec does not change
    assert len(Observer().spec["fields"]) == len(OBSERVATION_TABLE)
    assert Observer().spec["rules"] == Rules().to_dict() and Observer().spec["bummerl"] is False
    assert Observer.from_spec(Observer(Rules(deck=24), bummerl=True).spec) == Observer(Rules(deck=24), True)


@pytest.mark.parametrize("variant", VARIANTS)
def test_observer_paths_agree_with_each_other_and_the_module_functions(variant):
    rules = Rules.preset(variant)
    game, bummerl = Observer(rules), Observer(rules, bummerl=True)
    out_s, out_i = np.empty(OBS_SIZE, np.float32), np.empty(OBS_SIZE, np.float32)
    n = 0
    for i, s in enumerate(_random_states(rules, 25, seed=len(variant))):
        score = (i % 4, (i // 4) % 3)
        for p in (0, 1):
            info = s.information_set(p)
            for ob, sc in ((game, None), (bummerl, score)):
                a = ob.fill_state(s, p, out_s, sc)
                b = ob.fill_info(info, out_i, sc)
                assert a is out_s and b is out_i
                np.testing.assert_array_equal(a, b)
                np.testing.assert_array_equal(a, encode_state(s, p, sc))
                np.testing.assert_array_equal(a, encode(info, sc))
                assert np.all(a >= OBS_LOW) and np.all(a <= OBS_HIGH)
                obs, mask = ob.state_and_mask(s, p, sc)
                np.testing.assert_array_equal(obs, a)
                np.testing.assert_array_equal(mask, action_mask(s, p))
                np.testing.assert_array_equal(a[list(RULE_COLUMNS)], ob.rule_entries())
                assert rules_from_observation(a, base=rules) == rules
                n += 1
    assert n > 500


def test_both_paths_go_through_one_packer(monkeypatch):
    s = GameState.from_seed(Rules(), seed=3)
    ob = Observer()
    monkeypatch.setattr(Observer, "_pack", lambda self, src, player, hand, ohs, score: (1, (0.5,) * NUM_NUMERIC))
    expected = np.zeros(OBS_SIZE, np.float32)
    expected[0] = 1.0
    expected[NUM_BINARY:] = 0.5
    for obs in (
        ob.fill_state(s, 0),
        ob.fill_info(s.information_set(0)),
        encode_state(s, 0),
        encode(s.information_set(0)),
        ob.state_and_mask(s, 0)[0],
    ):
        np.testing.assert_array_equal(obs, expected)


def test_observer_equality_and_cache():
    s = GameState.from_seed(Rules(), seed=4)
    with pytest.raises(ValueError, match="rules must be a Rules"):
        Observer("schnapsen")
    assert Observer(Rules()) == Observer() and Observer() != Observer(bummerl=True)
    assert observer_for(s.rules) is observer_for(s.rules) and observer_for(s.rules, True).bummerl


SPEC_EDITS = [
    (
        lambda s: s.update(version=s["version"] + 1),
        f"observation spec version {OBSERVATION_VERSION + 1} in the checkpoint differs "
        f"from version {OBSERVATION_VERSION} here",
    ),
    (lambda s: s["fields"][2].update(offset=52), "field 'unseen' at offset 52 in the checkpoint, 48 here"),
    (lambda s: s["fields"].pop(), "field 'bummerl_score_opponent' (offset 213 here) is not in the checkpoint"),
    (
        lambda s: s["fields"].append({"name": "new", "offset": 214, "size": 1, "high": 1.0, "meaning": "x"}),
        "field 'new' (offset 214 in the checkpoint) is not here",
    ),
    (
        lambda s: s["fields"][-1].update(high=2.0),
        "field 'bummerl_score_opponent': high 2.0 in the checkpoint, 3.0 here",
    ),
    (lambda s: s.update(size=218), "observation size 218 in the checkpoint, 214 here"),
]


@pytest.mark.parametrize("edit,difference", SPEC_EDITS)
def test_spec_difference_names_the_difference(edit, difference):
    spec = Observer().spec
    edit(spec)
    assert spec_difference(spec) == difference
    with pytest.raises(ValueError, match=re.escape(difference.replace("the checkpoint", "the spec"))):
        Observer.from_spec(spec)


def test_spec_difference_of_context_rules_and_bad_specs():
    assert spec_difference(Observer(Rules(deck=24), bummerl=True).spec) is None  # context is not layout
    spec = Observer().spec
    next(f for f in spec["fields"] if f["name"] == "rule_sharp")["rule"]["option"] = "deck"
    assert spec_difference(spec).startswith("field 'rule_sharp': rule {")
    assert spec_difference([1], saved_name="x.pt") == "the observation spec in x.pt is list, not a dict"
    assert spec_difference({"version": 1}) == "the observation spec in the checkpoint has no 'size'"
    with pytest.raises(ValueError, match="no valid 'rules' and 'bummerl'"):
        Observer.from_spec({k: v for k, v in Observer().spec.items() if k != "bummerl"})
