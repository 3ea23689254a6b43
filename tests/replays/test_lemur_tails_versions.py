"""Lemur Tails rules versions: version 2 names kinds (LT-21), and every version-1 log still verifies.

fixtures/lemur-tails-v1.json is the golden Lemur Tails replay as version 1 wrote it, byte for
byte, before version 2 existed: the kind of log that is already out there.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from engines import registry
from replays import log as logfmt
from replays.verify import VerifyError, verify_log
from tests import cli
from tests.replays.forgery import real_log, reseal

OLD = Path(__file__).parent / "fixtures" / "lemur-tails-v1.json"


def test_new_games_use_version_2_and_version_1_stays_reachable():
    """The registry plays version 2 and still folds version 1, each a LemurTails of its own version."""
    assert registry.get("lemur-tails").version == 2
    old = registry.get("lemur-tails", 1)
    assert old.version == 1 and type(old) is type(registry.get("lemur-tails"))


def test_the_old_golden_replay_is_a_version_1_log_naming_card_ids():
    """The fixture is what version 1 wrote: engine_version 1, physical card ids in public events."""
    log = logfmt.read(OLD)
    assert log["engine_version"] == 1
    played = [e["data"]["card"] for e in log["events"] if e["type"] == "tail_card_played"]
    assert played and all(isinstance(card, int) for card in played)


def test_tourney_replay_verify_passes_the_version_1_log():
    """`tourney replay verify` checks a version-1 log with the version-1 rules: all passed."""
    result = cli.invoke("replay", "verify", str(OLD))
    assert result.exit_code == 0, result.output
    assert "ok   " in result.output and "all passed" in result.output


@pytest.mark.parametrize("view", ["spectator", "seat:0", "seat:1"])
def test_redacted_views_of_the_version_1_log_verify(view):
    """Each redacted view of the version-1 log verifies as far as it can."""
    report = verify_log(logfmt.redact(logfmt.read(OLD), view))
    assert report.decisions > 0 and report.chance_steps > 0


@pytest.mark.slow
def test_an_imported_version_1_log_verifies_from_the_database(tmp_path):
    """A version-1 log imported into a ledger is verified there with version 1 too (`replay verify --db`)."""
    db = f"sqlite:///{tmp_path / 'old.db'}"
    imported = cli.invoke("replay", "import", str(OLD), "--db", db)
    assert imported.exit_code == 0, imported.output
    verified = cli.invoke("replay", "verify", "--db", db)
    assert verified.exit_code == 0, verified.output
    assert "verified 1 game," in verified.output and "all passed" in verified.output


def test_a_version_1_log_relabelled_version_2_fails_at_the_first_card():
    """The version matters: the old log claimed as version 2 (hashes recomputed) fails where it names an id."""
    forged = copy.deepcopy(logfmt.read(OLD))
    forged["engine_version"] = forged["events"][0]["data"]["engine_version"] = 2
    with pytest.raises(VerifyError, match="seq 2: expected deck_shuffled private part"):
        verify_log(reseal(forged))


def test_version_2_public_events_name_kinds_never_ids():
    """LT-21: every card a version-2 log shows anyone (public data and private parts) is a kind name."""
    log = real_log("lemur-tails", "kinds")
    assert log["engine_version"] == 2
    named = []
    for event in log["events"][1:-1]:
        for part in (event["data"], event.get("private") or {}):
            for key in ("card", "joker"):
                if key in part:
                    named.append(part[key])
            for key in ("cards", "order"):
                if isinstance(part.get(key), list):
                    named.extend(part[key])
    assert named and all(isinstance(card, str) and len(card) == 2 for card in named)
    assert verify_log(log).decisions > 0
