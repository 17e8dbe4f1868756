"""The text renderer (schnapsen_env.render) where its text goes."""

import io
import sys

from schnapsen_env import schnapsen_v0


def test_human_render_to_an_ascii_stdout_writes_suit_letters(monkeypatch):
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    monkeypatch.setattr(sys, "stdout", out)
    env = schnapsen_v0.env(render_mode="human", episode="bummerl")
    env.reset(seed=12)
    env.step(int(env.observe(env.agent_selection)["action_mask"].nonzero()[0][0]))
    out.flush()
    assert out.buffer.getvalue().decode("ascii") == (
        "trump: H   trump card: QH   talon: 9 face-down cards\n"
        "player 0                 hand: 4 cards   tricks won: 0   eyes: 0\n"
        "player 1 (you) [dealer]  hand: TC AH AD KD JD   tricks won: 0   eyes: 0\n"
        "trick: player 0 led KC\n"
        "last action: player 0 play KC\n"
        "Bummerl score: 0:0 (-> 7)\n"
        "to move: player 1 (you)\n\n"
    )
