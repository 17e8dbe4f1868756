"""The players: every agent that picks a move, and what they share.

:mod:`.base` holds the :class:`~agents.players.base.Agent` interface; then the baselines (:mod:`.random_agent`,
:mod:`.heuristic`, :mod:`.expert`), the exact double-dummy solver over the compiled core (:mod:`.solver`,
``csrc/``) and the players built on it (:mod:`.pimc`, :mod:`.pimc_om`, :mod:`.search`, :mod:`.endgame`), the
neural policies (:mod:`.neural`, :mod:`.shipped` with ``checkpoints/``), agents that step many games as
tensors (:mod:`.batched`) and adapters for other projects' policies (:mod:`.vu`, :mod:`.sb3`, :mod:`.rllib`).
A player imports nothing of the other rooms; :mod:`agents.registry` builds one from a spec string."""
