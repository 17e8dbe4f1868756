"""The neural policy: masking (no probability, no sample, no entropy for illegal actions),
checkpoint loading and PPOAgent in the arena."""

from __future__ import annotations

import math
import random

import pytest

torch = pytest.importorskip("torch")  # the [train] extra; absent in the lower-bounds CI job

from agents import make_agent  # noqa: E402
from agents.evaluation.arena import play_pair  # noqa: E402
from agents.players.neural import (  # noqa: E402
    DEFAULT_CHECKPOINT,
    SHIPPED,
    MASKED_LOGIT,
    ActorCritic,
    PPOAgent,
    forward_in,
    load_model,
    masked_entropy,
    masked_log_probs,
    sample_actions,
)
from schnapsen_env import NUM_ACTIONS, GameState, Rules  # noqa: E402
from schnapsen_env.observation import OBS_SIZE, Observer  # noqa: E402

SPEC = Observer().spec  # the observation spec every checkpoint records

#: shipped checkpoints must stay small
MAX_CHECKPOINT_BYTES = 5 * 1024 * 1024


def random_masks(rows: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    mask = torch.rand((rows, NUM_ACTIONS), generator=g) < 0.3
    mask[torch.arange(rows), torch.randint(0, NUM_ACTIONS, (rows,), generator=g)] = True  # >= 1 legal
    return mask


def test_illegal_actions_get_exactly_zero_probability():
    g = torch.Generator().manual_seed(1)
    logits = torch.randn((64, NUM_ACTIONS), generator=g) * 5
    mask = random_masks(64, 2)
    logits[~mask] += 50.0  # illegal actions would dominate without the mask
    probs = masked_log_probs(logits, mask).exp()
    assert torch.all(probs[~mask] == 0.0)
    assert torch.allclose(probs.sum(-1), torch.ones(64), atol=1e-5)
    assert torch.all(probs[mask] > 0)


def test_sampled_frequencies_match_the_masked_policy():
    # legal actions 0, 7 and 30 (the first, a middle and the last id) with probabilities 0.5, 0.3, 0.2
    rows = 200_000
    logits = torch.full((rows, NUM_ACTIONS), 9.0)
    logits[:, [0, 7, 30]] = torch.log(torch.tensor([0.5, 0.3, 0.2]))
    mask = torch.zeros((rows, NUM_ACTIONS), dtype=torch.bool)
    mask[:, [0, 7, 30]] = True
    actions, logp = sample_actions(logits, mask, torch.Generator().manual_seed(11))
    counts = torch.bincount(actions, minlength=NUM_ACTIONS)
    assert counts.sum() == rows and counts[mask[0]].sum() == rows
    for a, p in ((0, 0.5), (7, 0.3), (30, 0.2)):
        sd = math.sqrt(rows * p * (1 - p))
        assert abs(int(counts[a]) - rows * p) < 5 * sd, (a, int(counts[a]))
    assert torch.allclose(
        logp, torch.log(torch.tensor([0.5, 0.3, 0.2]))[torch.searchsorted(torch.tensor([0, 7, 30]), actions)], atol=1e-6
    )
    # the same generator state, the same draws
    again, _ = sample_actions(logits, mask, torch.Generator().manual_seed(11))
    assert torch.equal(actions, again)


def test_entropy_counts_legal_actions_only():
    g = torch.Generator().manual_seed(5)
    logits = torch.randn((16, NUM_ACTIONS), generator=g)
    mask = random_masks(16, 6)
    ent = masked_entropy(masked_log_probs(logits, mask), mask)
    for i in range(16):
        legal = [a for a in range(NUM_ACTIONS) if mask[i, a]]
        z = [math.exp(float(logits[i, a])) for a in legal]
        p = [x / sum(z) for x in z]
        hand = -sum(q * math.log(q) for q in p)
        assert ent[i].item() == pytest.approx(hand, rel=1e-5, abs=1e-6)
    # one legal action: a certain choice, entropy 0 whatever the illegal logits say
    one = torch.zeros((1, NUM_ACTIONS), dtype=torch.bool)
    one[0, 7] = True
    assert masked_entropy(masked_log_probs(torch.randn((1, NUM_ACTIONS)), one), one).item() == 0.0


def test_illegal_logits_get_no_gradient():
    logits = torch.randn((8, NUM_ACTIONS), requires_grad=True)
    mask = random_masks(8, 7)
    logp = masked_log_probs(logits, mask)
    (masked_entropy(logp, mask).sum() + logp.gather(1, mask.float().argmax(1, keepdim=True)).sum()).backward()
    assert torch.all(logits.grad[~mask] == 0)
    assert MASKED_LOGIT < -1e30


def test_forward_in_bfloat16_gives_float32_outputs_close_to_float32_and_gradients():
    torch.manual_seed(3)
    model = ActorCritic(OBS_SIZE, [64, 32])
    obs = torch.rand((16, OBS_SIZE))
    logits32, value32 = forward_in(model, obs, "float32")
    logits16, value16 = forward_in(model, obs, "bfloat16")
    assert logits16.dtype == value16.dtype == torch.float32
    assert logits16.shape == (16, NUM_ACTIONS) and value16.shape == (16,)
    assert not torch.equal(logits16, logits32)  # bfloat16 arithmetic ran
    assert torch.allclose(logits16, logits32, atol=0.05) and torch.allclose(value16, value32, atol=0.05)
    (logits16.sum() + value16.sum()).backward()
    assert all(p.grad is not None and p.grad.dtype == torch.float32 for p in model.parameters())


def test_ppo_agent_greedy_is_argmax_over_legal_and_sampling_is_seeded():
    torch.manual_seed(0)
    model = ActorCritic(OBS_SIZE, [16])
    s = GameState.from_seed(Rules.preset("schnapsen"), seed=11)
    info = s.information_set(s.current_player)
    agent = PPOAgent.from_model(model)
    probs = agent.policy(info)
    assert probs.sum() == pytest.approx(1.0)
    assert all(probs[a] == 0 for a in range(NUM_ACTIONS) if a not in info.legal_actions)
    assert agent.act(info) == max(info.legal_actions, key=lambda a: probs[a])
    a1 = [PPOAgent.from_model(model, seed=3, sample=True).act(info) for _ in range(3)]
    sampler = PPOAgent.from_model(model, seed=3, sample=True)
    draws = [sampler.act(info) for _ in range(200)]
    assert a1 == [draws[0]] * 3
    assert set(draws) <= set(info.legal_actions) and len(set(draws)) > 1


def test_bad_checkpoints_are_named(tmp_path):
    bad = tmp_path / "bad.pt"
    torch.save({"weights": torch.zeros(3)}, bad)
    with pytest.raises(ValueError, match="not a policy checkpoint"):
        PPOAgent(str(bad))
    model = ActorCritic(OBS_SIZE + 1, [4])
    wrong = tmp_path / "wrong.pt"
    torch.save({"model": model.state_dict(), "model_config": model.model_config(), "observation_spec": SPEC}, wrong)
    with pytest.raises(ValueError, match=f"expects observations of size {OBS_SIZE + 1}, not {OBS_SIZE}"):
        PPOAgent(str(wrong))


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_checkpoints_load_small_and_beat_random(name):
    path = SHIPPED[name]
    assert path.stat().st_size < MAX_CHECKPOINT_BYTES
    ckpt = torch.load(path, weights_only=True)
    assert ckpt["model_config"]["obs_size"] == OBS_SIZE
    assert make_agent(name).path == str(path)
    r = play_pair(name, "random", games=100, seed=5)
    assert r.wins[0] > r.wins[1]


@pytest.mark.parametrize(
    "content",
    [b"# a readme\nnot a checkpoint\n", DEFAULT_CHECKPOINT.read_bytes()[:5000]],
)
def test_non_checkpoint_files_give_one_clear_line(tmp_path, content):
    f = tmp_path / "README.md"
    f.write_bytes(content)
    with pytest.raises(ValueError) as e:
        make_agent(f"ppo:{f}")
    msg = str(e.value)
    assert msg.startswith(f"cannot load checkpoint {str(f)!r}: not a schnapsen-env policy or training checkpoint (")
    assert "\n" not in msg and "weights_only" not in msg and "Re-running" not in msg


def test_missing_checkpoint_is_a_value_error_naming_the_path(tmp_path):
    missing = tmp_path / "nope.pt"
    with pytest.raises(ValueError, match=f"no checkpoint file at {str(missing)!r}"):
        make_agent(f"ppo:{missing}")
    with pytest.raises(FileNotFoundError):  # still a FileNotFoundError for callers that catch that
        load_model(missing)


def _random_play_positions(seeds, rng: random.Random, resets=()):
    """``(state, information set of the player to move)`` at every decision of random legal play in the
    deals of ``seeds`` (the agents in ``resets`` are reset with each deal's seed first)."""
    for seed in seeds:
        for agent in resets:
            agent.reset(seed)
        g = GameState.from_seed(Rules(), seed)
        while g.outcome is None:
            yield g, g.information_set(g.current_player)
            g.apply(rng.choice(g.legal_actions()))


def test_ppo_endgame_solver_plays_exactly_once_the_talon_is_exhausted_and_the_network_before():
    """``ppo:endgame=solver``: with the talon exhausted (nothing hidden, RULES §3/§8) the solver's best
    action (ties to the lower id); while anything is hidden, the network's own choice."""
    from agents.players import solver

    plain, exact = PPOAgent(), make_agent("ppo:endgame=solver")
    solved = networked = 0
    for g, info in _random_play_positions(range(40), random.Random(11)):
        if solver.is_perfect_information(info):
            values = solver.action_values(GameState.from_information_set(info, info.unseen | info.opponent_known, ()))
            best = max(values.values())
            assert exact.act(info) == min(a for a in info.legal_actions if values[a] == best)
            assert values == solver.action_values(g)  # the information set was the whole state
            solved += 1
        else:
            assert exact.act(info) == plain.act(info)
            networked += 1
    assert solved > 50 and networked > 200
    with pytest.raises(ValueError, match="endgame: Input should be 'network', 'solver' or 'expert'"):
        make_agent("ppo:endgame=search")


def test_ppo_endgame_expert_plays_the_experts_solved_endgames_and_the_network_elsewhere():
    from agents.players.expert import ENDGAME_TALON, ExpertAgent

    plain, hybrid, expert = PPOAgent(), make_agent("ppo:endgame=expert", seed=4), ExpertAgent(seed=4)
    solved = networked = 0
    for _, info in _random_play_positions(range(20), random.Random(5), resets=(hybrid, expert)):
        endgame = info.closed_by >= 0 or info.talon_size <= ENDGAME_TALON
        assert (expert.endgame_action(info) is not None) == endgame
        if endgame:
            assert hybrid.act(info) == expert.act(info)
            solved += 1
        else:
            assert hybrid.act(info) == plain.act(info)
            networked += 1
    assert solved > 100 and networked > 60


def test_endgame_option_wraps_the_network_agent_and_network_wraps_nothing():
    from agents.players.endgame import EndgameAgent

    wrapped = make_agent("ppo-strong:endgame=solver,seed=3")
    assert isinstance(wrapped, EndgameAgent) and wrapped.endgame == "solver"
    assert type(wrapped.agent).__name__ == "StrongPPOAgent" and wrapped.agent.seed == wrapped.seed == 3
    assert wrapped.name == wrapped.agent.name == "ppo-strong:endgame=solver,seed=3"
    assert type(make_agent("ppo:endgame=network")) is PPOAgent
    with pytest.raises(ValueError, match="unknown key 'endgame' in agent spec 'heuristic:endgame=solver'"):
        make_agent("heuristic:endgame=solver")


def test_importing_neural_loads_no_search_agent():
    """The ``endgame=`` players (agents.players.endgame: expert, solver) load with the first agent that uses one."""
    import subprocess
    import sys

    code = "import sys, agents.players.neural; print(' '.join(m for m in sys.modules if m.startswith('agents.')))"
    loaded = set(
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    )
    assert "agents.players.neural" in loaded
    assert not loaded & {
        "agents.players.endgame",
        "agents.players.expert",
        "agents.players.solver",
        "agents.players.pimc",
        "agents.players.batched",
    }
