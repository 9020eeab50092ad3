"""Dates of birth in a case's documents, through the pages: a sanctions hit whose entry
gives another year of birth (or nationality) than the case does is badged on the sign-off
page with why,
and a person's passport born in another year than the registry person they were matched to
is an escalation the reviewer settles by the year."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.template.loader import render_to_string
from django.urls import reverse

from reviews.models import ReviewItem
from tests.conftest import client_for
from tests.review_runs import (
    advance,
    corrected_and_run_again,
    open_item,
    paused_run,
    settle_through_page,
)

# The document is read on a tool thread, through a connection of its own.
pytestmark = pytest.mark.django_db(transaction=True)

KYC = b"Company: Harrow Bay Freight Ltd\nDirectors: Colin Marsh, Anita Rao\nUBO: Dmitri Volkov (b. 1985)\n"
FORM = b"CLIENT FORM\nFull name: Sergei Markov\nDate of birth: 14 March 1990\n"


def test_a_hit_on_an_owner_born_in_another_year_is_badged_with_why(
    client, tenant, analyst, reviewer
):
    upload = SimpleUploadedFile("kyc.txt", KYC, content_type="text/plain")
    run = paused_run(tenant, analyst, "Harrow Bay Freight", upload=upload)
    item = open_item(run, ReviewItem.Kind.SIGNOFF)
    disputed = [m for m in item.payload["screening_matches"] if m["namesake_reasons"]]
    assert {m["list"] for m in disputed} == {"Synthetic OFAC SDN", "Synthetic UK HMT Consolidated"}
    client_for(client, reviewer)
    page = client.get(reverse("reviews-item", args=[item.pk])).text
    hit = page[page.index(f'id="hit-{disputed[0]["evidence_id"]}"') :].split("</fieldset>")[0]
    assert "Possible namesake</span>" in hit
    assert (
        "Its entry lists a date of birth in 1968; the uploaded document "
        "“kyc.txt” gives beneficial owner Dmitri Volkov a date of birth in 1985."
    ) in hit


def test_matches_giving_another_year_than_the_matched_person_are_badged_with_why(
    client, tenant, analyst, reviewer
):
    run = paused_run(tenant, analyst, "Oleg Danilov", subject_type="person")
    item = open_item(run, ReviewItem.Kind.SIGNOFF)
    hit, article = item.payload["screening_matches"]
    client_for(client, reviewer)
    page = client.get(reverse("reviews-item", args=[item.pk])).text
    for match, why in [
        (hit, "Its entry lists a date of birth in 1959 or 1960"),
        (article, "It gives an age of 62 on 2022-05-05, so born in 1959 or 1960"),
    ]:
        shown = page[page.index(f'id="hit-{match["evidence_id"]}"') :].split("</fieldset>")[0]
        assert "Possible namesake</span>" in shown
        assert f"{why}; the subject was matched to Oleg Danilov (GB), born in 1987." in shown


def test_a_directors_hit_gives_both_reasons_it_may_be_a_namesakes(
    client, tenant, analyst, reviewer
):
    run = paused_run(tenant, analyst, "Calder Print Works")
    item = open_item(run, ReviewItem.Kind.SIGNOFF)
    (hit,) = [m for m in item.payload["screening_matches"] if m["kind"] == "sanctions"]
    client_for(client, reviewer)
    page = client.get(reverse("reviews-item", args=[item.pk])).text
    shown = page[page.index(f'id="hit-{hit["evidence_id"]}"') :].split("</fieldset>")[0]
    assert (
        "Its entry lists a date of birth in 1961; the registry record of Calder Print Works "
        "Ltd (GB) gives director Sergei Markov a date of birth in 1990."
    ) in shown
    assert (
        "Its entry lists a national of Russian Federation, RU; the registry record of Calder "
        "Print Works Ltd (GB) gives director Sergei Markov only the nationality of United "
        "Kingdom, GB."
    ) in shown


def test_a_passport_born_in_another_year_is_settled_by_a_reviewer(
    client, tenant, analyst, reviewer
):
    upload = SimpleUploadedFile("form.txt", FORM, content_type="text/plain")
    run = paused_run(
        tenant, analyst, "Sergei Markov", subject_type="person", jurisdiction="RU", upload=upload
    )
    item = open_item(run, ReviewItem.Kind.ESCALATION)
    client_for(client, reviewer)
    page = client.get(reverse("reviews-conflict", args=[item.pk])).text
    assert "Which year of birth value stands?" in page
    assert "A date of birth in 1990 (the date itself is redacted)." in page
    assert "14 March 1990" not in page
    assert "Sergei Markov (GB, born 1990) [pe-sergei-markov-gb]" in page

    settle_through_page(
        client,
        item,
        "1990",
        "The passport on file is the client's; the registry match is a namesake.",
    )
    run = advance(item)
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")
    gaps = run.state["proposed_packet"]["open_gaps"]
    assert any(
        gap.startswith("A reviewer settled the subject's year of birth as 1990") for gap in gaps
    )


def test_a_match_a_reviewer_rules_a_namesake_is_corrected_by_the_analyst(
    client, tenant, analyst, reviewer
):
    """The reviewer settles on the passport's year, sends the packet back, and the analyst
    corrects the subject's country: the next run matches the person born that year."""
    upload = SimpleUploadedFile("form.txt", FORM, content_type="text/plain")
    run = paused_run(
        tenant, analyst, "Sergei Markov", subject_type="person", jurisdiction="RU", upload=upload
    )
    escalation = open_item(run, ReviewItem.Kind.ESCALATION)
    client_for(client, reviewer)
    settle_through_page(client, escalation, "1990", "The passport is the client's.")
    signoff = open_item(advance(escalation), ReviewItem.Kind.SIGNOFF)
    sent = client.post(
        reverse("reviews-decide", args=[signoff.pk]),
        {"decision": "deny", "reason": "The match is on a namesake: correct the subject."},
    )
    assert sent.status_code == 302
    run = advance(signoff)
    assert run.status == "waiting_for_input"

    client_for(client, analyst)
    rerun = corrected_and_run_again(
        client,
        run,
        "The client's passport is British; the reviewer ruled the match a namesake.",
        subject_name="Sergei Markov",
        subject_type="person",
        jurisdiction="GB",
    )
    assert rerun.state["selected_entity"]["entity_id"] == "pe-sergei-markov-gb"
    assert not [c for c in rerun.state["conflicts"] if c["fact"] == "year_of_birth"]


