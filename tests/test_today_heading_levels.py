"""A screen reader's list of headings: the screening matches grouped by whom they are on
sit one level under the panel that holds them, skipping none."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.conftest import client_for
from tests.review_runs import sanctioned_escalation_item, sanctioned_signoff_item

pytestmark = pytest.mark.django_db


def _heading_levels(page: str) -> list[int]:
    return [int(level) for level in re.findall(r"<h([1-6])[\s>]", page)]


def _skips(levels: list[int]) -> list[tuple[int, int]]:
    pairs = zip(levels, levels[1:], strict=False)
    return [(before, after) for before, after in pairs if after > before + 1]


def test_the_sign_off_page_skips_no_heading_level(client, reviewer, tenant, analyst):
    item = sanctioned_signoff_item(tenant, analyst)
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk]))
    html = page.content.decode()
    assert 'class="hit-about"' in html
    assert _skips(_heading_levels(html)) == []


def test_the_escalation_page_skips_no_heading_level(client, reviewer, tenant, analyst):
    item = sanctioned_escalation_item(tenant, analyst)
    page = client_for(client, reviewer).get(reverse("reviews-conflict", args=[item.pk]))
    html = page.content.decode()
    assert 'class="hit-about"' in html
    assert _skips(_heading_levels(html)) == []
