"""The main navigation: which sections a role sees, with open-item counts where useful."""

from __future__ import annotations

from django import template
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join

from reviews.queries import open_counts_for_nav

register = template.Library()

SECTIONS = [
    ("runs-case-list", "Cases", {"analyst", "reviewer", "admin"}),
    ("reviews-queue", "Approvals", {"reviewer"}),
    ("reviews-clarifications", "Questions", {"analyst", "reviewer"}),
    ("reviews-escalations", "Escalations", {"reviewer"}),
    ("reviews-audit", "Audit", {"reviewer", "admin"}),
    ("runs-trace-list", "Runs", {"admin"}),
    ("runs-metrics", "Metrics", {"admin"}),
]
# What a superuser of no tenant can open too: the other sections are a tenant's own.
WITHOUT_A_TENANT = {"runs-trace-list", "runs-metrics"}


@register.simple_tag(takes_context=True)
def nav_links(context) -> str:
    request = context["request"]
    role = context.get("role")
    counts = context.get("nav_counts") or _queue_counts(context)
    sections = []
    for url_name, label, roles in SECTIONS:
        if role not in roles:
            continue
        if context.get("tenant") is None and url_name not in WITHOUT_A_TENANT:
            continue
        try:
            sections.append((url_name, label, reverse(url_name)))
        except NoReverseMatch:
            continue
    # The longest matching prefix is current: /reviews/audit/ is Audit, not also Approvals.
    path = context.get("nav_path") or request.path
    matching = [url for _, _, url in sections if url != "/" and path.startswith(url)]
    current_url = max(matching, key=len, default=None)
    links = []
    for url_name, label, url in sections:
        count = counts.get(url_name)
        links.append(
            (
                url,
                "page" if url == current_url else "",
                label,
                format_html(' <span class="count">{}</span>', count) if count else "",
            )
        )
    return format_html_join("", '<a href="{}" aria-current="{}">{}{}</a>', links)


def _queue_counts(context) -> dict[str, int]:
    tenant = context.get("tenant")
    if tenant is None:
        return {}
    return open_counts_for_nav(tenant)
