"""``python -m agents.web [--host 127.0.0.1] [--port 8000] [--opponent SPEC] [--variant V] [--replay FILE]
[--arena DIR]``: serve the game table, the replay viewer and the arena results.

Bad arguments (an unknown agent spec or variant, a replay file that is not ``.json``/``.jsonl``
or not a regular file, an arena folder without results) are one line on standard error, exit
status 2.
"""

from __future__ import annotations

import argparse
import sys

from schnapsen_env.rules import VARIANTS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.web", description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--opponent", default="random",
                        help="default opponent: an agent spec (random, heuristic, pimc:samples=40, ppo, ppo:PATH) "
                             "or a checkpoint path")
    parser.add_argument("--variant", default="schnapsen", choices=VARIANTS, help="default preset of a new game")
    parser.add_argument("--replay", metavar="FILE",
                        help="a RULES §9 record (.json) or records (.jsonl) to open in /replay")
    parser.add_argument("--arena", metavar="DIR", help="the --out folder of python -m agents.arena to show in /arena")
    args = parser.parse_args(argv)
    try:
        from .app import create_app
    except ImportError as e:
        print(f"agents.web needs Flask: pip install -e '.[web]' ({e})", file=sys.stderr)
        return 2
    try:
        app = create_app(opponent=args.opponent, variant=args.variant, replay=args.replay, arena=args.arena)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"Schnapsen in the browser: http://{args.host}:{args.port}/  (replay: /replay, arena: /arena; Ctrl-C stops)")
    try:
        app.run(host=args.host, port=args.port, threaded=True, debug=False, use_reloader=False)
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
