"""``python -m agents.web [--host 127.0.0.1] [--port 8000] [--opponent SPEC] [--variant V] [--replay FILE]
[--arena DIR] [--checkpoints DIR]``: serve the game table, the replay viewer and the arena results.

Bad arguments (an unknown agent spec or variant, a replay file that is not ``.json``/``.jsonl``
or not a regular file, an arena folder without results, a checkpoints folder that is not one, a port
outside 0..65535, a port in use or a host that does not resolve) are one line on standard error, exit
status 2.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys

from schnapsen_env.cli_io import Once
from schnapsen_env.rules import VARIANTS


def port_number(text: str) -> int:
    """An argparse type: a TCP port 0..65535 (0: any free port)."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid port {text!r}: give a whole number 0..65535") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range: give a whole number 0..65535")
    return port


def check_listen(host: str, port: int) -> None:
    """Raise ``OSError`` unless ``host`` resolves and ``port`` can be bound there."""
    family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    with socket.socket(family, kind, proto) as s:
        if os.name != "nt":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
        s.bind(addr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agents.web", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--host",
        action=Once,
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only); requests must name it, 127.0.0.1, "
        "localhost or [::1] in their Host",
    )
    parser.add_argument(
        "--port", action=Once, type=port_number, default=8000, help="port 0..65535 (default 8000; 0: any free port)"
    )
    parser.add_argument(
        "--opponent",
        action=Once,
        default="random",
        help="default opponent: an agent spec (random, heuristic, pimc:samples=40, ppo, ppo:PATH) or a checkpoint "
        "path (any path here; the browser may name only checkpoints inside --checkpoints)",
    )
    parser.add_argument(
        "--variant", action=Once, default="schnapsen", choices=VARIANTS, help="default preset of a new game"
    )
    parser.add_argument(
        "--replay", action=Once, metavar="FILE", help="a RULES §9 record (.json) or records (.jsonl) to open in /replay"
    )
    parser.add_argument(
        "--arena", action=Once, metavar="DIR", help="the --out folder of python -m agents.arena to show in /arena"
    )
    parser.add_argument(
        "--checkpoints",
        action=Once,
        metavar="DIR",
        help="a folder of checkpoints the browser may choose as opponents (ppo:NAME.pt, relative "
        "to DIR); without it, only agent specs without a path",
    )
    args = parser.parse_args(argv)
    try:
        from .app import create_app
    except ImportError as e:
        print(f"agents.web needs Flask: pip install -e '.[web]' ({e})", file=sys.stderr)
        return 2
    try:
        app = create_app(args.opponent, args.variant, args.replay, args.arena, args.checkpoints, args.host)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    from werkzeug.serving import make_server

    try:  # bind before the banner: a port in use or an unknown host is one line, exit 2
        check_listen(args.host, args.port)  # werkzeug itself prints several lines and exits 1
        server = make_server(args.host, args.port, app, threaded=True)
    except (OSError, OverflowError, UnicodeError) as e:
        print(f"error: cannot listen on {args.host}:{args.port}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
        return 2
    print(
        f"Schnapsen in the browser: http://{args.host}:{server.port}/  (replay: /replay, arena: /arena; Ctrl-C stops)",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        return 130
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
