"""`tourney match`: paired deals, the SPRT's error rates, real matches that reach H1, resume after a kill.

The error-rate check simulates pairs of games from known outcome probabilities with a seeded RNG (no
real games), so hundreds of sequential tests run in a second; the matches between the shipped bots
are real `tourney match` runs.
"""

from __future__ import annotations

import json
import math
import random
import re
import shutil
from fractions import Fraction

import pytest

from tests import cli
from tests.tournaments.play.test_protocol import ROOT, SHIPPED
from tests.tournaments.play.test_runner import (
    LINUX,
    dawdle,
    descendants,
    start,
    stored_count,
    wait_gone,
    wait_until_partly_stored,
)
from tournaments.bots.spec import PYTHON, BotSpec
from tournaments.play import candidate_match
from tournaments.play.candidate_match import Match, MatchPlan, block_score, seat_names, tally
from tournaments.play.schedule import ScheduleError
from tournaments.ratings.sprt import H0, H1, NELO_PER_T, Sprt, pentanomial

# -- the SPRT's error rates, simulated ------------------------------------------------------

SELF_PLAY = [0.04, 0.21, 0.50, 0.21, 0.04]
"""Pair-score probabilities of two equal bots (symmetric: normalised Elo 0)."""
RUNS = 200


def normalised_elo(p: list[float]) -> float:
    """Normalised Elo of a pentanomial distribution: (mu - 1/2) / sqrt(2 var) * 800 / ln 10."""
    mu = sum(i / 4 * q for i, q in enumerate(p))
    var = sum(q * (i / 4 - mu) ** 2 for i, q in enumerate(p))
    return (mu - 0.5) / math.sqrt(2 * var) * NELO_PER_T


def tilted(p: list[float], nelo: float) -> list[float]:
    """``p`` exponentially tilted (p_i e^(x a_i), normalised) until its normalised Elo is ``nelo``."""
    low, high = -20.0, 20.0
    for _ in range(200):
        x = (low + high) / 2
        weights = [q * math.exp(x * i / 4) for i, q in enumerate(p)]
        candidate = [w / sum(weights) for w in weights]
        if normalised_elo(candidate) < nelo:
            low = x
        else:
            high = x
    return candidate


def sequential_test(p: list[float], test: Sprt, rng: random.Random, batch: int = 10) -> tuple[str, int]:
    """One SPRT over pairs drawn from ``p``, looking after every ``batch`` pairs: (decision, pairs)."""
    counts = [0] * 5
    pairs = 0
    while pairs < 200_000:
        for outcome in rng.choices(range(5), weights=p, k=batch):
            counts[outcome] += 1
        pairs += batch
        decision = test.decide(test.llr(pentanomial(counts), 2))
        if decision is not None:
            return decision, pairs
    raise AssertionError("the test never decided")


def error_bound(rate: float, runs: int) -> float:
    """The rate plus three binomial standard deviations: what ``runs`` tests may show at most."""
    return rate + 3 * math.sqrt(rate * (1 - rate) / runs)


def test_simulated_error_rates_stay_within_their_bounds():
    """Over 200 seeded tests each: equal bots (true Elo = elo0) accept H1 at most at about the alpha rate;
    bots exactly elo1 apart accept H0 at most at about the beta rate."""
    test = Sprt(elo0=0, elo1=40, alpha=0.05, beta=0.05)
    at_elo1 = tilted(SELF_PLAY, 40.0)
    assert normalised_elo(SELF_PLAY) == pytest.approx(0.0, abs=1e-12)
    assert normalised_elo(at_elo1) == pytest.approx(40.0, abs=1e-6)
    rng = random.Random(20261201)
    false_h1 = sum(sequential_test(SELF_PLAY, test, rng)[0] == H1 for _ in range(RUNS))
    false_h0 = sum(sequential_test(at_elo1, test, rng)[0] == H0 for _ in range(RUNS))
    assert false_h1 / RUNS <= error_bound(test.alpha, RUNS)
    assert false_h0 / RUNS <= error_bound(test.beta, RUNS)
    assert false_h1 > 0 or false_h0 > 0  # errors happen: the test is not simply over-cautious


