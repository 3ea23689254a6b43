"""Alembic migrations: from empty to head, down and up again, schema equals the models."""

from __future__ import annotations

import sqlite3

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlmodel import SQLModel

import ledger.models  # noqa: F401
from ledger.store import Ledger

TRIGGERS = {"events_no_update", "events_no_delete", "events_contiguous",
            "ladder_events_no_update", "ladder_events_no_delete", "checkpoints_no_update", "checkpoints_no_delete"}


def triggers(path):
    with sqlite3.connect(path) as raw:
        return {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}


def tables(path):
    with sqlite3.connect(path) as raw:
        return {row[0] for row in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_opening_a_new_database_upgrades_it_to_head(db_path):
    """Opening an empty file creates every table and trigger, at the head revision."""
    store = Ledger(str(db_path))
    assert store.current() == store.head()
    assert {"bots", "tournaments", "tournament_bots", "games", "events", "seats"} <= tables(db_path)
    assert triggers(db_path) == TRIGGERS


def test_downgrade_to_base_and_upgrade_again(db_path):
    """Down to base removes every table; up again restores tables and triggers."""
    store = Ledger(str(db_path))
    store.downgrade("base")
    assert store.current() is None
    assert tables(db_path) <= {"alembic_version"}
    store.upgrade()
    assert store.current() == store.head()
    assert triggers(db_path) == TRIGGERS


def test_migrated_schema_matches_the_models(ledger):
    """Autogenerate finds no difference between the migrated database and SQLModel metadata."""
    with ledger.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diff = compare_metadata(context, SQLModel.metadata)
    assert diff == []


def test_upgrade_is_idempotent(db_path):
    """Opening a database at head twice changes nothing."""
    Ledger(str(db_path)).close()
    before = tables(db_path), triggers(db_path)
    Ledger(str(db_path)).close()
    assert (tables(db_path), triggers(db_path)) == before


def test_pinned_head_is_alembics_head():
    """migrations.HEAD, which lets an up-to-date database open without Alembic, is the real head."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    import migrations

    config = Config()
    config.set_main_option("script_location", migrations.SCRIPT_LOCATION)
    assert ScriptDirectory.from_config(config).get_current_head() == migrations.HEAD


def test_ladder_tables_exist_at_head(db_path):
    """Revision 0002 adds the ladder tables beside the triggers of 0001."""
    Ledger(str(db_path)).close()
    assert {"ladders", "ladder_entries", "bot_archives", "ladder_games", "ladder_ratings"} <= tables(db_path)
    assert triggers(db_path) == TRIGGERS


def test_pinned_revisions_are_alembics_history():
    """migrations.REVISIONS, which tells a newer database from an older one, is Alembic's history oldest first."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    import migrations

    config = Config()
    config.set_main_option("script_location", migrations.SCRIPT_LOCATION)
    history = [script.revision for script in ScriptDirectory.from_config(config).walk_revisions()]
    assert tuple(reversed(history)) == migrations.REVISIONS and migrations.REVISIONS[-1] == migrations.HEAD
