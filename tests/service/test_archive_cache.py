"""The decoded-archive cache is bounded by games and by the size of their text."""

from service.archives import ArchiveInfo, Decoded, Sealed


def sealed(game_id: str, events: int, size: int = 100) -> Sealed:
    info = ArchiveInfo(game_id, "rummy", None, (), (), "finished", None, 0.0, 0.0, events, "")
    return Sealed(info, {}, tuple(("x" * size, "", "h", "") for _ in range(events)))


def test_the_oldest_read_goes_first_past_the_count():
    cache = Decoded(size=2, budget=10**9)
    cache.put("a", sealed("a", 1))
    cache.put("b", sealed("b", 1))
    assert cache.get("a") is not None  # a is now the newest read
    cache.put("c", sealed("c", 1))
    assert cache.get("b") is None and cache.get("a") and cache.get("c")


def test_long_logs_are_bounded_by_their_text():
    cache = Decoded(size=100, budget=50_000)
    for name in "abcdef":
        cache.put(name, sealed(name, 100))  # about 18 KB each
    kept = [name for name in "abcdef" if cache.get(name) is not None]
    assert kept == ["e", "f"]
    huge = sealed("huge", 10_000)
    assert cache.put("huge", huge) is huge and cache.get("huge") is huge  # the one being read
    assert [name for name in "ef" if cache.get(name)] == []
