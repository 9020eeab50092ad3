"""Characters that show nothing but make two equal-looking texts differ."""

from __future__ import annotations

import re

# A soft hyphen ("Pass­port"), zero-width spaces and joiners, direction marks
# (right-to-left documents), variation selectors, a byte order mark.
INVISIBLE = re.compile(
    "[\u00ad\u034f\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufe00-\ufe0f\ufeff]"
)


def visible(text: str) -> str:
    """`text` without its invisible characters."""
    return INVISIBLE.sub("", text) if not text.isascii() else text
