"""The case page's Runs panel says which run the page shows in words an analyst reads."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.case_rows import make_run
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

ROW = re.compile(
    r'<tr( class="current")?>\s*<th scope="row"><a [^>]*>Run (\d+)</a></th>\s*<td>(.*?)</td>'
)


def runs_panel_rows(client, user, case, run=None) -> dict[int, tuple[bool, str]]:
    url = reverse("runs-case-detail", args=[case.pk]) + (f"?run={run.pk}" if run else "")
    html = client_for(client, user).get(url).content.decode()
    panel = html[html.index("<h2>Runs</h2>") :]
    return {
        int(number): (bool(current), re.sub(r"<[^>]+>", "", cell))
        for current, number, cell in ROW.findall(panel)
    }


def test_the_run_on_the_page_is_named_so_and_the_others_show_their_status(client, analyst, case):
    earlier = make_run(case, status="failed", reason="tool_failure")
    latest = make_run(case, status="completed", reason="packet_approved")
    assert runs_panel_rows(client, analyst, case) == {
        latest.pk: (True, "shown on this page"),
        earlier.pk: (False, "Failed"),
    }
    assert runs_panel_rows(client, analyst, case, earlier) == {
        latest.pk: (False, "Completed"),
        earlier.pk: (True, "shown on this page"),
    }
