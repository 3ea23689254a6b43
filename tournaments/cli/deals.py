"""`tourney deals`: deal books, files of deal seeds that every pairing plays (`run --deals`, `match --deals`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperCommand

from tournaments.cli.options import MAX_GAMES, check_whole, plural

app = typer.Typer(help="Deal books: files of deal seeds every pairing plays, from every seat rotation (tourney run "
                       "--deals, tourney match --deals).", no_args_is_help=True)


NEGATIVE = re.compile(r"-\d+")


class CountCommand(TyperCommand):
    """A command whose argument is a count: click reads `-3` as an unknown option ("No such option: -3"); here a
    negative number that no option takes is the count, which the count's own check refuses as out of range."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:
        valued = {name for param in self.params if param.param_type_name == "option" and not param.is_flag
                  for name in param.opts}
        for at, token in enumerate(args):
            if token == "--":
                break
            if NEGATIVE.fullmatch(token) and (at == 0 or args[at - 1] not in valued):
                rest = [*args[:at], *args[at + 1:]]
                args = [*rest, token] if "--" in rest else [*rest, "--", token]  # after "--": an argument
                break
        return super().parse_args(ctx, args)


@app.command("new", cls=CountCommand)
def new(
    count: Annotated[int, typer.Argument(help="How many deals.", metavar="COUNT",
                                         callback=lambda value: check_whole(value, 1, MAX_GAMES, "deals"))],
    game: Annotated[str, typer.Option("--game", help="Game the deals are for: tails-on-fire, nine-tails or "
                                                     "lemur-tails.")],
    out: Annotated[Path | None, typer.Option("--out", help="The file to write (default: <game>-<N>.deals here); "
                                                           "never overwritten.", show_default=False)] = None,
    seed: Annotated[str | None, typer.Option("--seed", help="Derive the deals from this seed (the same book every "
                                                            "time; default: drawn at random).", show_default=False)]
    = None,
) -> None:
    """Write a deal book of COUNT deal seeds for a game; `tourney run --deals FILE` plays each at every table.

    \b
    Example: tourney deals new 50 --game lemur-tails
    Example: tourney deals new 20 --game tails-on-fire --seed 7 --out spring.deals
    """
    from engines import registry
    from tournaments.play import deal_books

    engine = registry.get(game)
    book = deal_books.new(count, engine.name, seed)
    path = out if out is not None else deal_books.default_path(book)
    deal_books.write(book, path)
    typer.echo(f"wrote {plural(count, 'deal')} of {engine.name} to {path}")

