"""run_case refuses bad input with one clear line and leaves no case or run behind."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from runs.models import Case, Run


@pytest.fixture
def refused(db):
    """Run run_case, expect a CommandError matching `message`, and check nothing was kept."""

    def check(*args: str, message: str) -> None:
        with pytest.raises(CommandError, match=message):
            call_command("run_case", *args)
        assert not Case.objects.exists()
        assert not Run.objects.exists()

    return check


def test_a_scenario_that_is_not_utf8_is_refused(refused, tmp_path):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"case": {"subject": "Café"}}'.encode("latin-1"))
    refused("--scenario", str(path), message="is not UTF-8 text")


def test_a_scenario_nested_too_deeply_is_refused(refused, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000)
    refused("--scenario", str(path), message="nests more than 64 levels deep")
