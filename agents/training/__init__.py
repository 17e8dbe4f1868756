"""Training: new policies made by playing. PPO self-play (:mod:`.train`, one page, CleanRL style;
``train.py`` at the repository root calls it) with its config (:mod:`.config`), opponent pool (:mod:`.pool`)
and run directory (:mod:`.run`: checkpoints, logs, time budget, signals); expert iteration on solver labels
(:mod:`.pretrain`, :mod:`.exit`); a best response against a frozen agent, its exploitability
(:mod:`.exploit`); self-play with Ray RLlib (:mod:`.rllib_selfplay`)."""
