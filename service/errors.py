"""Refusals, as plain exceptions named by what went wrong for the caller.

The application raises these; the HTTP edge (`service.api`) maps each kind to a status
once, and workers catch the kinds they expect (`MovedOn`: the game went past the turn
they meant to play). Each carries a stable `code` for clients, a sentence for people
and, when one input is to blame, its `field`.
"""

from engine.errors import IllegalMove


class ServiceError(Exception):
    def __init__(self, code: str, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.field = field


class BadRequest(ServiceError):
    """The request itself is malformed (a header that cannot be read)."""


class Unauthenticated(ServiceError):
    """No credential, or one that is not valid."""


class Forbidden(ServiceError):
    """A valid credential that may not do this."""


class NotFound(ServiceError):
    """No such game, hand or step."""


class Conflict(ServiceError):
    """The game is not in a state that allows this (waiting, full, not finished)."""


class MovedOn(Conflict):
    """The game went past what the request assumed: another move came first, it is not
    this seat's turn, or the game is over. Retrying means reloading first."""


class StaleVersion(MovedOn):
    """The request named a version (If-Match) that is no longer the game's."""


class Busy(ServiceError):
    """The server is at a limit it keeps to stay responsive (too many waiting followers):
    retry in a moment (`retry_after` seconds)."""

    def __init__(self, code: str, detail: str, retry_after: int = 1) -> None:
        super().__init__(code, detail)
        self.retry_after = retry_after


class Damaged(ServiceError):
    """What the server keeps failed its own check (a sealed archive whose digest or chain
    is wrong, or that is missing): reported, and nothing from it served."""


class Refused(ServiceError):
    """Understood and refused: an illegal move, options that make no game, a webhook the
    server will not call, a key used for another request."""


NOT_OURS_NOW = ("not_your_turn", "game_over")  # codes of illegal moves that mean MovedOn


def from_illegal_move(error: IllegalMove) -> ServiceError:
    if error.code in NOT_OURS_NOW:
        return MovedOn(error.code, error.message)
    return Refused(error.code, error.message)
