"""Seat tokens: who may act for a seat, and who is only watching.

Each seated player gets a secret token (256 random bits) once; the table keeps only its
SHA-256. A request's bearer token is compared in constant time with the seats' digests;
a cross-game index of digests tells a token of another game (403) from an unknown one
(401). No token at all is a spectator.
"""

import hashlib
import secrets

from service.errors import Forbidden, Unauthenticated
from service.tables import Table, TableStore


def new_token() -> tuple[str, str]:
    """(the token, given to the player once; its digest, which is all the server keeps)."""
    token = secrets.token_urlsafe(32)
    return token, token_digest(token)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class SeatAuth:
    def __init__(self, tables: TableStore) -> None:
        self.tables = tables

    def seat_of(self, table: Table, token: str | None) -> int | None:
        """The seat this bearer token acts for (None without a token: a spectator)."""
        if token is None:
            return None
        digest = token_digest(token)
        seat = table.seat_with_token(digest)
        if seat is not None:
            return seat
        if self.tables.token_known(digest):
            raise Forbidden("token_for_another_game", "This token belongs to another game.")
        raise Unauthenticated("unknown_token", "This token is not valid.")

    def acting_seat(self, table: Table, token: str | None) -> int:
        """The seat a move is made for: a token is required."""
        if token is None:
            raise Unauthenticated("missing_token", "Send your seat's token as a Bearer token.")
        seat = self.seat_of(table, token)
        assert seat is not None
        return seat
