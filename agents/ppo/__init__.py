"""Training helpers for ``train.py``: the config dataclasses (:mod:`.config`) and the
lockstep self-play games with their opponent pool (:mod:`.selfplay`). The PPO
algorithm itself is in ``train.py`` (one page, CleanRL style)."""
