"""Replays, exports and audits of recorded games (arrives with the replays issue)."""
