"""Play, replay and arena results in the browser: ``python -m agents.apps.web [--port 8000]``.

A small Flask server (:func:`agents.apps.web.app.create_app`) with plain HTML/CSS/JS pages:
``/`` a game table against any agent spec, ``/replay`` a RULES §9 record viewer,
``/arena`` the results of ``python -m agents.evaluation.arena --out DIR``. Needs the ``[web]`` extra (Flask).
"""
