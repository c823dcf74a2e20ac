"""The two ways the engine says no: a move the rules forbid, or a game set up wrongly."""


class IllegalMove(Exception):
    """A command the rules refuse; `code` is stable for clients, `message` is for players."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class InvalidOptions(ValueError):
    """Game options (or seats) that cannot make a game; names the offending field."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class InvalidCard(ValueError):
    """A string that is not a card in cardtrail's notation."""


class NoHandDealt(IllegalMove):
    """A move, or a look at the hand in play, before the first deal: there is no hand yet.

    Its own class so that code needing a hand (`RummyState.dealt_hand`,
    `SpadesState.dealt_hand`) refuses with the same code and sentence the table
    gives players, rather than failing on a missing hand.
    """

    def __init__(self) -> None:
        super().__init__("hand_not_dealt", "The cards have not been dealt yet.")