def test_a_reason_listed_on_an_item_requested_before_reasons_were_a_list_is_shown():
    hit = {"evidence_id": "ev-1", "about": "", "list": "Synthetic OFAC SDN", "claim": "A hit."}
    hit["born_elsewhere"] = "Its entry is linked to a registry person born in 1968; ..."
    row = {"hits": [hit], "hits_to_mark": [hit]}
    page = render_to_string("reviews/_hit_dispositions.html", {"row": row})
    assert "Its entry is linked to a registry person born in 1968; ...</p>" in page
    # Read out with the choice, as the claim is.
    assert 'aria-describedby="hit-ev-1-claim hit-ev-1-why"' in page


def test_a_signed_off_packet_shows_why_each_match_might_have_been_a_namesakes(
    client, tenant, analyst, reviewer
):
    run = paused_run(tenant, analyst, "Oleg Danilov", subject_type="person")
    item = open_item(run, ReviewItem.Kind.SIGNOFF)
    marks = {f"hit-{m['evidence_id']}": "false_positive" for m in item.payload["screening_matches"]}
    response = client_for(client, reviewer).post(
        reverse("reviews-decide", args=[item.pk]),
        {
            "decision": "approve",
            "reason": "Our client was born in 1987.",
            "risk_rating": "low",
            **marks,
        },
    )
    assert response.status_code == 302
    run = advance(item)
    page = client.get(reverse("runs-packet", args=[run.pk])).text
    assert (
        '<div class="small muted namesake-reason">Its entry lists a date of birth in 1959 or '
        "1960; the subject was matched to Oleg Danilov (GB), born in 1987.</div>"
    ) in page
    assert "for a reviewer to confirm or mark a false positive" not in page
