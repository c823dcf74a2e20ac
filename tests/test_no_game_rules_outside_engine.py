"""Nothing outside engine/ knows the rules of a particular game: service, workers and
replays reach games only through the registry (engine/games.py)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("service", "workers", "replays")
# Names of games and the vocabulary of their rules.
RULE_WORDS = re.compile(
    r"(?<![a-z])(rummy|spades?|melds?|lay_off|discard|stock|tricks?|bids?|nil|"
    r"jokers?|trumps?|bags?|go_down)(?![a-z])",
    re.IGNORECASE,
)


def _python_files():
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def test_service_workers_and_replays_hold_no_game_rules():
    offenders = []
    for path in _python_files():
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            code = line.split("#", 1)[0]
            if RULE_WORDS.search(code):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "game-specific code outside engine/:\n" + "\n".join(offenders)


def test_the_scan_would_see_a_rule_word():
    assert RULE_WORDS.search('if command["type"] == "lay_off":')
    assert RULE_WORDS.search("spades_broken = True")
