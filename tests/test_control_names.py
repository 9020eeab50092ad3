"""Controls repeated on every row, or for every document, name what they act on: a screen
reader's list of buttons and links tells them apart."""

from __future__ import annotations

import re
from collections import Counter
from html import unescape

import pytest
from django.urls import reverse

from tests.case_rows import document_row
from tests.conftest import client_for
from tests.review_runs import approval_item, conflict_item, sanctioned_signoff_item, signoff_item

pytestmark = pytest.mark.django_db

CONTROL = re.compile(r"<(button|a)\b([^>]*)>(.*?)</\1>", re.S)
LABEL = re.compile(r'aria-label="([^"]*)"')


def names(html: str) -> list[str]:
    """Each button's and link's accessible name: its aria-label, else its text (hidden
    parts included)."""
    return [
        unescape(label.group(1))
        if (label := LABEL.search(attrs))
        else " ".join(unescape(re.sub(r"<[^>]+>", "", inner)).split())
        for _, attrs, inner in CONTROL.findall(html)
    ]


def named(html: str, start: str) -> list[str]:
    return [name for name in names(html) if name.startswith(start)]


def test_each_rows_controls_name_the_item_they_act_on(client, tenant, analyst, reviewer):
    approval_item(tenant, analyst)
    signoff_item(tenant, analyst)  # the same subject, another case
    sanctioned_signoff_item(tenant, analyst)
    html = client_for(client, reviewer).get(reverse("reviews-queue")).content.decode()
    for word in (
        "Claim",
        "Details",
        "Review the packet",
        "Sign off",
        "Approve",
        "Send back",
        "Deny",
    ):
        found = named(html, word)
        assert found, word
        assert all(name != word for name in found), found
        assert all(count == 1 for count in Counter(found).values()), found
    assert "Sign off Acme Analytics Ltd (case " in " | ".join(named(html, "Sign off"))
    assert "Review the packet for Volga Petrokhim Eksport (case " in " | ".join(
        named(html, "Review the packet")
    )
    conflict_item(tenant, analyst)
    queue = client.get(reverse("reviews-escalations")).content.decode()
    assert named(queue, "Review") == [named(queue, "Review")[0]]
    assert (
        "Review the escalation for Meridian Shipping Holdings (case " in named(queue, "Review")[0]
    )


def test_mark_sensitive_names_the_document(client, case, analyst):
    for name in ("minutes.txt", "passport scan.txt"):
        document_row(case, analyst, name)
    html = client_for(client, analyst).get(reverse("runs-case-detail", args=[case.pk])).content
    assert named(html.decode(), "Mark sensitive") == [
        "Mark sensitive: minutes.txt",
        "Mark sensitive: passport scan.txt",
    ]
