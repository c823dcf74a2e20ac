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
