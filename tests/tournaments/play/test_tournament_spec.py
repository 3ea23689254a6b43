"""A stored spec of an earlier release, upcast by the named function of each release that added keys, then held
against a resuming command's spec (tournaments.play.tournament_spec)."""

from __future__ import annotations

from tournaments.bots.spec import BUILTIN, WALL, BotSpec, Resources
from tournaments.play.tournament_spec import Spec, before_cgroups, before_sandboxes, resume_refusal, upcast

BOTS = (BotSpec("a", BUILTIN, "", "0" * 64), BotSpec("b", BUILTIN, "", "1" * 64))


def wanted(**changes) -> dict:
    return Spec("lemur-tails", 2, 2, "7", 1.0, 5.0, BOTS, resources=Resources(memory_mb=256), **changes).to_json()


def stored_before_sandboxes() -> dict:
    """What a release before sandboxes stored: no sandbox, resources, clock or ponder key."""
    old = wanted()
    for key in ("sandbox", "resources", "clock", "ponder"):
        del old[key]
    return old


def test_each_release_s_missing_keys_get_the_values_it_played_with():
    assert before_sandboxes({}, wanted()) == {"sandbox": False, "resources": wanted()["resources"]}
    assert before_cgroups({}) == {"clock": WALL, "ponder": True}
    assert upcast(stored_before_sandboxes(), wanted()) == wanted()


def test_an_old_spec_resumes_with_the_same_command_and_not_with_the_sandbox_on():
    assert resume_refusal("cup", upcast(stored_before_sandboxes(), wanted()), wanted()) is None
    on = wanted(sandbox=True)
    assert resume_refusal("cup", upcast(stored_before_sandboxes(), on), on) == (
        "cannot resume 'cup': its sandbox (--sandbox: stored off, given on) differ from this command's")


def test_a_changed_game_count_and_bots_are_named_with_their_options():
    stored, given = wanted(), Spec("lemur-tails", 2, 4, "7", 1.0, 5.0, BOTS[:1], resources=Resources(memory_mb=256))
    refusal = resume_refusal("cup", stored, given.to_json())
    assert refusal == ("cannot resume 'cup': its bots, games (--games: stored 2, given 4) differ from this command's: "
                       "to play without (or with changed) bots, start a new tournament with another --name")
