"""Who may act for a seat, and who is only watching.

Each seat gets a secret token (256 random bits) once; the table keeps only its SHA-256. A
request's bearer token is compared in constant time with the seats' digests; a
cross-game index of digests tells a token of another game (403) from an unknown one
(401). No credential at all is a spectator.

A player (an account, `service.credentials`) acts for the seats of a game bound to
them, with their own credential, and their seats' tokens keep working too. A player
who holds no seat in a game watches it as a spectator, and may not move in it (403
`not_seated`). In a game that lets one player hold several seats, their credential
acts for the one whose turn it is (the first of them when it is none's or several's).
"""

import hashlib
import secrets
from collections.abc import Iterable

from service.credentials import is_personal_token
from service.errors import Forbidden, Unauthenticated
from service.players import Player
from service.tables import Table, TableStore

Credential = str | Player | None  # a seat token, a player, or nobody


def new_token() -> tuple[str, str]:
    """(the token, given to the player once; its digest, which is all the server keeps)."""
    token = secrets.token_urlsafe(32)
    while is_personal_token(token):  # one in ~17 million: it would be read as a player's
        token = secrets.token_urlsafe(32)
    return token, token_digest(token)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class SeatAuth:
    def __init__(self, tables: TableStore) -> None:
        self.tables = tables

    def seat_of(self, table: Table, who: Credential, acting: Iterable[int] = ()) -> int | None:
        """The seat this credential acts for (None: a spectator). `acting`, the seats whose
        turn it is, picks among a player's several seats."""
        if who is None:
            return None
        if isinstance(who, Player):
            return _pick(table.seats_of(who.id), acting)
        digest = token_digest(who)
        seat = table.seat_with_token(digest)
        if seat is not None:
            return seat
        if self.tables.token_known(digest):
            raise Forbidden("token_for_another_game", "This token belongs to another game.")
        raise Unauthenticated("unknown_token", "This token is not valid.")

    def acting_seat(self, table: Table, who: Credential, acting: Iterable[int] = ()) -> int:
        """The seat a move is made for: a credential is required, and for a player a seat."""
        if who is None:
            raise Unauthenticated("missing_token", "Send your seat's token as a Bearer token.")
        seat = self.seat_of(table, who, acting)
        if seat is None:
            raise Forbidden("not_seated", "You hold no seat in this game.")
        return seat


def _pick(seats: list[int], acting: Iterable[int]) -> int | None:
    if not seats:
        return None
    turn = [seat for seat in acting if seat in seats]
    return turn[0] if len(turn) == 1 else seats[0]
