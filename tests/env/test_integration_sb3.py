"""Real integration: sb3-contrib MaskablePPO trains 4,096 steps on the Gymnasium view; every action is legal."""

import gymnasium
import numpy as np
import pytest

import schnapsen_env  # noqa: F401  (registers schnapsen_env/Schnapsen-v0)

sb3_contrib = pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402

TRAIN_STEPS = 4096


@pytest.fixture(autouse=True)
def _sb3_logdir(tmp_path, monkeypatch):
    """Stable-Baselines3 makes an empty /tmp/SB3-<time> log folder on every learn() unless SB3_LOGDIR is set."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))


class LegalityProbe(gymnasium.Wrapper):
    """Counts the learner's actions and fails loudly on an illegal one."""

    actions = 0

    def step(self, action):
        mask = self.env.unwrapped.action_masks()
        if not mask[int(action)]:
            raise AssertionError(f"MaskablePPO chose illegal action {action} (legal: {np.flatnonzero(mask)})")
        LegalityProbe.actions += 1
        return self.env.step(action)


# schnapsen-sharp: manual declaring, where the opponent on lead may end a game before the learner acts
@pytest.mark.parametrize("variant", ["schnapsen", "schnapsen-sharp"])
def test_maskable_ppo_learns_4096_steps_with_only_legal_actions(variant):
    torch.set_num_threads(1)
    LegalityProbe.actions = 0
    # illegal_action="raise": an illegal action would raise inside the env as well
    venv = make_vec_env(
        lambda: LegalityProbe(
            gymnasium.make(
                "schnapsen_env/Schnapsen-v0", opponent="random", seat="random", variant=variant, illegal_action="raise"
            )
        ),
        n_envs=4,
        seed=0,
    )
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=256,
        batch_size=256,
        n_epochs=4,
        seed=0,
        device="cpu",
        policy_kwargs={"net_arch": [64, 64]},
        verbose=0,
    )
    model.learn(TRAIN_STEPS)
    assert model.num_timesteps >= TRAIN_STEPS
    assert LegalityProbe.actions >= TRAIN_STEPS

    # masked greedy play on a fresh env: every prediction is legal
    env = gymnasium.make("schnapsen_env/Schnapsen-v0", opponent="random", variant=variant, illegal_action="raise")
    games = 0
    for seed in range(20):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            masks = get_action_masks(env)
            action, _ = model.predict(obs, action_masks=masks, deterministic=True)
            assert masks[int(action)] and info["action_mask"][int(action)] == 1
            obs, reward, done, _, info = env.step(int(action))
        games += 1
        assert reward != 0
    assert games == 20
