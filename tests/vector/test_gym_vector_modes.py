"""Gymnasium vectorization of the single-agent view: ``gymnasium.make_vec(..., vectorization_mode="sync" |
"async")`` steps with masked random actions, gives the same trajectories in both modes for the same
seeds, and puts a documented ``info["action_mask"]`` at the step where a game ends under each
autoreset mode (``gymnasium.vector.AutoresetMode``, Gymnasium >= 1.1; 1.0 has only NEXT_STEP).

What the tests pin down (README "Vectorized Gymnasium"):

* NEXT_STEP (the default): at the step that ends env i's game, ``info["action_mask"][i]`` is all
  zeros (the finished game has no legal action) and ``info["outcome"][i]`` is the result; the next
  ``step()`` ignores env i's action and returns the new game's first observation and mask (reward 0,
  not terminated).
* SAME_STEP: the step that ends the game already returns the new game's first observation and its
  (non-empty) mask; the finished game's are ``info["final_obs"][i]`` and ``info["final_info"]``
  (``["action_mask"][i]`` all zeros, ``["outcome"][i]``).
* DISABLED: as NEXT_STEP at the end step; env i must be reset by ``reset(options={"reset_mask":
  ...})`` (stepping it first raises the view's RuntimeError), and that reset's ``info["action_mask"]``
  holds masks only for the envs reset (``info["_action_mask"]``); the other rows are zeros, so keep
  their masks from before.
"""

import contextlib
import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import schnapsen_env  # noqa: F401  (registers schnapsen_env/Schnapsen-v0)

ROOT = Path(__file__).resolve().parents[2]
ENV_ID = "schnapsen_env/Schnapsen-v0"
AutoresetMode = getattr(gymnasium.vector, "AutoresetMode", None)  # Gymnasium >= 1.1
AUTORESET = ["NEXT_STEP", "SAME_STEP", "DISABLED"]
NUM_ENVS = 3


def make(vectorization_mode, autoreset="NEXT_STEP", num_envs=NUM_ENVS, **kwargs):
    vector_kwargs = dict(kwargs.pop("vector_kwargs", {}))
    if autoreset != "NEXT_STEP":
        if AutoresetMode is None:
            pytest.skip(f"Gymnasium {gymnasium.__version__} has no AutoresetMode (only NEXT_STEP)")
        vector_kwargs["autoreset_mode"] = AutoresetMode[autoreset]
    return gymnasium.make_vec(
        ENV_ID,
        num_envs=num_envs,
        vectorization_mode=vectorization_mode,
        vector_kwargs=vector_kwargs,
        opponent="random",
        seat="random",
        illegal_action="raise",
        **kwargs,
    )


def masked_random(rng, masks):
    """One uniform legal action per row of ``masks`` (int8 (N, 31)); 0 for a row with no legal action
    (a finished game under NEXT_STEP/DISABLED, whose action the vector env ignores or never sends)."""
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], dtype=np.int64)


