"""PPO training: the algorithm (:mod:`.train`, one page, CleanRL style; ``train.py`` at the repository root
calls it), its config (:mod:`.config`), the opponent pool (:mod:`.pool`) and the run directory
(:mod:`.run`: checkpoints, logs, time budget, signals)."""
