"""`python -m tournaments` and the `tourney` console script.

Ctrl-C must end any command with one line and exit code 130, also while Python is still
importing the CLI (typer, SQLAlchemy, the engines: most of a command's start-up). Python's
own handler would print a KeyboardInterrupt traceback from inside whatever module was being
imported, so the first thing ``main`` does is take SIGINT over: until a command starts, Ctrl-C
prints the line and ends the process at once (nothing has been written yet). While a command
runs, SIGINT is Python's KeyboardInterrupt again, which the command turns into its own line
(`run` says how many games are stored and how to resume).

A trap of `python -m`: CPython remembers a KeyboardInterrupt that left an ``exec`` or ``eval`` of
a string (dataclasses and namedtuple build their methods so: a press while a module imports can)
even after it was handled, and at exit ``python -m`` then kills itself with SIGINT instead of
returning the command's code (130). ``main`` ends by running an empty string, which clears it.

Before that, sys.stdout and sys.stderr are made to show control characters escaped
(tournaments.cli.escapes): much of what tourney prints was written by bots.
"""

import os
import signal

INTERRUPTED = b"error: interrupted\n"


def interrupted_outside_a_command(_signum, _frame) -> None:
    os.write(2, INTERRUPTED)
    os._exit(130)


def main() -> None:
    signal.signal(signal.SIGINT, interrupted_outside_a_command)
    from tournaments.cli.escapes import filter_streams

    filter_streams()
    from tournaments.cli import main as run_command

    try:
        run_command()
    finally:
        exec("")  # forgets a KeyboardInterrupt already handled (see above); an unhandled one is raised on


if __name__ == "__main__":
    main()