def test_a_much_stronger_bot_is_accepted_quickly_every_time():
    """Pairs a heuristic bot wins almost always against a random one: H1 in every one of 30 seeded tests with
    elo1 = 5, each within 300 pairs."""
    lopsided = [0.0, 0.002, 0.01, 0.04, 0.948]
    rng = random.Random(7)
    outcomes = [sequential_test(lopsided, Sprt(), rng, batch=20) for _ in range(30)]
    assert {decision for decision, _ in outcomes} == {H1}
    assert max(pairs for _, pairs in outcomes) <= 300


# -- the plan -----------------------------------------------------------------------------


def spec_of(name: str) -> BotSpec:
    return BotSpec(name, PYTHON, f"{name}.py", f"hash-{name}", ("*",))


def test_seats_are_named_once_each():
    """The baseline against itself, and copies of the baseline filling the field, get #2, #3 ..."""
    first, baselines, field = seat_names(spec_of("h"), spec_of("h"), [], 2)
    assert (first.name, [b.name for b in baselines], field) == ("h", ["h#2"], ())
    first, baselines, field = seat_names(spec_of("a"), spec_of("b"), [spec_of("c")], 4)
    assert (first.name, [b.name for b in baselines], [f.name for f in field]) == ("a", ["b", "b#2"], ["c"])
    assert baselines[1].content_hash == "hash-b"
    with pytest.raises(ScheduleError, match="2 --field bots do not fit the 1 seats"):
        seat_names(spec_of("a"), spec_of("b"), [spec_of("c"), spec_of("d")], 3)


def test_block_scores_count_only_the_baselines_seats():
    """A block's score is the candidate's mean pairwise result against the baseline's seats: a field bot
    ahead of everyone changes nothing; ties count one half."""
    block = [[("a", 2), ("b", 3), ("f", 1)], [("a", 1), ("b", 1), ("f", 3)], [("a", 3), ("b", 2), ("f", 1)]]
    assert block_score(block, "a", ["b"]) == Fraction(1 + Fraction(1, 2) + 0, 3)
    pair = [[("a", 1), ("b", 2)], [("a", 1), ("b", 2)]]
    assert block_score(pair, "a", ["b"]) == 1


def test_the_tally_of_pairs_is_pentanomial():
    """With two seats the tally's scores are 0, 1/4, 1/2, 3/4, 1: the pentanomial of pair points 0 to 2."""
    blocks = [Fraction(1), Fraction(1, 2), Fraction(1), Fraction(3, 4)]
    assert tally(blocks, 2, 1) == pentanomial([0, 0, 1, 1, 2])
    assert len(tally(blocks, 4, 3)) == 25


def fake_results(plan: MatchPlan, strength: float, rng: random.Random, deals: range) -> dict:
    """Results of the given deals: the candidate ranks first with probability ``strength``."""
    stored = {}
    for game in candidate_match.table_games(0, plan.match.seats, deals, plan.seed):
        first = "a" if rng.random() < strength else "b"
        stored[game.key] = [(bot, 1 if bot == first else 2) for bot in game.bots]
    return stored


def test_the_sprt_decides_only_at_batch_ends_from_stored_results():
    """Results of a batch in progress do not count; the decision and the deals it saw are the same however the
    stored results arrived (a later batch stored early changes nothing)."""
    match = Match("a", ("b",), (), Sprt(0, 50), batch=4)
    plan = MatchPlan(match, 1000, "s")
    everything = fake_results(plan, 0.9, random.Random(1), range(1000))
    status = MatchPlan(match, 1000, "s").status(everything)
    assert status.decision == H1 and status.deals % 4 == 0 and status.deals < 1000
    partial = {k: v for k, v in everything.items() if int(k.split("-d")[1].split("-")[0]) < status.deals - 2}
    before = MatchPlan(match, 1000, "s").status(partial)
    assert before.deals == status.deals - 4 and before.decision is None
    again = MatchPlan(match, 1000, "s")
    assert again.next_stage(partial)[0].deal == status.deals - 4
    assert again.next_stage(everything) is None and again.status(everything) == status


