"""Evaluation: agents played against each other, and what the results mean.

:mod:`.arena` plays pairs and round robins on duplicate deals (``python -m agents.evaluation.arena``);
:mod:`.ladder` rates one agent on the fixed scale of ``ladder_v*.json`` (``python -m agents.evaluation.ladder``);
:mod:`.labels` values played decision states with the solver (``python -m agents.evaluation.labels``);
:mod:`.stats` holds the intervals and ratings, :mod:`.provenance` where a result was made and of what,
:mod:`.workers` the worker processes they share, :mod:`.resume` how a run keeps finished work and continues (a
checked kept file, one run per output folder)."""
