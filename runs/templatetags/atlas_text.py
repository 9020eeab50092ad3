"""How the runtime's identifiers read on a page."""

from __future__ import annotations

from django import template

from atlas.runtime.redaction import redact
from atlas.runtime.wording import fact_label

register = template.Library()


@register.filter(name="fact_label")
def fact_label_filter(fact: str) -> str:
    """ "registration_number" reads "Registration number"."""
    return fact_label(str(fact))


@register.filter
def redacted(text) -> str:
    """`text` with personal data redacted, for pages that say they redact it (escaped as
    any other value)."""
    return redact(str(text)) if text else ""
