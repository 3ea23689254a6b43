"""The SQL convention (docs/architecture.md, "The ledger's SQL"): statements are text() with named binds or
SQLAlchemy Core; only the hot inserts stay raw driver SQL with ``?`` (bench/ledger.py). The source is scanned so
that a new ``exec_driver_sql`` with ``?`` fails here; the games columns are the model's on every backend."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ledger import closing, dialect
from ledger.models import Game
from ledger.store import SeatRow
from tests.backends import opened_ledger
from tests.ledger.test_backends import game_row, sealed

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("ledger", "web", "tournaments", "replays", "migrations", "tests")
HOT_INSERTS = {
    ("ledger/appending.py", "dialect.hot_insert(connection, dialect.INSERT_EVENT)"),
    ("ledger/appending.py", "dialect.hot_insert(connection, dialect.INSERT_GAME)"),
    ("ledger/appending.py", "dialect.hot_insert(connection, dialect.INSERT_SEAT)"),
    ("migrations/versions/0012_sealed_games.py", "hot_insert(connection, INSERT_EVENT)"),
    ("migrations/versions/0012_sealed_games.py", "EVENTS_NO_DELETE"),  # a trigger's DDL: no parameters
    ("ledger/opening.py", "statement"),  # migrations/head_sqlite.sql (SQLite only): DDL, literal rows, no parameters
}
"""Raw driver SQL by design: executemany in the driver's paramstyle, kept for speed (docs/benchmarks.md, "Ledger
write path"), one revision's trigger, and the generated schema a new SQLite ledger is made from. Nothing rewrites
``?`` on its way to psycopg any more: anything else with ``?`` would fail on PostgreSQL."""


def driver_sql(path: Path) -> list[tuple[int, str]]:
    """(line, statement as written) of every exec_driver_sql call of a module whose SQL has a ``?`` placeholder,
    or is not written in the call (a name, a call: text this scan cannot see)."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "exec_driver_sql" and node.args):
            continue
        statement = node.args[0]
        marks = any(isinstance(part, ast.Constant) and isinstance(part.value, str) and "?" in part.value
                    for part in ast.walk(statement))
        if marks or not isinstance(statement, ast.Constant | ast.JoinedStr):
            found.append((node.lineno, ast.unparse(statement)))
    return found


def modules() -> list[Path]:
    return sorted(path for folder in SCANNED for path in (ROOT / folder).rglob("*.py"))


def test_the_scan_sees_placeholders_and_names(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('c.exec_driver_sql("SELECT 1 FROM t WHERE id = ?", (1,))\n'
                      'c.exec_driver_sql(f"SELECT 1 FROM t WHERE id IN ({\', \'.join(\'?\' * n)})", ids)\n'
                      "c.exec_driver_sql(INSERT_SOMETHING, rows)\n"
                      "c.exec_driver_sql(dialect.hot_insert(c, dialect.INSERT_SOMETHING), rows)\n"
                      'c.exec_driver_sql(f"PRAGMA {name}")\n'
                      'c.execute(text("SELECT 1 FROM t WHERE id = :id"), {"id": 1})\n')
    assert [line for line, _ in driver_sql(sample)] == [1, 2, 3, 4]


def test_no_driver_sql_with_placeholders_outside_the_hot_inserts():
    offending = []
    for path in modules():
        name = path.relative_to(ROOT).as_posix()
        offending += [f"{name}:{line}: {statement}" for line, statement in driver_sql(path)
                      if (name, statement) not in HOT_INSERTS]
    assert not offending, ("exec_driver_sql with ? placeholders (write connection.execute(text(...), {named binds}), "
                           "docs/architecture.md):\n" + "\n".join(offending))


def test_the_allowlists_hold_only_what_is_still_there():
    """A hot insert that went must leave the list (so it only shrinks)."""
    seen = {(path.relative_to(ROOT).as_posix(), statement) for path in modules() for _, statement in driver_sql(path)}
    assert seen >= HOT_INSERTS


def test_the_hot_inserts_speak_each_drivers_paramstyle():
    """psycopg is given ``%s`` by ledger.dialect itself, so the hot inserts do not need dialect_postgres' rewrite."""
    from sqlalchemy import create_engine

    sqlite = create_engine("sqlite://").connect()
    postgresql = create_engine("postgresql+psycopg://nobody@localhost/none")  # never connected
    for statement in (dialect.INSERT_EVENT, dialect.INSERT_GAME, dialect.INSERT_SEAT):
        assert dialect.hot_insert(sqlite, statement) == statement
        for_psycopg = dialect.hot_insert(postgresql, statement)
        assert "?" not in for_psycopg
        assert for_psycopg.count("%s") == statement.count("?")
    sqlite.close()


def test_the_games_columns_are_the_models():
    model = tuple(column.name for column in Game.__table__.columns)
    assert model == closing.GAME_COLUMNS
    assert model == (*dialect.GAME_COLUMNS, "store_seq")
    assert dialect.INSERT_GAME.startswith(f"INSERT INTO games ({', '.join(model)}) VALUES (")


@pytest.fixture
def ledger(backend):
    yield from opened_ledger(backend)


def test_a_stored_game_reads_back_every_column(ledger):
    """store_games writes GAME_COLUMNS in the model's order, and the closing reader reads every column back."""
    bot = ledger.ensure_bot("b", "h" * 64, "python")
    records = sealed("g1", 5)
    head = ledger.store_game({**game_row("g1"), "game_key": "k1"}, records, "the-seed", "finished",
                             [SeatRow(0, bot, 1, 2), SeatRow(1, bot, 2, 0)])
    stored = ledger.game("g1")
    assert set(stored) == {column.name for column in Game.__table__.columns}
    assert (stored["game"], stored["engine_version"], stored["config"], stored["seed_commitment"]) == (
        "high-cards", 1, '{"seats":2}', "c" * 64)
    assert (stored["seed"], stored["game_key"], stored["status"], stored["events"], stored["head"],
            stored["end_reason"], stored["store_seq"]) == ("the-seed", "k1", "finished", 5, head, "finished", 1)
    assert stored["signature"] and stored["created_at"]
    with ledger.read() as connection:
        [read] = closing.of_games(connection, ["g1", "not-stored"])
    assert read.game == stored
    assert [seat.rank for seat in read.seats] == [1, 2]
