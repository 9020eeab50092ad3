"""`atlas_eval`: the shipped suite passes, a wrong expectation fails the command."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.models import Run

pytestmark = pytest.mark.django_db

SUITE = Path(__file__).resolve().parent.parent / "evals" / "standard"


def evaluate(suite, tmp_path, *extra) -> tuple[int, str, Path]:
    out, err = StringIO(), StringIO()
    report = tmp_path / "report.html"
    try:
        call_command(
            "atlas_eval", str(suite), "--html", str(report), *extra, stdout=out, stderr=err
        )
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    return code, out.getvalue() + err.getvalue(), report


def test_the_standard_suite_meets_every_expectation(tmp_path):
    code, output, report = evaluate(SUITE, tmp_path)
    scenarios = sorted(
        p.name[:-5] for p in SUITE.glob("*.json") if not p.name.endswith(".expect.json")
    )
    assert code == 0, output
    assert len(scenarios) >= 14
    assert Run.objects.count() == len(scenarios), "every scenario is persisted as a run"
    html = report.read_text()
    for name in scenarios:
        assert name in output and name in html
    assert "Repeated tool-call rate" in output and "Human escalation rate" in html
    assert f"All {len(scenarios)} scenarios met their expectations." in output


def test_the_suite_covers_the_world_and_the_break_the_loop_cases():
    names = {p.name[:-5] for p in SUITE.glob("*.json") if not p.name.endswith(".expect.json")}
    assert {
        "clean_company", "ambiguous_name", "sanctioned_alias", "conflicting_directors", "pep",
        "injection_article", "invalid_json", "unknown_tool", "repeated_call", "oversized_result",
        "policy_denial", "cost_budget", "cancel_during_tool", "endless_research",
    } <= names  # fmt: skip


def _copy(tmp_path, name: str, **changes) -> Path:
    suite = tmp_path / "suite"
    suite.mkdir(exist_ok=True)
    shutil.copy(SUITE / f"{name}.json", suite / f"{name}.json")
    expect = json.loads((SUITE / f"{name}.expect.json").read_text())
    expect.update(changes)
    (suite / f"{name}.expect.json").write_text(json.dumps(expect))
    return suite


def test_a_wrong_expectation_exits_non_zero_and_says_what_differed(tmp_path):
    suite = _copy(
        tmp_path,
        "clean_company",
        reason="no_progress",
        forbidden_events=["tool_succeeded"],
        packet={"risk_rating": "high"},
    )
    code, output, report = evaluate(suite, tmp_path)
    assert code == 1
    assert "FAIL  clean_company" in output
    assert "reason is finish_proposed, expected no_progress" in output
    assert "forbidden tool_succeeded event happened" in output
    assert "risk is low, expected high" in output
    assert "FAIL" in report.read_text(), "the report is written even when the suite fails"
    assert Run.objects.count() == 1


def test_a_wrong_event_order_fails(tmp_path):
    suite = _copy(
        tmp_path, "conflicting_directors", events_in_order=["escalated", "conflict_detected"]
    )
    code, output, _ = evaluate(suite, tmp_path)
    assert code == 1
    assert "events not in order escalated → conflict_detected" in output


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"status": "finished"}, "unknown status 'finished'"),
        ({"required_events": ["tool_exploded"]}, "unknown event type(s): tool_exploded"),
        ({"expected": "typo"}, "expected"),
    ],
)
def test_a_malformed_expectation_is_a_clear_error_before_anything_runs(tmp_path, change, message):
    suite = _copy(tmp_path, "pep", **change)
    with pytest.raises(CommandError, match="pep.expect.json") as error:
        evaluate(suite, tmp_path)
    assert message in str(error.value)
    assert Run.objects.count() == 0


def test_a_scenario_without_expectations_is_refused(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    shutil.copy(SUITE / "pep.json", suite / "pep.json")
    with pytest.raises(CommandError, match="no expectations file pep.expect.json"):
        evaluate(suite, tmp_path)


def test_a_missing_suite_directory_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="is not a directory"):
        evaluate(tmp_path / "nope", tmp_path)
