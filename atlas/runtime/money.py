"""Amounts of money as the cost columns store them and as people read them: rounded once,
half up, with thousands separators. A format spec ("{:.4f}") rounds a Decimal half to
even, and SQLite keeps what it is given unrounded, so neither is left to chance. Every page,
admin column and readable summary formats money here; machine-readable exports keep
str(Decimal)."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

STORED_PLACES = Decimal("0.000001")  # the decimal places of every cost_usd column


def as_stored(amount: Decimal) -> Decimal:
    return amount.quantize(STORED_PLACES, ROUND_HALF_UP)


def dollars(amount: Decimal | str | int, places: int = 4) -> str:
    """An amount spent: "$12,345.6789"; "$0.0003" for 0.00025 at four places."""
    rounded = Decimal(str(amount)).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP)
    sign = "-" if rounded < 0 else ""
    return f"{sign}${abs(rounded):,f}"


def budget_dollars(amount: Decimal | str | int) -> str:
    """An amount as someone set it (a budget, a threshold, a price), to the cent or finer:
    "$100,000.00", "$0.015", "$0.00" (a column's trailing zeros, as in 0.0000, are dropped)."""
    amount = Decimal(str(amount))
    places_set = -amount.normalize().as_tuple().exponent
    return dollars(amount, places=max(2, places_set))


def cost_above_threshold(cost: Decimal, threshold: Decimal) -> str:
    """Why a tool call waits for a reviewer's approval (atlas.runtime.policy.evaluate)."""
    return (
        f"Estimated cost {budget_dollars(cost)} is above the approval threshold "
        f"{budget_dollars(threshold)}."
    )


# That sentence as any policy version wrote it: older runs kept raw amounts ("$0.0000",
# "$12345.5000"), today's are grouped. It stands alone, or after "tool: " or "; " where
# a page joins the reasons, so a document's name quoted in another reason is left as is.
_AMOUNT = r"\d[\d,]*(?:\.\d+)?"
_COST_ABOVE_THRESHOLD = re.compile(
    rf"(?:^|(?<=: )|(?<=; ))Estimated cost \$(?P<cost>{_AMOUNT}) is above the approval "
    rf"threshold \$(?P<threshold>{_AMOUNT})\.(?=;|$)"
)


def restate_approval_amounts(text: str) -> str:
    """An approval reason, stored as written then, with its amounts as written today."""
    return _COST_ABOVE_THRESHOLD.sub(_restated, text)


def _restated(match: re.Match) -> str:
    cost, threshold = (Decimal(match[name].replace(",", "")) for name in ("cost", "threshold"))
    return cost_above_threshold(cost, threshold)
