"""The skill arithmetic on its own: OpenSkill's Plackett-Luce, partners as a team,
anonymous seats at the starting rating and kept nowhere, the order of games mattering."""

import pytest

from service import skill
from service.skill import NEW, Skill


def test_the_winner_gains_what_the_loser_loses_from_equal_ratings():
    after = skill.rate([["ann"], ["bob"]], [1, 2], {})
    assert after["ann"].mu > NEW.mu > after["bob"].mu
    assert after["ann"].mu - NEW.mu == pytest.approx(NEW.mu - after["bob"].mu)
    assert after["ann"].sigma < NEW.sigma
    assert after["ann"].games == after["bob"].games == 1


def test_partners_move_together_and_anonymous_seats_are_not_kept():
    after = skill.rate([["ann", None], ["bot:spades:strong", "bob"]], [2, 1], {})
    assert set(after) == {"ann", "bot:spades:strong", "bob"}
    assert after["bob"].mu > NEW.mu and after["bot:spades:strong"].mu > NEW.mu
    assert after["ann"].mu < NEW.mu


def test_a_known_rating_moves_less_than_a_new_one():
    sure = Skill(30.0, 2.0, 40)
    after = skill.rate([["ann"], ["bob"]], [2, 1], {"ann": sure})
    assert sure.mu - after["ann"].mu < after["bob"].mu - NEW.mu
    assert after["ann"].games == 41


def test_one_identity_in_two_seats_keeps_the_mean_of_its_seats_and_counts_once():
    after = skill.rate([["ann"], ["bot:rummy:greedy"], ["bot:rummy:greedy"]], [3, 1, 2], {})
    first = skill.rate([["ann"], ["x"], ["y"]], [3, 1, 2], {})
    assert after["bot:rummy:greedy"].mu == pytest.approx((first["x"].mu + first["y"].mu) / 2)
    assert after["bot:rummy:greedy"].games == 1


def test_the_order_of_games_changes_the_numbers():
    one = ([["ann"], ["bob"]], [1, 2])
    two = ([["bob"], ["cat"]], [1, 2])
    assert skill.fold([one, two]) != skill.fold([two, one])
    assert skill.fold([one, two]) == skill.fold([one, two])


def test_provisional_until_ten_games_and_the_ordinal_is_conservative():
    assert Skill(25.0, 8.0, 9).provisional and not Skill(25.0, 8.0, 10).provisional
    assert Skill(25.0, 2.0, 3).ordinal == pytest.approx(19.0)
    assert NEW.ordinal == pytest.approx(0.0)
