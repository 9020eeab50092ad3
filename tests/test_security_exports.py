"""Every download of a tenant's records is kept by no cache (a shared machine's browser
cache included), as document downloads already were."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.case_rows import awaiting_signoff, decision_row
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

NO_STORE = "private, no-store"


def test_the_packet_download_is_not_stored(client, analyst, case):
    run = awaiting_signoff(case)
    response = client_for(client, analyst).get(reverse("runs-packet-json", args=[run.pk]))
    assert response.status_code == 200
    assert response["Cache-Control"] == NO_STORE


def test_the_trace_and_run_exports_are_not_stored(client, admin_user, case):
    run = awaiting_signoff(case)
    client_for(client, admin_user)
    for url in (reverse("runs-trace-json", args=[run.pk]), reverse("runs-export-jsonl")):
        response = client.get(url)
        assert response.status_code == 200, url
        assert response["Cache-Control"] == NO_STORE, url


def test_the_audit_csv_is_not_stored(client, reviewer, analyst, case):
    run = awaiting_signoff(case)
    decision_row(run, reviewer, "=1+1")
    response = client_for(client, reviewer).get(reverse("reviews-audit-csv"))
    assert response.status_code == 200
    assert response["Cache-Control"] == NO_STORE
    assert "'=1+1" in b"".join(response.streaming_content).decode()
