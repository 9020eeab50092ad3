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


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json", "is not valid JSON"),
        (b'{"turns": [{"kind": "nope"}]}', "'kind' must be call_tool, ask_human or finish"),
        ('[{"raw": "Café"}]'.encode("latin-1"), "is not UTF-8 text"),
        (b"[" * 100_000, "nests more than 64 levels deep"),
    ],
    ids=["not-json", "unknown-kind", "latin-1", "too-deep"],
)
def test_a_malformed_scripted_model_file_is_refused_before_a_run_is_queued(
    refused, tmp_path, content, message
):
    path = tmp_path / "turns.json"
    path.write_bytes(content)
    refused("--subject", "Acme Analytics Ltd", "--model", f"scripted:{path}", message=message)


def test_a_missing_scripted_model_file_is_refused(refused, tmp_path):
    missing = tmp_path / "missing.json"
    refused("--subject", "Acme", "--model", f"scripted:{missing}", message="cannot read script")


def test_a_scenario_with_an_infinite_deadline_is_refused(refused, tmp_path):
    path = tmp_path / "scenario.json"
    path.write_text('{"case": {"subject": "Acme"}, "budgets": {"deadline_seconds": 1e400}}')
    refused("--scenario", str(path), message="'budgets.deadline_seconds': Input should be a finite")
