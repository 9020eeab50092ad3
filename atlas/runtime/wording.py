"""Counts in words people read: "1 hit", "3 hits", never "hit(s)"."""


def counted(count: int, noun: str, plural: str | None = None) -> str:
    return f"{count} {noun if count == 1 else plural or noun + 's'}"
