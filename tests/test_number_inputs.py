"""Numbers typed into URLs and search boxes: "²" passes str.isdigit() and int() refuses
it, and 25 digits fit no database column. Neither may be a server error."""

from __future__ import annotations

import pytest
from django.urls import reverse

from runs.numbers import LARGEST, whole_number
from tests.conftest import client_for
from tests.review_runs import signoff_item

pytestmark = pytest.mark.django_db

ODD_NUMBERS = ["²", "①", "٣", "9" * 25, str(LARGEST + 1)]


def test_only_ascii_digits_within_a_bigint_are_numbers():
    assert whole_number("42") == 42 and whole_number(str(LARGEST)) == LARGEST
    assert [whole_number(text) for text in ["", None, "-1", " 4", *ODD_NUMBERS]] == [None] * 9


@pytest.mark.parametrize("text", ODD_NUMBERS)
def test_searches_read_an_odd_number_as_text(client, tenant, analyst, reviewer, text):
    item = signoff_item(tenant, analyst)
    client_for(client, reviewer)
    for url in ("reviews-queue", "reviews-clarifications", "reviews-escalations"):
        assert client.get(reverse(url), {"q": text}).status_code == 200
    assert client.get(reverse("reviews-audit"), {"case": text}).status_code == 200
    notice = client.get(reverse("reviews-new-items", args=["approvals"]), {"after": 0, "q": text})
    assert notice.status_code == 200
    found = client.get(reverse("reviews-queue"), {"q": str(item.case_id)}).content.decode()
    assert f'id="review-item-{item.pk}"' in found
    client_for(client, analyst)
    assert client.get(reverse("runs-case-list"), {"q": text}).status_code == 200


@pytest.mark.parametrize("text", ODD_NUMBERS)
def test_an_odd_cursor_is_refused_in_plain_words(client, tenant, analyst, text):
    client_for(client, analyst)
    response = client.get(reverse("reviews-new-items", args=["questions"]), {"after": text})
    assert response.status_code == 400
    assert response.content.decode() == "The newest item shown must be a whole number."
