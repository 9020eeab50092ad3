"""A sanctions hit on a business the subject's declared source of wealth names: the
packet page cites it, and the sign-off page asks the reviewer to rule on it under that
business, apart from the subject's own matches."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from reviews.models import ReviewItem
from runs.actions import do_open_case, do_start_run
from runs.execution import run_inline
from tests.conftest import client_for
from tests.review_runs import open_item

# The document is read on a tool thread, through a connection of its own.
pytestmark = pytest.mark.django_db(transaction=True)

DECLARATION = (
    Path(__file__).resolve().parent.parent
    / "evals/standard/documents/okafor_declaration_listed_source.txt"
)
BUSINESS = "source-of-wealth business Northern Star Trading FZE"


@pytest.fixture
def signoff(tenant, analyst) -> ReviewItem:
    upload = SimpleUploadedFile("declaration.txt", DECLARATION.read_bytes(), "text/plain")
    case = do_open_case(
        tenant=tenant,
        user=analyst,
        subject_name="Amara Okafor",
        subject_type="person",
        upload=upload,
    )
    run = run_inline(do_start_run(case, analyst, wake=False, driven_here=True))
    return open_item(run, ReviewItem.Kind.SIGNOFF)


def test_the_packet_cites_the_hit_on_the_declared_business(client, analyst, signoff):
    page = client_for(client, analyst).get(reverse("runs-packet", args=[signoff.run_id]))
    html = page.content.decode()
    assert f"1 sanctions hit: on {BUSINESS} (Synthetic OFAC SDN)" in html
    assert f"Sanctions hit on {BUSINESS}: " in html


def test_the_sign_off_page_asks_for_a_ruling_under_the_business(client, reviewer, signoff):
    hit, pep = sorted(signoff.payload["screening_matches"], key=lambda m: m["claim"])[::-1]
    assert hit["claim"].startswith(f"Sanctions hit on {BUSINESS}")
    page = client_for(client, reviewer).get(reverse("reviews-item", args=[signoff.pk]))
    html = page.content.decode()
    subject = html.index('On the subject <span class="muted">(1 match)</span>')
    business = html.index(f'On {BUSINESS} <span class="muted">(1 match)</span>')
    assert subject < html.index(f'id="hit-{pep["evidence_id"]}"') < business
    assert business < html.index(f'id="hit-{hit["evidence_id"]}"')
