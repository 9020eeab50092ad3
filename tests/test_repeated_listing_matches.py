"""A subject screened by the name the analyst typed and again by its registry entry hits one
list entry twice: the sign-off page says so beside the second match, so the reviewer knows
why a listing is there twice."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.conftest import client_for
from tests.review_runs import signoff_item

pytestmark = pytest.mark.django_db

HMT = "Synthetic UK HMT Consolidated"
SDN = "Synthetic OFAC SDN"


def match(evidence_id: str, query: str, listed: str, list_name: str, about: str = "") -> dict:
    on = f"Sanctions hit on {about}" if about else "Sanctions hit"
    return {
        "evidence_id": evidence_id,
        "claim": f"{on}: '{query}' matches {listed} on {list_name} (score 98, programs Russia).",
        "list": list_name,
        "about": about,
        "candidate": "",
        "kind": "sanctions",
        "url": "",
    }


def test_a_listing_matched_again_by_another_name_says_which_name_found_it_first(
    client, tenant, analyst, reviewer
):
    item = signoff_item(tenant, analyst)
    item.payload["screening_matches"] = [
        match("ev-typed", "Dmitrij Siergiejewicz Wołkow", "VOLKOV, Dmitri Sergeyevich", HMT),
        match("ev-sdn", "Dmitri Volkov", "Dmitri Volkov", SDN),
        match("ev-registry", "Dmitri Volkov", "VOLKOV, Dmitri Sergeyevich", HMT),
        # The same listing, about somebody else: not a repeat.
        match("ev-director", "D. Volkov", "VOLKOV, Dmitri Sergeyevich", HMT, "director D. Volkov"),
    ]
    item.save(update_fields=["payload"])

    html = client_for(client, reviewer).get(reverse("reviews-item", args=[item.pk])).content
    html = html.decode()

    note = (
        "The same listing as a match above, which screening ‘Dmitrij Siergiejewicz Wołkow’ "
        "found: a later screening of the same person found it again."
    )
    assert html.count(note) == 1
    fieldsets = {
        evidence_id: html[html.index(f'id="hit-{evidence_id}"') :].split("</fieldset>")[0]
        for evidence_id in ("ev-typed", "ev-sdn", "ev-registry", "ev-director")
    }
    assert note in fieldsets["ev-registry"]
    assert "The same listing" not in fieldsets["ev-typed"] + fieldsets["ev-sdn"]
    assert "The same listing" not in fieldsets["ev-director"]
    # Each is still marked on its own.
    assert 'name="hit-ev-registry"' in fieldsets["ev-registry"]
