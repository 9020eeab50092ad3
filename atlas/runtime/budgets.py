"""Budgets checked BEFORE each model or tool call, with a reservation.

Deadline: time spent waiting for a person does not count. Whenever a paused run resumes
(human input, crash recovery) its deadline is shifted by the time it spent paused, so the
deadline measures the runtime's active time only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from atlas.runtime.state import AtlasState


@dataclass(frozen=True)
class BudgetStop:
    reason: str  # max_iterations | token_budget | cost_budget | deadline
    budget: str
    spent: Decimal  # iterations, tokens, dollars or seconds used so far
    limit: str
    # What the call the budget refused would have added: a model call's reservation
    # ("reserved") or a tool's price ("for the tool").
    upcoming: Decimal = Decimal(0)
    upcoming_as: str = "reserved"
    # Already over the limit: a model reported more usage than was reserved for its call
    # (the runtime learns a call's usage only from its reply).
    overspent: bool = False

    @property
    def used(self) -> str:
        """In words: "3", "0 used + 2284 reserved", "0.01 used + 0.05 for the tool"."""
        if self.upcoming:
            return f"{self.spent} used + {self.upcoming} {self.upcoming_as}"
        return f"{self.spent} used" if self.overspent else str(self.spent)


@dataclass(frozen=True)
class Reservation:
    tokens: int
    cost_usd: Decimal


def estimate_tokens(text: str) -> int:
    """A deliberate over-estimate (~3.5 characters per token) so reservations are safe."""
    return math.ceil(len(text) / 3.5)


def deadline_passed(state: AtlasState, now: datetime) -> BudgetStop | None:
    if state.deadline_at is not None and now >= state.deadline_at:
        return deadline_stop(state, now)
    return None


def seconds_until(deadline_at: datetime | None, now: datetime) -> float:
    """Seconds left before a deadline by the runtime's clock (infinite without one)."""
    if deadline_at is None:
        return math.inf
    return (deadline_at - now).total_seconds()


def deadline_stop(state: AtlasState, now: datetime) -> BudgetStop:
    """Also for a tool call the deadline left no time to finish: it stops the run a moment
    before the deadline itself passes."""
    assert state.deadline_at is not None
    started = state.deadline_at - timedelta(seconds=state.budgets.deadline_seconds)
    return BudgetStop(
        "deadline",
        "deadline_seconds",
        Decimal(f"{(now - started).total_seconds():.1f}"),
        f"{state.budgets.deadline_seconds:g}",
    )


def check_model_call(
    state: AtlasState, reservation: Reservation, now: datetime
) -> BudgetStop | None:
    budgets = state.budgets
    if state.iteration >= budgets.max_iterations:
        return BudgetStop(
            "max_iterations",
            "max_iterations",
            Decimal(state.iteration),
            str(budgets.max_iterations),
        )
    stop = deadline_passed(state, now)
    if stop:
        return stop
    if state.tokens + reservation.tokens > budgets.max_tokens:
        return BudgetStop(
            "token_budget",
            "max_tokens",
            Decimal(state.tokens),
            str(budgets.max_tokens),
            upcoming=Decimal(reservation.tokens),
            overspent=state.tokens > budgets.max_tokens,
        )
    if state.cost_usd + reservation.cost_usd > budgets.max_cost_usd:
        return BudgetStop(
            "cost_budget",
            "max_cost_usd",
            state.cost_usd,
            str(budgets.max_cost_usd),
            upcoming=reservation.cost_usd,
            overspent=state.cost_usd > budgets.max_cost_usd,
        )
    return None


def overspent(state: AtlasState) -> BudgetStop | None:
    """A stop when a model call reported more usage than the budget had left: its decision
    is not acted on (the runtime learns a call's usage only from its reply)."""
    budgets = state.budgets
    if state.tokens > budgets.max_tokens:
        return BudgetStop(
            "token_budget",
            "max_tokens",
            Decimal(state.tokens),
            str(budgets.max_tokens),
            overspent=True,
        )
    if state.cost_usd > budgets.max_cost_usd:
        return BudgetStop(
            "cost_budget",
            "max_cost_usd",
            state.cost_usd,
            str(budgets.max_cost_usd),
            overspent=True,
        )
    return None


def check_tool_call(state: AtlasState, price: Decimal, now: datetime) -> BudgetStop | None:
    stop = deadline_passed(state, now)
    if stop:
        return stop
    if state.cost_usd + price > state.budgets.max_cost_usd:
        return BudgetStop(
            "cost_budget",
            "max_cost_usd",
            state.cost_usd,
            str(state.budgets.max_cost_usd),
            upcoming=price,
            upcoming_as="for the tool",
            overspent=state.cost_usd > state.budgets.max_cost_usd,
        )
    return None


def model_cost_reservation(
    state: AtlasState, reserved_tokens: int, price_per_1k: Decimal | None
) -> Decimal:
    """Price x reserved tokens when the price is known; never less than the most any one
    model call of this run has cost so far (a scripted or unpriced model)."""
    priced = Decimal("0")
    if price_per_1k is not None:
        priced = (price_per_1k * reserved_tokens / Decimal(1000)).quantize(Decimal("0.000001"))
    return max(priced, state.largest_model_call_cost_usd)


def shift_deadline(s: AtlasState, now: datetime, since: datetime | None) -> None:
    """Time spent paused does not count against the deadline."""
    if s.deadline_at is not None and since is not None and now > since:
        s.deadline_at = s.deadline_at + (now - since)
    s.paused_at = None
