"""Apps: play the agents yourself. :mod:`.play` in the terminal (``python -m agents.apps.play``), :mod:`.web`
in the browser: play, replays and arena results (``python -m agents.apps.web``)."""
