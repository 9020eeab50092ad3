"""What `manage.py check` says of a deployment that is not ready."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from runs.checks import static_files_collected


def test_uncollected_static_files_are_flagged_only_in_production(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path
    settings.DEBUG = True
    assert static_files_collected(None) == []
    settings.DEBUG = False
    [warning] = static_files_collected(None)
    assert warning.id == "atlas.W001" and "collectstatic" in warning.hint
    (tmp_path / "staticfiles.json").write_text("{}")
    assert static_files_collected(None) == []


def test_an_openai_model_without_its_endpoints_address_stops_the_server_starting(settings):
    settings.ATLAS_MODEL = "openai:gpt-test"
    settings.OPENAI_BASE_URL = " "
    with pytest.raises(SystemCheckError, match="OPENAI_BASE_URL is not set"):
        call_command("check")
    settings.OPENAI_BASE_URL = "http://127.0.0.1:9/v1"
    call_command("check")
    settings.ATLAS_MODEL, settings.OPENAI_BASE_URL = "playbook", ""
    call_command("check")
