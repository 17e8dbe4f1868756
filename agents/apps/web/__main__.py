"""``python -m agents.apps.web``: serve the game table, the replay viewer and the arena results in the browser.

Bad arguments (those :func:`agents.apps.web.app.create_app` refuses, a port outside 0..65535, a port in
use or a host that does not resolve) are one line on standard error, exit status 2."""

from __future__ import annotations

import argparse
import os
import socket
import sys

from schnapsen_env.cli_io import plain_text
from schnapsen_env.rules import VARIANTS

MAX_PORT = 65535  #: the largest TCP port


def port_number(text: str) -> int:
    """An argparse type: a TCP port 0..65535 (0: any free port)."""
    if not (text.isdigit() and int(text) <= MAX_PORT):
        raise argparse.ArgumentTypeError(f"invalid port {text!r}: give a whole number 0..{MAX_PORT}")
    return int(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agents.apps.web",
        description=plain_text(__doc__.split("\n\n")[0]),
    )
    add = parser.add_argument
    add(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    add(
        "--port",
        type=port_number,
        default=8000,
        help="port 0..65535 (default 8000; 0: any free port)",
    )
    add(
        "--opponent",
        default="random",
        help="default opponent: an agent spec or a checkpoint path (any path)",
    )
    add("--variant", default="schnapsen", choices=VARIANTS, help="default preset of a new game")
    add(
        "--replay",
        metavar="FILE",
        help="a RULES §9 record (.json) or records (.jsonl) to open in /replay",
    )
    add(
        "--arena",
        metavar="DIR",
        help="the --out folder of python -m agents.evaluation.arena to show in /arena",
    )
    add(
        "--checkpoints",
        metavar="DIR",
        help="checkpoints the browser may choose as opponents (ppo:NAME.pt in DIR)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        from werkzeug.serving import make_server

        from .app import create_app
    except ImportError as e:
        print(f"agents.apps.web needs Flask: pip install -e '.[web]' ({e})", file=sys.stderr)
        return 2
    try:
        app = create_app(
            opponent=args.opponent,
            variant=args.variant,
            replay=args.replay,
            arena=args.arena,
            checkpoints=args.checkpoints,
            host=args.host,
        )
        # bind once before werkzeug does: a port in use or an unknown host is one line here, several
        # lines there
        family, kind, proto, _, addr = socket.getaddrinfo(
            args.host,
            args.port,
            type=socket.SOCK_STREAM,
        )[0]
        with socket.socket(family, kind, proto) as probe:
            if os.name != "nt":
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does
            probe.bind(addr)
        server = make_server(args.host, args.port, app, threaded=True)
    except OSError as e:
        print(
            f"error: cannot listen on {args.host}:{args.port}: {e.strerror or e}",
            file=sys.stderr,
        )
        return 2
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    url = f"http://{args.host}:{server.port}/"
    print(
        f"Schnapsen in the browser: {url}  (replay: /replay, arena: /arena; Ctrl-C stops)",
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
