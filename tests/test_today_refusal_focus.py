"""A decision refused because the item was decided meanwhile (a second tab, another
reviewer) has no field at fault: its message is the error summary the page's script gives
focus to, so a screen reader user lands on it rather than at the top of the page."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.conftest import client_for
from tests.review_runs import signoff_item

pytestmark = pytest.mark.django_db


def test_a_decision_on_an_item_decided_meanwhile_is_refused_with_a_focusable_summary(
    client, tenant, analyst, reviewer, second_reviewer
):
    item = signoff_item(tenant, analyst)
    decide = reverse("reviews-decide", args=[item.pk])
    client_for(client, reviewer).post(decide, {"decision": "approve", "reason": "Clean record."})

    late = client_for(client, second_reviewer).post(
        decide, {"decision": "deny", "reason": "Ask for the 2023 accounts."}
    )
    html = late.content.decode()
    assert late.status_code == 409
    summary = re.search(r"<div [^>]*data-error-summary[^>]*>([^<]*)</div>", html)
    assert summary, "the refusal is no error summary"
    assert 'tabindex="-1"' in summary.group(0) and 'role="alert"' in summary.group(0)
    assert "your decision was not recorded" in summary.group(1)
