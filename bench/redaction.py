"""How redaction scales with text built to make its patterns backtrack, measured in one run.

    .venv/bin/python bench/redaction.py

For each adversarial input, `redact` and `personal_data_found` read the same text at a
quarter of a megabyte and at a whole megabyte; the ratio of the two times is about 4 when
reading is linear (16 if it were quadratic). Goal: every ratio <= 6.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from atlas.runtime.redaction import personal_data_found, redact  # noqa: E402

QUARTER = 250_000
GOAL = 6.0
ROUNDS = 5


def _digits_and_separators(size: int) -> str:
    pick = random.Random(7).choice
    return "".join(pick("0123456789 -\n,") for _ in range(size))


ADVERSARIAL: dict[str, Callable[[int], str]] = {
    "digits and separators": _digits_and_separators,
    "digits": lambda n: "7" * n,
    "passport then digit groups": lambda n: "passport " + "12 34-" * (n // 6),
    "groups shaped like an IBAN": lambda n: "GB29 NWBK " * (n // 10),
    "groups shaped like a card": lambda n: "4111 " * (n // 5),
    "at signs": lambda n: "a@" * (n // 2),
    "a table": lambda n: "Name | Passport\n" + "x | 1\n" * (n // 6),
    "table headers one after another": lambda n: "Name Passport No.\n" * (n // 18),
    "a one-line row of birth dates": lambda n: (
        "Name Date of birth\n" + "Jane 1970-01-02 " * (n // 16)
    ),
    "a one-line row of spaced IBANs": lambda n: (
        "Name IBAN\n" + "Jane GB82 WEST 1234 5698 7654 32 " * (n // 33)
    ),
    "a mobile label, then digit groups": lambda n: "mobile: " + "+44 (0) 12-34, " * (n // 15) + "x",
    "mobile labels one after another": lambda n: "Mobile 12-34 " * (n // 13),
    "a label, a slash and one long word": lambda n: "passport/" + "passport" * (n // 8),
    "labels, each another's name after a slash": lambda n: "ssn/ tax tax tax " * (n // 17),
    "passports held, one after another": lambda n: "passport held, " * (n // 15),
    "a slash, a word and underscores": lambda n: "ssn/a" + "_" * n,
    "a directors line of dates and names": lambda n: "directors: " + "jane 1 may " * (n // 11),
    "a directors line of one long word": lambda n: "directors: 1 " + "a" * n,
    "separated values": lambda n: "name,passport\n" + "x,1234567\n" * (n // 10),
    "a separated row of spaces": lambda n: "name,passport,dob\nx" + " " * n + "y",
    "a separated row of quotes": lambda n: "name;passport\n" + '"a"";' * (n // 5),
    "lines shaped like a passport's zone": lambda n: ("P<" + "<" * 42 + "\n") * (n // 45),
    "a line of characters spaced apart": lambda n: "p " * (n // 2),
    "labels with long gaps": lambda n: (
        ("iban:" + " " * 1000 + "passport" + "\n" * 1000) * (n // 2008)
    ),
}


def _seconds(text: str) -> float:
    began = time.perf_counter()
    redact(text)
    personal_data_found(text)
    return time.perf_counter() - began


def _fastest(small: str, large: str) -> tuple[float, float]:
    """The fastest of ROUNDS readings of each, taken in turns so that a busy moment on the
    host falls on both sizes alike; noise only ever adds time, so the fastest is the truest."""
    readings = [(_seconds(small), _seconds(large)) for _ in range(ROUNDS)]
    return min(r[0] for r in readings), min(r[1] for r in readings)


def main() -> int:
    worst = 0.0
    for name, make in ADVERSARIAL.items():
        small, large = _fastest(make(QUARTER), make(4 * QUARTER))
        ratio = large / small
        worst = max(worst, ratio)
        print(
            f"{name:34} 0.25 MB {small * 1000:8.1f} ms   1 MB {large * 1000:8.1f} ms   x{ratio:.2f}"
        )
    print(f"worst ratio 1 MB / 0.25 MB: {worst:.2f} (linear is 4; goal <= {GOAL:g})")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
