"""Static files come from daphne itself: whole, and without reading a file into memory."""

from __future__ import annotations

from django.conf import settings
from django.templatetags.static import static

from tests.asgi_requests import served_by_asgi


def test_under_asgi_a_static_file_is_served_whole_from_an_async_iterator():
    stylesheet = settings.BASE_DIR / "static" / "atlas" / "atlas.css"
    parts, caught = served_by_asgi(static("atlas/atlas.css"))
    # Django warns, and reads the whole file in a thread first, when an ASGI response has
    # only a synchronous iterator to give.
    assert not [warning for warning in caught if "synchronous iterators" in warning]
    assert b"".join(parts) == stylesheet.read_bytes()


def test_every_page_names_an_icon_that_is_served(client, analyst):
    from tests.conftest import client_for

    page = client_for(client, analyst).get("/cases/").content.decode()
    icon = static("atlas/favicon.svg")
    assert f'<link rel="icon" href="{icon}"' in page  # so browsers stop asking for /favicon.ico
    parts, _ = served_by_asgi(icon)
    assert b"".join(parts).startswith(b"<svg")


def test_favicon_ico_leads_to_the_icon_without_signing_in(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == static("atlas/favicon.svg")
