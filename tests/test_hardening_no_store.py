"""Nothing Atlas renders is kept by a browser's or a shared proxy's cache (pages, htmx
fragments, JSON, error pages); static files keep their own caching."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.db import connections
from django.templatetags.static import static
from django.urls import reverse

from atlas.routing import application
from tests.case_rows import awaiting_signoff
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def is_not_stored(response) -> bool:
    directives = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return {"private", "no-store"} <= directives


@pytest.mark.parametrize(
    ("persona", "pages"),
    [
        ("reviewer", ["runs-case-list", "reviews-queue", "reviews-escalations", "reviews-audit"]),
        ("admin_user", ["runs-trace-list", "runs-metrics"]),
    ],
)
def test_every_page_a_signed_in_person_sees_is_not_stored(request, client, case, persona, pages):
    run = awaiting_signoff(case)
    client_for(client, request.getfixturevalue(persona))
    urls = [reverse(name) for name in pages] + [
        reverse("runs-case-detail", args=[case.pk]),
        reverse("runs-packet", args=[run.pk]),
    ]
    if persona == "admin_user":
        urls.append(reverse("runs-trace", args=[run.pk]))
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        assert is_not_stored(response), (url, response.get("Cache-Control"))


def test_htmx_fragments_json_and_error_pages_are_not_stored(client, admin_user, case):
    run = awaiting_signoff(case)
    client_for(client, admin_user)
    fragment = client.get(reverse("nav-links"), HTTP_HX_REQUEST="true")
    trace_json = client.get(reverse("runs-trace-json", args=[run.pk]))
    missing = client.get(reverse("runs-case-detail", args=[case.pk + 1000]))
    assert (fragment.status_code, trace_json.status_code, missing.status_code) == (200, 200, 404)
    for response in (fragment, trace_json, missing):
        assert is_not_stored(response), response.get("Cache-Control")


def test_a_download_keeps_exactly_the_header_it_had(client, analyst, case):
    run = awaiting_signoff(case)
    response = client_for(client, analyst).get(reverse("runs-packet-json", args=[run.pk]))
    assert response["Cache-Control"] == "private, no-store"


def test_the_login_page_still_works_and_is_not_stored(client, analyst):
    page = client.get(reverse("login"))
    assert page.status_code == 200 and 'name="csrfmiddlewaretoken"' in page.content.decode()
    assert is_not_stored(page)
    signed_in = client.post(
        reverse("login"), {"username": "analyst", "password": "correct-horse-battery"}
    )
    assert signed_in.status_code == 302 and is_not_stored(signed_in)


def test_a_static_file_keeps_its_own_caching(client):
    response = client.get(static("atlas/atlas.css"))
    assert response.status_code == 200
    assert "no-store" not in response.get("Cache-Control", "")


def served_headers(path: str, cookie: str = "") -> tuple[int, dict[str, str]]:
    """GET `path` from the ASGI application daphne serves: the status and headers."""
    headers = [(b"host", b"testserver")] + ([(b"cookie", cookie.encode())] if cookie else [])

    async def get() -> tuple[int, dict[str, str]]:
        request = HttpCommunicator(application, "GET", path, headers=headers)
        await request.send_input({"type": "http.request", "body": b""})
        start = await request.receive_output(timeout=5)
        while (await request.receive_output(timeout=5)).get("more_body"):
            pass
        return start["status"], {
            name.decode().lower(): value.decode() for name, value in start["headers"]
        }

    def in_thread():
        try:
            return async_to_sync(get)()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(in_thread).result()


@pytest.mark.django_db(transaction=True)
def test_under_asgi_pages_are_not_stored_and_static_files_are_cached(client, analyst, case):
    client_for(client, analyst)
    session = f"sessionid={client.cookies['sessionid'].value}"
    status, headers = served_headers(reverse("runs-case-detail", args=[case.pk]), session)
    assert status == 200
    assert {"private", "no-store"} <= {d.strip() for d in headers["cache-control"].split(",")}
    status, headers = served_headers(static("atlas/atlas.css"))
    assert status == 200
    assert "no-store" not in headers.get("cache-control", "")
