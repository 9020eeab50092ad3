"""A 5 MB stored result on the trace page: shown redacted, as far as it is shown, without
redacting the whole of it on every view."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from atlas.runtime import redaction
from runs.models import Run
from tests.run_rows import T0, add_events, add_observation, make_run, tool_step

pytestmark = pytest.mark.django_db


def test_a_huge_stored_result_is_redacted_as_far_as_it_is_shown(
    client, admin_user, case, monkeypatch
):
    run = make_run(case, status=Run.Status.FAILED, started_at=T0)
    add_events(run, [tool_step(1, "extract_document")], start=T0)
    text = "Passport No: K7654321. " + "An ordinary sentence of the report. " * 150_000
    add_observation(run, 1, data={"text": text}, model_view="<tool_result>…</tool_result>")
    read: list[int] = []
    whole = redaction.redact
    monkeypatch.setattr(redaction, "redact", lambda t: read.append(len(t)) or whole(t))

    client.force_login(admin_user)
    html = client.get(reverse("runs-trace", args=[run.pk])).content.decode()
    assert "K7654321" not in html and "Passport No: [REDACTED" in html
    assert sum(read) < 100_000, sum(read)
    assert (
        f"What was stored ({len(json.dumps({'text': text}, indent=2))} chars, shortened here"
        in html
    )
