"""cardtrail's rules: pure deciders, no I/O, no clock, no global randomness.

A game is reached through the registry (`engine.games.get("rummy")`); everything
outside `engine/` talks to games only through that interface.
"""

from engine.errors import IllegalMove, InvalidCard, InvalidOptions, NoHandDealt

__all__ = ["IllegalMove", "InvalidCard", "InvalidOptions", "NoHandDealt"]
