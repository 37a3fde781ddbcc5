"""Hub move text as a key that compares moves, not spellings: the same
capture whichever order its captured squares are written in. Shared by the
oracle and interop scripts (each puts tests/ on its import path)."""


def move_key(hub):
    """A Hub move (`32-28`, `28x19x23`: from, to, then the captured squares)
    as (from, to, frozenset of captured squares)."""
    if "-" in hub:
        a, b = hub.split("-")
        return (int(a), int(b), frozenset())
    parts = [int(x) for x in hub.split("x")]
    return (parts[0], parts[1], frozenset(parts[2:]))
