"""Money on a page (atlas.runtime.money): `{{ run.cost_usd|dollars }}` for an amount
spent, `{{ budgets.max_cost_usd|budget_dollars }}` for one someone set, and
`{{ reason|approval_reason }}` for an approval reason stored with its amounts as written
then."""

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


# is_safe: the amounts put in are digits, commas, a dot and "$", so text escaped before
# stays escaped, and text not yet escaped is escaped as the page renders it.
@register.filter(is_safe=True)
def approval_reason(reason) -> str:
    return money.restate_approval_amounts(str(reason))
