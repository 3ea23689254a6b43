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
        "cannot resume 'cup': its --sandbox (stored off, given on) differs from this command's")


def test_a_changed_game_count_and_bots_are_named_with_their_options():
    stored, given = wanted(), Spec("lemur-tails", 2, 4, "7", 1.0, 5.0, BOTS[:1], resources=Resources(memory_mb=256))
    refusal = resume_refusal("cup", stored, given.to_json())
    assert refusal == ("cannot resume 'cup': its bots and --games (stored 2, given 4) differ from this command's: "
                       "to play without (or with changed) bots, start a new tournament with another --name")


def test_a_refusal_names_the_options_of_the_command_that_was_run():
    """A match's changed --sprt or --batch was "its format (--format) differ" (match has no --format), and a changed
    --move-time "its move_time_ms (--move-time: ...)": each is named by the option typed, with both values as given,
    and one difference "differs"."""
    from tournaments.play.candidate_match import Match
    from tournaments.play.formats import Gauntlet, Swiss
    from tournaments.ratings.sprt import Sprt

    fixed, tested = Match("a", ("b",), (), None, 8), Match("a", ("b",), (), Sprt(0.0, 5.0), 4)
    assert resume_refusal("m", wanted(format=fixed), wanted(format=tested)) == (
        "cannot resume 'm': its --batch (stored 8, given 4) and --sprt (stored none, given elo0=0.0 elo1=5.0 "
        "alpha=0.05 beta=0.05 model=normalized) differ from this command's")
    assert resume_refusal("m", wanted(format=fixed), {**wanted(format=fixed), "move_time_ms": 500}) == (
        "cannot resume 'm': its --move-time (stored 1 s, given 0.5 s) differs from this command's")
    assert resume_refusal("s", wanted(format=Swiss(2)), wanted(format=Swiss(3))) == (
        "cannot resume 's': its --rounds (stored 2, given 3) differs from this command's")
    assert resume_refusal("g", wanted(), wanted(format=Gauntlet("a"))) == (
        "cannot resume 'g': its --format (stored round-robin, given gauntlet) differs from this command's")
    changed = {**wanted(), "resources": Resources(memory_mb=512, cpu_seconds=7).to_json()}
    assert resume_refusal("r", wanted(), changed) == (
        "cannot resume 'r': its --cpu-seconds (stored 60, given 7) and --memory-mb (stored 256, given 512) differ from "
        "this command's")
