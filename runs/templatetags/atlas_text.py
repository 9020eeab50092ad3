"""How the runtime's identifiers read on a page."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def fact_label(fact: str) -> str:
    """ "registration_number" reads "Registration number"."""
    return str(fact).replace("_", " ").capitalize()
