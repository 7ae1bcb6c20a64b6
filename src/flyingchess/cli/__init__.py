"""The `flyingchess` command: replay and check records, ask a bot, watch a demo, benchmark.

Every failure a user can cause prints one line on standard error and exits with status 2;
no traceback reaches the terminal (docs/records.md's command-line contract). The grammar is
`parser.py`; the commands are in `records.py`, `games.py`, `many_games.py` and `serving.py`,
over `common.py`.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .common import EXIT_USAGE, CommandError
from .parser import build_parser

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        result: int = args.handler(args)
        return result
    except CommandError as error:
        sys.stdout.flush()
        sys.stderr.write(f"{error}\n")
        return EXIT_USAGE
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