def play(env, autoreset, seed, steps):
    """Masked random play for ``steps`` vector steps; returns the trajectory arrays and the games finished."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    masks = info["action_mask"]
    record = {"obs": [obs], "action": [], "reward": [], "terminated": [], "mask": [masks]}
    games = 0
    for _ in range(steps):
        action = masked_random(rng, masks)
        obs, reward, terminated, truncated, info = env.step(action)
        assert not truncated.any()  # no time limit
        masks = info["action_mask"]
        if autoreset == "DISABLED" and terminated.any():
            obs_r, info_r = env.reset(options={"reset_mask": terminated})
            fresh = info_r["_action_mask"]
            np.testing.assert_array_equal(fresh, terminated)
            obs = np.where(fresh[:, None], obs_r, obs)
            masks = np.where(fresh[:, None], info_r["action_mask"], masks)
        games += int(terminated.sum())
        for key, value in zip(record, (obs, action, reward, terminated, masks)):
            record[key].append(value)
    return {k: np.asarray(v) for k, v in record.items()}, games


@pytest.mark.parametrize("autoreset", AUTORESET)
def test_sync_and_async_give_the_same_trajectories(autoreset):
    runs = {}
    for mode, seed in (("sync", 5), ("async", 5), ("sync", 6)):
        env = make(mode, autoreset)
        try:
            runs[mode, seed], _ = play(env, autoreset, seed=seed, steps=200)
        finally:
            env.close()
    for key in ("obs", "action", "reward", "terminated", "mask"):
        np.testing.assert_array_equal(runs["sync", 5][key], runs["async", 5][key])
    assert not np.array_equal(runs["sync", 5]["obs"], runs["sync", 6]["obs"])


def first_end(env, seed=0, limit=100):
    """Step with masked random actions until a game ends; returns (env index, the step's results, rng)."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    for _ in range(limit):
        obs, reward, terminated, truncated, info = env.step(masked_random(rng, info["action_mask"]))
        if terminated.any():
            return int(np.flatnonzero(terminated)[0]), (obs, reward, terminated, truncated, info), rng
    raise AssertionError("no game ended")


def assert_outcome(outcome, i, reward):
    """The vector env stacks the ``outcome`` dicts key by key: ``outcome["game_points"][i]`` (0 and
    ``outcome["_game_points"][i]`` False for an env whose game did not end)."""
    assert outcome["_game_points"][i] and outcome["_reason"][i] and outcome["finished"][i]
    assert outcome["game_points"][i] == abs(reward)
    assert outcome["winner"][i] in (0, 1)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_mask_at_the_end_next_step(mode):
    env = make(mode, "NEXT_STEP")
    try:
        i, (obs, reward, terminated, _, info), rng = first_end(env)
        assert info["action_mask"][i].sum() == 0  # the finished game: no legal action
        assert info["_outcome"][i]
        assert_outcome(info["outcome"], i, reward[i])
        # the next step ignores env i's action (30, `declare`, would raise: illegal here) and resets env i
        action = masked_random(rng, info["action_mask"])
        action[i] = 30
        obs2, reward2, terminated2, _, info2 = env.step(action)
        assert reward2[i] == 0 and not terminated2[i]
        assert info2["action_mask"][i].sum() >= 1
        assert info2["_skipped_outcomes"][i]  # reset()'s info: the new game's
        assert not np.array_equal(obs2[i], obs[i])
    finally:
        env.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_mask_at_the_end_same_step(mode):
    env = make(mode, "SAME_STEP")
    try:
        i, (obs, reward, terminated, _, info), rng = first_end(env)
        assert info["action_mask"][i].sum() >= 1  # already the new game's mask
        assert info["_final_obs"][i] and info["_final_info"][i]
        final = info["final_info"]
        assert final["action_mask"][i].sum() == 0  # the finished game's mask
        assert_outcome(final["outcome"], i, reward[i])
        assert not np.array_equal(info["final_obs"][i], obs[i])  # obs[i] is the new game's first observation
        # the new game goes on from that mask
        obs2, reward2, terminated2, _, info2 = env.step(masked_random(rng, info["action_mask"]))
        assert info2["action_mask"].shape == (NUM_ENVS, 31)
    finally:
        env.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_mask_at_the_end_disabled(mode):
    env = make(mode, "DISABLED")
    try:
        i, (obs, reward, terminated, _, info), rng = first_end(env)
        assert info["action_mask"][i].sum() == 0
        assert_outcome(info["outcome"], i, reward[i])
        masks_before = info["action_mask"].copy()
        obs_r, info_r = env.reset(options={"reset_mask": terminated})
        np.testing.assert_array_equal(info_r["_action_mask"], terminated)
        assert info_r["action_mask"][i].sum() >= 1
        others = ~terminated
        np.testing.assert_array_equal(info_r["action_mask"][others], 0)  # not reset: zeros, keep the old masks
        assert masks_before[others].sum(axis=1).min() >= 1
    finally:
        env.close()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_disabled_stepping_a_finished_game_raises(mode):
    # sync: Gymnasium's own check (an AssertionError) stops it before the env; async: the worker steps the
    # finished env, whose RuntimeError (call reset() first) Gymnasium raises again in the main process
    env = make(mode, "DISABLED")
    try:
        i, (_, _, terminated, _, info), rng = first_end(env)
        after_end = "SchnapsenGymEnv.step\\(\\) before reset\\(\\) or after the episode ended: call reset\\(\\) first"
        expected = {"sync": (AssertionError, "_autoreset_envs"), "async": (RuntimeError, after_end)}
        warns = pytest.warns(UserWarning) if mode == "async" else contextlib.nullcontext()  # Gymnasium's note
        with warns, pytest.raises(expected[mode][0], match=expected[mode][1]):
            env.step(masked_random(rng, info["action_mask"]))
    finally:
        env.close()


FRESH_SCRIPT = textwrap.dedent("""
    import hashlib, sys
    import numpy as np
    import gymnasium

    def digest(env_id, mode, context=None):
        kwargs = {"context": context} if context else {}
        env = gymnasium.make_vec(env_id, num_envs=2, vectorization_mode=mode, vector_kwargs=kwargs,
                                 opponent="random", seat="random", illegal_action="raise")
        rng = np.random.default_rng(0)
        obs, info = env.reset(seed=3)
        h = hashlib.sha256(obs.tobytes())
        for _ in range(120):
            masks = info["action_mask"]
            action = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            obs, reward, terminated, truncated, info = env.step(action)
            h.update(obs.tobytes()); h.update(reward.tobytes())
        env.close()
        return h.hexdigest()[:16]

    if __name__ == "__main__":
        before = "schnapsen_env" in sys.modules
        env_id = sys.argv[1]
        if env_id == "plain":  # the plain id needs the registration: import the package first
            import schnapsen_env  # noqa: F401
            env_id = "schnapsen_env/Schnapsen-v0"
        runs = [digest(env_id, "sync")] + [digest(env_id, "async", c) for c in ("spawn", "forkserver")]
        print(before, len(set(runs)), runs[0])
""")


@pytest.mark.parametrize("env_id", ["schnapsen_env:schnapsen_env/Schnapsen-v0", "plain"])
def test_fresh_process_sync_and_async_spawn_forkserver(tmp_path, env_id):
    # a fresh interpreter that imports only gymnasium (the "module:" id form makes gymnasium import
    # schnapsen_env), with async workers started by spawn and forkserver (fresh processes that import
    # nothing by hand): all three runs give the same trajectory
    script = tmp_path / "fresh_vec.py"
    script.write_text(FRESH_SCRIPT)
    proc = subprocess.run(
        [sys.executable, str(script), env_id], capture_output=True, text=True, cwd=tmp_path, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    before, distinct, first = proc.stdout.split()
    assert before == "False" and distinct == "1"
    # and it is the trajectory this process gets in sync mode
    h = hashlib.sha256()
    env = gymnasium.make_vec(
        ENV_ID, num_envs=2, vectorization_mode="sync", opponent="random", seat="random", illegal_action="raise"
    )
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=3)
    h.update(obs.tobytes())
    for _ in range(120):
        action = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in info["action_mask"]])
        obs, reward, terminated, truncated, info = env.step(action)
        h.update(obs.tobytes())
        h.update(reward.tobytes())
    env.close()
    assert h.hexdigest()[:16] == first
