"""Shared personas and fixtures.

The personas: an analyst, a reviewer, a second reviewer and an admin at Demo Bank, and an
outsider analyst at another tenant who must never see Demo Bank's data.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model

from runs.models import Case, Membership, Tenant
from tests.fake_chat_server import FakeChatServer
from tests.live_server import (
    _atlas_server_stopped_at_end,  # noqa: F401 (a session fixture)
    end_other_sessions,
)

PASSWORD = "correct-horse-battery"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, tmp_path_factory):
    """SQLite tests use a file, not shared-cache memory, because worker and server threads
    write concurrently: a shared-cache database fails at once with "table is locked" where
    a file waits for the lock (settings give SQLite a busy timeout)."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if database["ENGINE"] == "django.db.backends.sqlite3":
        database.setdefault("TEST", {})["NAME"] = str(
            tmp_path_factory.mktemp("db") / "test.sqlite3"
        )


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test databases, with every other session on them ended before they
    are dropped."""
    yield
    with django_db_blocker.unblock():
        end_other_sessions()


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # PBKDF2's million rounds cost ~0.3 s per persona; tests need no slow hashing.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.ALLOWED_HOSTS = ["*"]


def _person(username: str, tenant: Tenant, role: str):
    user = get_user_model().objects.create_user(
        username=username, password=PASSWORD, first_name=username.title()
    )
    Membership.objects.create(user=user, tenant=tenant, role=role)
    if role == Membership.Role.ADMIN:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    return user


@pytest.fixture
def tenant(db) -> Tenant:
    return Tenant.objects.create(name="Demo Bank", slug="demo-bank")


@pytest.fixture
def other_tenant(db) -> Tenant:
    return Tenant.objects.create(name="Harbor Credit", slug="harbor-credit")


@pytest.fixture
def analyst(tenant):
    return _person("analyst", tenant, Membership.Role.ANALYST)


@pytest.fixture
def reviewer(tenant):
    return _person("reviewer", tenant, Membership.Role.REVIEWER)


@pytest.fixture
def second_reviewer(tenant):
    return _person("reviewer2", tenant, Membership.Role.REVIEWER)


@pytest.fixture
def admin_user(tenant):
    return _person("admin", tenant, Membership.Role.ADMIN)


@pytest.fixture
def root(db):
    """A superuser of no tenant."""
    return get_user_model().objects.create_superuser("root", "root@example.com", "pw-123456789")


@pytest.fixture
def outsider(other_tenant):
    return _person("outsider", other_tenant, Membership.Role.ANALYST)


@pytest.fixture
def case(tenant, analyst) -> Case:
    return Case.objects.create(
        tenant=tenant,
        subject_name="Acme Widgets Ltd",
        subject_type="company",
        jurisdiction="GB",
        created_by=analyst,
    )


@pytest.fixture
def outsider_case(other_tenant, outsider) -> Case:
    return Case.objects.create(
        tenant=other_tenant,
        subject_name="Harbor Holdings",
        subject_type="company",
        created_by=outsider,
    )


def client_for(client, user):
    client.force_login(user)
    return client


# --- Browser ---------------------------------------------------------------


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium driven by Playwright; never a downloaded browser."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("ATLAS_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is missing; install Debian's chromium package")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install -y chromium)")
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def login_in_browser(page, base_url: str, username: str, password: str = PASSWORD) -> None:
    page.goto(f"{base_url}/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]")
    page.wait_for_load_state()


EVAL_DOCUMENTS = Path(__file__).resolve().parent.parent / "evals/standard/documents"


def open_case_in_browser(
    page, base_url: str, subject: str, subject_type: str = "company", document: str = ""
) -> None:
    """Open a case from the new-case form, with `document` of the eval documents attached."""
    page.goto(f"{base_url}/cases/new/")
    page.fill("#id_subject_name", subject)
    page.select_option("#id_subject_type", subject_type)
    if document:
        page.set_input_files("#id_document", str(EVAL_DOCUMENTS / document))
    page.click("button[type=submit].primary")


def pytest_collection_modifyitems(items):
    # Browser tests run last: Playwright's sync API leaves an event loop on the main thread,
    # and async_to_sync in any later test would refuse to run beside it.
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


@pytest.fixture
def server():
    """A local OpenAI-compatible chat-completions endpoint."""
    fake = FakeChatServer()
    fake.thread.start()
    yield fake
    fake.httpd.shutdown()
    fake.httpd.server_close()
