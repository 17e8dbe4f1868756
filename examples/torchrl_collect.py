"""TorchRL: collect frames of Schnapsen self-play with a masked policy (docs: toolkits/torchrl).

    python examples/torchrl_collect.py [--frames 600] [--seed 0] [--policy random|actor]

``random``: ``MaskedRandomPolicy``, uniform among the legal actions. ``actor``: an untrained MLP
shared by both seats (one group ``"agents"`` of 2) sampling through TorchRL's ``MaskedCategorical``
with the env's ``action_mask``, as a learned policy does. Needs the ``[torchrl]`` extra.
"""

import argparse
import time

import torch
from tensordict.nn import TensorDictModule
from torchrl.collectors import Collector
from torchrl.envs.utils import MarlGroupMapType
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor

from schnapsen_env.actions import NUM_ACTIONS
from schnapsen_env.observation import OBS_SIZE
from schnapsen_env.torchrl import MaskedRandomPolicy, make_torchrl_env


def masked_actor(group: str = "agents") -> ProbabilisticActor:
    """An MLP (observation -> 64 -> 31 logits) sampling through ``MaskedCategorical`` with the
    group's mask."""
    mlp = MLP(in_features=OBS_SIZE, out_features=NUM_ACTIONS, num_cells=[64])
    net = TensorDictModule(
        mlp,
        in_keys=[(group, "observation", "observation")],
        out_keys=[(group, "logits")],
    )
    keys = {"logits": (group, "logits"), "mask": (group, "action_mask")}
    return ProbabilisticActor(net, keys, [(group, "action")], distribution_class=MaskedCategorical)


ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument(
    "--frames",
    type=int,
    default=600,
    help="frames (env steps) to collect (default 600)",
)
ap.add_argument("--seed", type=int, default=0, help="seed of the deals and the policy (default 0)")
ap.add_argument("--policy", choices=("random", "actor"), default="random")
args = ap.parse_args()
torch.set_num_threads(1)
t0 = time.perf_counter()
torch.manual_seed(args.seed)  # the actor's weights and MaskedCategorical's draws
if args.policy == "random":
    env = make_torchrl_env(illegal_action="raise", seed=args.seed)
    policy, reward_key = MaskedRandomPolicy(env, seed=args.seed), ("next", "player_0", "reward")
else:  # one group "agents" of both players
    env = make_torchrl_env(
        illegal_action="raise",
        seed=args.seed,
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
    )
    policy, reward_key = masked_actor("agents"), ("next", "agents", "reward")

# the Collector rounds total_frames up to whole batches: the largest batch <= 200 dividing --frames
batch = max(d for d in range(1, min(200, args.frames) + 1) if args.frames % d == 0)
collector = Collector(
    env,
    policy,
    frames_per_batch=batch,
    total_frames=args.frames,
    auto_register_policy_transforms=False,
)
frames = 0
games = 0
points = 0.0
for data in collector:  # a TensorDict of batch_size [batch]
    frames += data.numel()
    games += int(data["next", "done"].sum())
    # player_0's game points (nonzero at game ends)
    points += float(data[reward_key][..., 0, 0].sum())
collector.shutdown()
print(
    f"collected {frames} frames, {games} finished games; player_0 won {points:+.0f} game points "
    f"({args.policy} policy in both seats)"
)
print(f"wall time: {time.perf_counter() - t0:.1f} s")
