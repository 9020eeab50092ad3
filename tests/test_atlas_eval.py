"""`atlas_eval`: the shipped suite passes, a wrong expectation fails the command."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from runs.models import Case, Run

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


# A document scenario's tool reads the document on a helper thread, through its own
# connection: the rows must be committed, not held in the test's transaction.
@pytest.mark.django_db(transaction=True)
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


def refused(suite: Path, *extra: str) -> str:
    """Run atlas_eval, expect a CommandError, check nothing ran, and return its message."""
    with pytest.raises(CommandError) as error:
        call_command("atlas_eval", str(suite), *extra, stdout=StringIO(), stderr=StringIO())
    assert not Case.objects.exists()
    assert not Run.objects.exists()
    return str(error.value)


def test_an_expectations_file_that_is_not_utf8_is_a_one_line_error(tmp_path):
    suite = _copy(tmp_path, "pep")
    (suite / "pep.expect.json").write_bytes(b'\xff{"status": "failed"}')
    assert refused(suite, "--html", str(tmp_path / "r.html")) == (
        f"the suite has a problem: expectations file {suite / 'pep.expect.json'} is not UTF-8 "
        "text (byte 0 cannot be decoded)"
    )


def test_an_expectations_file_that_is_a_directory_is_a_one_line_error(tmp_path):
    suite = _copy(tmp_path, "pep")
    (suite / "pep.expect.json").unlink()
    (suite / "pep.expect.json").mkdir()
    assert refused(suite, "--html", str(tmp_path / "r.html")) == (
        f"the suite has a problem: cannot read expectations file {suite / 'pep.expect.json'}: "
        "Is a directory"
    )


def test_a_report_path_that_is_a_directory_is_refused_before_anything_runs(tmp_path):
    suite = _copy(tmp_path, "pep")
    message = refused(suite, "--html", str(tmp_path))
    assert message == f"cannot write the report: {tmp_path} is a directory"


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("bogus", "--model must be playbook, scripted:FILE or openai:MODEL, got 'bogus'"),
        (
            "openai:gpt-x",
            "--model 'openai:gpt-x' needs the endpoint's address: set OPENAI_BASE_URL",
        ),
    ],
    ids=["unknown", "openai-without-settings"],
)
def test_a_model_no_run_could_use_is_refused_before_anything_runs(
    tmp_path, settings, model, message
):
    settings.OPENAI_BASE_URL = settings.OPENAI_API_KEY = ""
    suite = _copy(tmp_path, "pep")
    assert refused(suite, "--html", str(tmp_path / "r.html"), "--model", model) == message


def test_a_malformed_scenario_is_refused_before_any_other_scenario_runs(tmp_path):
    suite = _copy(tmp_path, "pep")  # runs first: the malformed one sorts after it
    (suite / "zz_malformed.json").write_text('{"case": {"subject": "Acme"}, "bogus": 1}')
    (suite / "zz_malformed.expect.json").write_text("{}")
    assert refused(suite, "--html", str(tmp_path / "r.html")) == (
        "the suite has a problem: zz_malformed.json: invalid scenario: unknown key 'bogus'"
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"packet": {"risk_rating": "LOWW"}},
            "'packet.risk_rating': Input should be 'low', 'medium', 'high' or 'unrated'",
        ),
        ({"packet": {"present": "yes"}}, "'packet.present': Input should be a valid boolean"),
        (
            {"max_event_count": {"tool_started": "-3"}},
            "'max_event_count.tool_started': Input should be a valid integer",
        ),
        (
            {"max_event_count": {"tool_started": -3}},
            "'max_event_count.tool_started': Input should be greater than or equal to 0",
        ),
        ({"max_seconds": True}, "'max_seconds': Input should be a valid number"),
    ],
    ids=["unknown-rating", "yes-for-true", "count-as-text", "negative-count", "true-for-seconds"],
)
def test_an_expectation_is_read_strictly(tmp_path, change, message):
    suite = _copy(tmp_path, "pep", **change)
    assert refused(suite, "--html", str(tmp_path / "r.html")) == (
        f"the suite has a problem: pep.expect.json: {message}"
    )


def test_the_summary_of_one_run_speaks_of_one_run(tmp_path):
    code, output, _ = evaluate(_copy(tmp_path, "clean_company"), tmp_path)
    assert code == 0, output
    assert "\nLoop metrics over this run:\n" in output
    assert output.endswith("The scenario met its expectations.\n")
