"""Training helpers for ``train.py``: the config (:mod:`.config`), the lockstep self-play games with
their opponent pool (:mod:`.selfplay`) and the run directory (:mod:`.run`: checkpoints, logs, time
budget, signals). The PPO algorithm itself is in ``train.py`` (one page, CleanRL style)."""
