"""Each game decides, from its own record, the pool a finished game is rated in, who
plays as one team and each team's place (engine.rating)."""

import pytest

from engine import games, rating, table


def created(game_name: str, preset: str | None, players: int, **options):
    game = games.get(game_name)
    setup = table.setup(game, preset, options or None, players)
    return game, table.create(setup, "rating outcomes").events[0]


def ended(winners, scores, forfeited=None, **more):
    event = {"type": "game_ended", "v": 1, "winners": winners, "scores": scores}
    event["hands_played"] = 3
    if forfeited is not None:
        event["forfeited"] = forfeited
    return {**event, **more}


@pytest.mark.parametrize(
    ("players", "pool"), [(2, "rummy-2"), (3, "rummy-3-6"), (4, "rummy-3-6"), (6, "rummy-3-6")]
)
def test_rummy_pools_by_the_number_of_players(players, pool):
    game, first = created("rummy", "pagat", players)
    winners = [0]
    outcome = game.rated_outcome(first, ended(winners, [100] + [0] * (players - 1)))
    assert outcome.pool == pool
    assert outcome.teams == tuple((seat,) for seat in range(players))
    assert pool in game.rating_pools()


def test_rummy_places_the_others_by_score_and_a_forfeit_last():
    game, first = created("rummy", "pagat", 4)
    outcome = game.rated_outcome(first, ended([2], [40, 10, 120, 90], forfeited=3))
    # seat 3 had the second best score, but resigned: last; then 0 (40) before 1 (10)
    assert outcome.places == (2, 3, 1, 4)


def test_rummy_penalty_scoring_places_the_fewest_points_first():
    game, first = created("rummy", "penalty", 3)
    outcome = game.rated_outcome(first, ended([1], [80, 5, 30]))
    assert outcome.places == (3, 1, 2)


def test_rummy_ties_share_a_place():
    game, first = created("rummy", "pagat", 3)
    assert game.rated_outcome(first, ended([0, 2], [50, 10, 50])).places == (1, 3, 1)


@pytest.mark.parametrize("mode", ["pairs", "suicide", "whiz", "mirror"])
def test_spades_partnerships_rate_partners_as_one_team(mode):
    game, first = created("spades", mode, 4)
    over = ended([1, 3], [120, 510, 120, 510], side_scores=[120, 510])
    outcome = game.rated_outcome(first, over)
    assert outcome.pool == "spades-pairs"
    assert outcome.teams == ((0, 2), (1, 3))
    assert outcome.places == (2, 1)


def test_spades_a_forfeit_puts_the_forfeiting_side_last():
    game, first = created("spades", "pairs", 4)
    over = ended([1, 3], [300, 200, 300, 200], forfeited=2, side_scores=[300, 200])
    assert game.rated_outcome(first, over).places == (2, 1)


@pytest.mark.parametrize(
    ("sides", "places"), [([200, 520, -40], (2, 1, 3)), ([200, 520, -40, 310], (3, 1, 4, 2))]
)
def test_spades_solo_is_its_own_pool_each_for_themselves(sides, places):
    players = len(sides)
    game, first = created("spades", "solo", players)
    outcome = game.rated_outcome(first, ended([1], sides, side_scores=sides))
    assert outcome.pool == "spades-solo"
    assert outcome.teams == tuple((seat,) for seat in range(players))
    assert outcome.places == places


def test_a_game_without_hooks_rates_in_one_pool_winners_first():
    game, first = created("minitricks", None, 3)
    outcome = game.rated_outcome(first, ended([2], [1, 4, 5]))
    assert outcome.pool == "minitricks"
    assert game.rating_pools() == {"minitricks": "Minitricks"}
    assert outcome.places == (2, 2, 1)  # the default ties everyone but the winners


def test_places_are_competition_ranks():
    teams = rating.solo_teams(5)
    assert rating.places(teams, [0], points=[9, 7, 7, 3, 1]) == (1, 2, 2, 4, 5)
    assert rating.places(teams, [], forfeited=4) == (1, 1, 1, 1, 5)