# -- real matches ---------------------------------------------------------------------------

HEURISTICS = {"lemur-tails": "heuristic_lemur_tails", "nine-tails": "heuristic_nine_tails",
              "tails-on-fire": "heuristic_tails_on_fire"}


def match_command(game: str, db, *extra: str) -> list[str]:
    # Unsandboxed, so that these shipped bots play inside workers: the statistics are the point
    # here, and a fresh sandboxed process per bot per game would multiply the test's time.
    return ["match", str(SHIPPED / f"{HEURISTICS[game]}.py"), "random_bot", "--bots", str(SHIPPED), "--game", game,
            "--sprt", "elo0=0", "elo1=20", "--move-time", "0.5", "--db", str(db), "--sandbox", "off", *extra]


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(HEURISTICS))
def test_the_heuristic_bot_beats_random_with_h1_in_every_game(tmp_path, game):
    """`tourney match heuristic random --sprt` in each game (its usual seats, the field the baseline) stops
    with H1 accepted, prints the statistics, and stores games that verify."""
    db = tmp_path / "m.db"
    result = cli.invoke(*match_command(game, db, "--jobs", "2"))
    assert result.exit_code == 0, result.output
    assert "Stopped: H1 accepted after " in result.stdout and "LOS: 100.00 %" in result.stdout
    as_json = cli.invoke(*match_command(game, db, "--jobs", "2"), "--resume", "--json")
    assert as_json.exit_code == 0, as_json.output
    stats = json.loads(as_json.stdout)
    assert stats["sprt"]["decision"] == "H1" and stats["sprt"]["llr"] >= stats["sprt"]["bounds"][1]
    assert stats["games"] == stored_count(db) == stats["deals"] * stats["players"]
    assert stats["wins"] > stats["losses"]
    verified = cli.invoke("replay", "verify", "--db", str(db), "--quiet")
    assert verified.exit_code == 0, verified.output


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="the runner's workers die with it through Linux's PR_SET_PDEATHSIG")
def test_a_match_killed_with_sigkill_resumes_to_the_answer_of_an_uninterrupted_one(tmp_path):
    """SIGKILL mid-match, then the same command plus --resume: the same decision, deals, LLR and counts as a
    match never interrupted (and with another --jobs)."""
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(ROOT / "bots" / "random_bot.py", folder / "random_bot.py")
    dawdle(folder / "random_two.py")  # at every table: the match cannot end before it is killed
    args = ["match", "random_bot", "random_two", "--bots", str(folder), "--game", "lemur-tails", "--sprt",
            "elo0=-50", "elo1=50", "--batch", "4", "--games", "24", "--seed", "3", "--sandbox", "off"]
    db = tmp_path / "killed.db"
    with start([*args, "--db", str(db), "--jobs", "2"], tmp_path) as process:
        wait_until_partly_stored(process, db, 48)
        below = descendants(process.pid)
        process.kill()
        process.wait()
        # The writer commits a match's short stages whole, so the kill often lands as the next stage's
        # workers start: one still starting has not yet asked to die with its parent, and leaves only
        # when it reads the parent's end of its pipe closed (seconds on a loaded machine).
        assert wait_gone(below, timeout=30) == []
    with start([*args, "--db", str(db), "--jobs", "2", "--resume", "--json"], tmp_path) as process:
        out, err = process.communicate(timeout=180)
    assert process.returncode == 0, err
    reference = tmp_path / "reference.db"
    result = cli.invoke(*args, "--db", str(reference), "--jobs", "0", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(out) == json.loads(result.stdout)
    assert stored_count(db) == stored_count(reference) == json.loads(out)["games"]


def test_match_options_are_checked(tmp_path):
    """Bad SPRT values and a stray value exit 2; an unknown bot name is one error line naming the folder's bots."""
    db = tmp_path / "m.db"
    base = ["match", "random_bot", "random_bot", "--bots", str(SHIPPED), "--game", "lemur-tails", "--db", str(db)]
    assert cli.invoke(*base, "--sprt", "elo0=5", "elo1=0").exit_code == 2
    assert cli.invoke(*base, "--sprt", "elo2=5").exit_code == 2
    assert cli.invoke(*base, "elo1=5").exit_code == 2
    unknown = cli.invoke("match", "nobody", "random_bot", "--bots", SHIPPED, "--game", "lemur-tails", "--db", db)
    assert unknown.exit_code == 1
    assert unknown.stderr.startswith("error: no bot 'nobody' for lemur-tails: not a file, nor a bot in")
    assert "random_bot" in unknown.stderr


@pytest.mark.slow
def test_a_fixed_match_against_itself_prints_every_statistic(tmp_path):
    """`--games 3` without --sprt: a line per finished game, then fastchess's lines over 3 pairs of the random bot
    against itself (score, Elo and nElo, LOS, the pentanomial) and why it stopped; again with --resume it plays
    nothing and prints the same statistics."""
    db = tmp_path / "m.db"
    args = ["match", "random_bot", "random_bot", "--bots", str(SHIPPED), "--game", "lemur-tails", "--games", "3",
            "--jobs", "0", "--db", str(db)]
    result = cli.invoke(*args)
    assert result.exit_code == 0, result.output
    header, seed, *rest = result.stdout.splitlines()
    # No --seed: a drawn seed, its commitment's first digits in the default name, revealed at the end.
    assert re.match(r"match-random_bot-vs-random_bot#2-lemur-tails-[0-9a-f]{8}: random_bot vs random_bot#2", header)
    assert seed.startswith("seed drawn and secret until the end, commitment ")
    finished, (revealed, *lines) = rest[:6], rest[6:]
    for number, line in enumerate(finished, start=1):
        assert re.fullmatch(rf"Finished game {number} \(random_bot(#2)? vs random_bot(#2)?\): (1-0|0-1|1/2-1/2) "
                            r"\{finished\}", line), line
    assert revealed.startswith("the match is over: seed revealed: ")
    wins, losses, draws, ratio, results = re.fullmatch(
        r"Score of random_bot vs random_bot#2: (\d+) - (\d+) - (\d+) \[([0-9.]+)\] (\d+)", lines[0]).groups()
    assert int(wins) + int(losses) + int(draws) == int(results) == 6
    assert float(ratio) == pytest.approx((int(wins) + int(draws) / 2) / 6, abs=5e-4)
    assert lines[1].startswith("Elo: ") and ", nElo: " in lines[1]
    assert re.fullmatch(r"LOS: \d+\.\d\d %, DrawRatio: \d+\.\d\d %, 3 pairs", lines[2]), lines[2]
    penta = [int(x) for x in re.fullmatch(r"Ptnml\(0-2\): \[(.*)\]", lines[3]).group(1).split(", ")]
    assert len(penta) == 5 and sum(penta) == 3
    assert lines[4:] == ["Stopped: all 3 deals played (6 games): a fixed match (--games, no --sprt)"]
    again = cli.invoke(*args, "--resume")
    assert again.exit_code == 0 and again.stdout.splitlines()[:1] == [header.replace("(0 already", "(6 already")]
    assert again.stdout.splitlines()[2:] == lines
    assert stored_count(db) == 6


# -- how long a test takes, told before it starts ------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(("nelo", "elo1"), [(0.0, 40.0), (40.0, 40.0), (80.0, 40.0), (80.0, 5.0)])
def test_walds_expected_length_is_what_simulated_tests_take(nelo, elo1):
    """The number of pairs tourney match announces (Wald's approximation) is, within a fifth, the mean number an
    SPRT of elo0 0 and ``elo1`` takes over 60 simulated tests of pairs whose true normalised Elo is ``nelo``:
    at elo0, at elo1, and above it up to +80, where a test ends long before its announced worst case."""
    from tournaments.ratings.wald import expected_samples

    test = Sprt(elo0=0, elo1=elo1)
    pairs = tilted(SELF_PLAY, nelo)
    rng = random.Random(int(nelo) + 11)
    taken = [sequential_test(pairs, test, rng, batch=2)[1] for _ in range(60)]
    expected = expected_samples(test, 2, nelo)
    assert sum(taken) / len(taken) == pytest.approx(expected, rel=0.2), (sum(taken) / len(taken), expected)


def test_the_expected_length_shrinks_with_the_square_of_the_gap():
    """Four times the gap between elo0 and elo1, a sixteenth of the pairs at either hypothesis; the logistic model's
    length is not estimated (it depends on how drawish the games are)."""
    from tournaments.ratings.wald import expected_samples

    narrow, wide = expected_samples(Sprt(elo1=5), 2, 5.0), expected_samples(Sprt(elo1=20), 2, 20.0)
    assert narrow == pytest.approx(16 * wide, rel=1e-9)
    assert expected_samples(Sprt(elo1=5), 4, 0.0) == pytest.approx(narrow / 2, rel=1e-9)  # blocks of 4: 2 pairs' worth
    assert expected_samples(Sprt(model="logistic"), 2, 0.0) is None


@pytest.mark.slow
def test_a_match_says_what_its_sprt_will_take_and_counts_blocks_in_english(tmp_path):
    """Tails on Fire's four seats, `--sprt default --games 2`: before playing, the match says how many blocks of 4
    the test is expected to take by the candidate's true Elo (+80: 229, as the 920 games a +79 bot took) and that
    raising elo1 shortens it; at the end its lines count `2 blocks of 4`, never `block of 4s`, and Elo never shows
    as -0.00."""
    db = tmp_path / "m.db"
    result = cli.invoke("match", "random_bot", "random_bot", "--bots", SHIPPED, "--game", "tails-on-fire", "--sprt",
                        "default", "--games", "2", "--jobs", "0", "--sandbox", "off", "--seed", "3", "--db", db)
    assert result.exit_code == 0, result.output
    out = result.stdout.splitlines()
    assert out[2] == ("SPRT [0, 5] (normalized Elo): blocks of 4 expected to decide, if the candidate is truly +0: "
                      "6,398 (25,592 games), +5: 6,398 (25,592 games), +20: 1,016 (4,064 games), +80: 229 (916 games) "
                      "(Wald's approximation; longest halfway between); at most 2 blocks of 4 (--games), then it "
                      "stops undecided")
    assert out[3] == ("The closer elo0 and elo1, the longer it takes (about 1/(elo1 - elo0)^2): for a change you "
                      "expect to be big, raise elo1 (elo0=0 elo1=20 decides in about 400 blocks of 4 at +0 or +20)")
    assert "block of 4s" not in result.stdout and "-0.00" not in result.stdout
    assert re.search(r"^LOS: .*, 2 blocks of 4 \(8 games\)$", result.stdout, re.MULTILINE), result.stdout
    assert re.search(r"^Stopped: no decision after 2 blocks of 4 \(8 games\)", result.stdout, re.MULTILINE)


def test_no_spread_is_said_as_such_not_as_minus_zero():
    """A tally whose every pair scored 1/2 (one drawn pair): `Elo: +0.00, nElo: n/a (... no spread yet ...)`, not the
    `Elo: -0.00 +/- 0.00` it printed."""
    from tournaments.cli.match import lines

    plan = MatchPlan(Match("a", ("b",), (), None, 10), 1, "1")
    stats = candidate_match.statistics(plan, {"t0-d0-r0": [("a", 1), ("b", 2)], "t0-d0-r1": [("b", 1), ("a", 2)]})
    shown = lines(stats)
    assert shown[1] == "Elo: +0.00, nElo: n/a (every pair scored 0.5: no spread yet, so no interval)", shown
