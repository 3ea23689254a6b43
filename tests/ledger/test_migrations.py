"""Alembic migrations on each backend: from empty to head, down and up again, schema equals the models."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlmodel import SQLModel

import ledger.models
from ledger.store import Ledger
from tests.backends import opened_ledger

APPEND_ONLY = ("events", "ladder_events", "checkpoints", "sealed_games", "sealed_dictionaries")
TRIGGERS = {f"{table}_no_{operation}" for table in APPEND_ONLY for operation in ("update", "delete")} \
    | {"events_contiguous"}
TRIGGERS_BY_BACKEND = {
    "sqlite": TRIGGERS,
    # TRUNCATE fires no row trigger: PostgreSQL refuses it with a statement trigger of its own.
    "postgresql": TRIGGERS | {f"{table}_no_truncate" for table in APPEND_ONLY},
}


@pytest.fixture
def ledger(backend):
    """This module's tests run on every backend (tests/backends.py)."""
    yield from opened_ledger(backend)


def test_opening_a_new_database_upgrades_it_to_head(backend):
    """Opening an empty database creates every table and trigger, at the head revision."""
    store = Ledger(backend.url)
    assert store.current() == store.head()
    assert {"bots", "tournaments", "tournament_bots", "games", "events", "seats"} <= backend.tables()
    assert backend.triggers() == TRIGGERS_BY_BACKEND[backend.name]
    store.close()


def test_downgrade_to_base_and_upgrade_again(backend):
    """Down to base removes every table (and on PostgreSQL the trigger functions); up again restores them."""
    store = Ledger(backend.url)
    store.downgrade("base")
    assert store.current() is None
    assert backend.tables() <= {"alembic_version"}
    assert backend.triggers() == set()
    store.upgrade()
    assert store.current() == store.head()
    assert backend.triggers() == TRIGGERS_BY_BACKEND[backend.name]
    store.close()


@pytest.mark.slow
def test_each_revision_goes_down_and_up_again(backend):
    """Every revision's downgrade undoes its upgrade: step down one at a time to base, then up to head."""
    import migrations

    store = Ledger(backend.url)
    for revision in reversed(("base", *migrations.REVISIONS[:-1])):
        store.downgrade(revision)
        assert store.current() == (None if revision == "base" else revision)
    store.upgrade()
    assert store.current() == store.head()
    assert backend.triggers() == TRIGGERS_BY_BACKEND[backend.name]
    store.close()


def test_migrated_schema_matches_the_models(ledger):
    """Autogenerate finds no difference between the migrated database and SQLModel metadata."""
    with ledger.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diff = compare_metadata(context, SQLModel.metadata)
    assert diff == []


def test_upgrade_is_idempotent(backend):
    """Opening a database at head twice changes nothing."""
    Ledger(backend.url).close()
    before = backend.tables(), backend.triggers()
    Ledger(backend.url).close()
    assert (backend.tables(), backend.triggers()) == before


def test_pinned_head_is_alembics_head():
    """migrations.HEAD, which lets an up-to-date database open without Alembic, is the real head."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    import migrations

    config = Config()
    config.set_main_option("script_location", migrations.SCRIPT_LOCATION)
    assert ScriptDirectory.from_config(config).get_current_head() == migrations.HEAD


def test_ladder_tables_exist_at_head(backend):
    """Revision 0002 adds the ladder tables beside the triggers of 0001."""
    Ledger(backend.url).close()
    assert {"ladders", "ladder_entries", "bot_archives", "ladder_games", "ladder_ratings"} <= backend.tables()
    assert backend.triggers() == TRIGGERS_BY_BACKEND[backend.name]


def test_pinned_revisions_are_alembics_history():
    """migrations.REVISIONS, which tells a newer database from an older one, is Alembic's history oldest first."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    import migrations

    config = Config()
    config.set_main_option("script_location", migrations.SCRIPT_LOCATION)
    history = [script.revision for script in ScriptDirectory.from_config(config).walk_revisions()]
    assert tuple(reversed(history)) == migrations.REVISIONS and migrations.REVISIONS[-1] == migrations.HEAD
