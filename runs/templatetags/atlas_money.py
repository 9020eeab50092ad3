"""Money on a page (atlas.runtime.money): `{{ run.cost_usd|dollars }}` for an amount
spent, `{{ budgets.max_cost_usd|budget_dollars }}` for one someone set."""

from __future__ import annotations

from django import template

from atlas.runtime import money

register = template.Library()


@register.filter
def dollars(amount) -> str:
    return "—" if amount in (None, "") else money.dollars(amount)


@register.filter
def budget_dollars(amount) -> str:
    return "—" if amount in (None, "") else money.budget_dollars(amount)
