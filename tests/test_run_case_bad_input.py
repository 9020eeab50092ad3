"""run_case refuses bad input with one clear line and leaves no case or run behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from runs.models import Case, Run, Tenant
from tests.runtime.runtime_helpers import minimal_pdf

PROJECT_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def refused(db):
    """Run run_case, expect a CommandError matching `message`, and check nothing was kept."""

    def check(*args: str, message: str) -> str:
        with pytest.raises(CommandError, match=message) as error:
            call_command("run_case", *args)
        assert not Case.objects.exists()
        assert not Run.objects.exists()
        return str(error.value)

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


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--deadline-seconds", "inf", "--deadline-seconds: Input should be a finite number"),
        ("--deadline-seconds", "nan", "--deadline-seconds: Input should be a finite number"),
        ("--deadline-seconds", "1e300", "--deadline-seconds: Input should be less than or equal"),
        ("--max-no-progress", "0", "--max-no-progress: Input should be greater than or equal to 1"),
        ("--max-iterations", "-1", "--max-iterations: Input should be greater than or equal to 0"),
        ("--max-tokens", "1" + "0" * 20, "--max-tokens: Input should be less than or equal"),
        ("--max-cost-usd", "1e400", "--max-cost-usd: Input should be less than or equal"),
        ("--max-cost-usd", "NaN", "must be a decimal amount such as 0.50, got 'NaN'"),
        ("--max-cost-usd", "sNaN", "must be a decimal amount such as 0.50, got 'sNaN'"),
        ("--max-cost-usd", "Infinity", "must be a decimal amount such as 0.50, got 'Infinity'"),
    ],
)
def test_a_budget_flag_that_is_not_finite_or_out_of_range_is_refused(refused, flag, value, message):
    refused("--subject", "Acme Analytics Ltd", flag, value, message=message)


def test_a_budget_flag_is_checked_together_with_the_scenarios_budgets(refused, tmp_path):
    path = tmp_path / "scenario.json"
    path.write_text('{"case": {"subject": "Acme"}, "budgets": {"max_no_progress": 2}}')
    refused("--scenario", str(path), "--max-no-progress", "0", message="--max-no-progress")


def test_a_malformed_amount_on_the_command_line_is_a_usage_error_not_a_traceback():
    finished = subprocess.run(
        [sys.executable, "manage.py", "run_case", "--subject", "Acme", "--max-cost-usd", "NaN"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 2
    assert "Traceback" not in finished.stderr
    assert "--max-cost-usd: must be a decimal amount" in finished.stderr


def test_a_damaged_pdf_is_refused_in_one_line(tmp_path):
    pdf = minimal_pdf("Directors: Jane Roe")
    document = tmp_path / "trunc.pdf"
    document.write_bytes(pdf[: len(pdf) // 2])
    finished = subprocess.run(
        [sys.executable, "manage.py", "run_case", "--subject", "Acme", "--document", document],
        cwd=PROJECT_ROOT,
        env={**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode == 1
    assert finished.stderr.splitlines() == [
        "CommandError: document trunc.pdf: “trunc.pdf” could not be read as a PDF: "
        "it is damaged or incomplete. Upload the original file."
    ]


def test_a_blank_subject_in_a_scenario_is_refused_as_the_web_form_refuses_it(refused, tmp_path):
    path = tmp_path / "scenario.json"
    path.write_text('{"case": {"subject": "   "}}')
    refused("--scenario", str(path), message="scenario case.subject: Enter the subject's name")


def test_a_blank_subject_flag_is_refused(refused):
    refused("--subject", " \t ", message="--subject: Enter the subject's name")


@pytest.mark.parametrize("jurisdiction", ["ßx", "ß", "ÄÖ", "G1", "Narnia"])
def test_a_jurisdiction_that_is_not_two_ascii_letters_is_refused(refused, tmp_path, jurisdiction):
    refused(
        "--subject", "Acme", "--jurisdiction", jurisdiction, message="--jurisdiction: Use a two"
    )
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"case": {"subject": "Acme", "jurisdiction": jurisdiction}}))
    refused("--scenario", str(path), message="scenario case.jurisdiction: Use a two")


def test_the_subject_and_jurisdiction_are_stored_cleaned(db, capsys):
    call_command("run_case", "--subject", "  Acme   Analytics Ltd ", "--jurisdiction", " gb ")
    case = Case.objects.get()
    assert (case.subject_name, case.jurisdiction) == ("Acme Analytics Ltd", "GB")


@pytest.mark.parametrize("name", ["..", "/"])
def test_a_scenario_document_named_like_a_directory_is_refused(refused, tmp_path, name):
    (tmp_path / "filing.txt").write_text("Director: Jane Roe\n")
    path = tmp_path / "scenario.json"
    document = {"path": "filing.txt", "name": name}
    path.write_text(json.dumps({"case": {"subject": "Acme", "documents": [document]}}))
    refused("--scenario", str(path), message="is not a file name")


@pytest.mark.parametrize("where", ["../secret.txt", "sub/../../secret.txt", "absolute"])
def test_a_scenario_document_outside_the_scenarios_folder_is_refused(refused, tmp_path, where):
    """A suite someone else wrote must not attach files from elsewhere on the machine."""
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET_KEY=not-for-a-case\n")
    folder = tmp_path / "suite"
    folder.mkdir()
    path = folder / "scenario.json"
    document = {"path": str(secret) if where == "absolute" else where}
    path.write_text(json.dumps({"case": {"subject": "Acme", "documents": [document]}}))
    refused("--scenario", str(path), message="must be a path inside the scenario file's folder")
    assert not Case.objects.exists()


def test_a_scenario_document_path_written_with_backslashes_says_how_to_write_it(refused, tmp_path):
    (tmp_path / "filings").mkdir()
    (tmp_path / "filings" / "filing.txt").write_text("Director: Jane Roe\n")
    path = tmp_path / "scenario.json"
    document = {"path": "filings\\filing.txt"}
    path.write_text(json.dumps({"case": {"subject": "Acme", "documents": [document]}}))
    said = refused("--scenario", str(path), message="separate its folders with '/', not")
    assert said.endswith(
        "no such file 'filings\\filing.txt'; separate its folders with '/', not '\\'"
    )
    assert not Case.objects.exists()


def test_a_scenario_document_keeps_its_given_name(db, tmp_path, capsys):
    (tmp_path / "filing.txt").write_text("Director: Jane Roe\n")
    path = tmp_path / "scenario.json"
    document = {"path": "filing.txt", "name": "Companies House filing.txt"}
    path.write_text(json.dumps({"case": {"subject": "Acme", "documents": [document]}}))
    call_command("run_case", "--scenario", str(path))
    assert Case.objects.get().documents.get().original_name == "Companies House filing.txt"


def test_a_scenario_value_of_the_wrong_type_is_refused_not_coerced(refused, tmp_path):
    path = tmp_path / "scenario.json"
    path.write_text('{"case": {"subject": "Acme"}, "budgets": {"max_iterations": true}}')
    refused("--scenario", str(path), message="'budgets.max_iterations': Input should be a valid")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--subject", "Other Ltd"], "--subject cannot be given with --scenario"),
        (["--jurisdiction", "FR"], "--jurisdiction cannot be given with --scenario"),
        (["--subject-type", "person"], "--subject-type cannot be given with --scenario"),
        (["--subject", "", "--jurisdiction", "FR"], "--subject, --jurisdiction cannot be given"),
    ],
)
def test_case_flags_with_a_scenario_are_refused_not_ignored(refused, tmp_path, flags, message):
    path = tmp_path / "scenario.json"
    path.write_text('{"case": {"subject": "Acme Analytics Ltd", "jurisdiction": "GB"}}')
    refused("--scenario", str(path), *flags, message=message)


def test_a_document_flag_adds_to_a_scenarios_documents(db, tmp_path):
    (tmp_path / "filing.txt").write_text("Director: Jane Roe\n")
    (tmp_path / "extra.txt").write_text("Director: John Doe\n")
    path = tmp_path / "scenario.json"
    path.write_text(
        json.dumps({"case": {"subject": "Acme", "documents": [{"path": "filing.txt"}]}})
    )
    call_command("run_case", "--scenario", str(path), "--document", str(tmp_path / "extra.txt"))
    names = Case.objects.get().documents.values_list("original_name", flat=True)
    assert sorted(names) == ["extra.txt", "filing.txt"]


def test_the_same_document_given_twice_is_refused_as_the_case_page_refuses_it(refused, tmp_path):
    (tmp_path / "filing.txt").write_text("Director: Jane Roe\n")
    (tmp_path / "copy.txt").write_text("Director: Jane Roe\n")
    documents = [{"path": "filing.txt"}, {"path": "filing.txt", "sensitive": True}]
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"case": {"subject": "Acme", "documents": documents}}))
    refused("--scenario", str(path), message="document filing.txt is given twice: give it once")
    flags = ["--document", str(tmp_path / "filing.txt"), "--document", str(tmp_path / "copy.txt")]
    refused("--subject", "Acme", *flags, message="document copy.txt is the same file as filing.txt")


def test_an_unknown_tenant_is_refused_with_the_existing_ones(refused, tenant):
    refused("--subject", "Acme", "--tenant", "demo-bnak", message="existing: demo-bank")
    assert list(Tenant.objects.values_list("slug", flat=True)) == ["demo-bank"]


def test_a_new_tenant_is_created_only_when_asked(db):
    call_command("run_case", "--subject", "Acme", "--tenant", "harbor-credit", "--create-tenant")
    assert Case.objects.get().tenant.name == "Harbor Credit"


def test_the_default_tenant_is_created_on_first_use(db):
    call_command("run_case", "--subject", "Acme")
    assert Case.objects.get().tenant.slug == "demo-bank"


def test_a_tenant_to_create_needs_a_valid_slug(refused):
    refused("--subject", "Acme", "--tenant", "Harbor Credit", "--create-tenant", message="slug")
    assert not Tenant.objects.exists()


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        (
            '{"case": {"subject": "Acme"}, "tool_faults": {"screen_sanctions": ["ok\\n"]}}',
            "unknown fault 'ok\\\\n'",
        ),
        (
            '{"case": {"subject": "Acme"}, "tool_faults": {"screen_sanctions": ["slow:99999999999999999999"]}}',
            "at most slow:3600 seconds",
        ),
        (
            '{"case": {"subject": "Acme"}, "budgets": {"max_iterations": null}}',
            "null is not a budget",
        ),
        (
            '{"case": {"subject": "Acme"}, "case": {"subject": "Other"}}',
            "gives the key 'case' twice",
        ),
        (
            '{"case": {"subject": "Acme"}, "model": {"turns": [{"kind": "ask_human", "question": "?", '
            '"usage": {"cost_usd": "5000000"}}]}}',
            "usage.cost_usd",
        ),
        (
            '{"case": {"subject": "Acme"}, "model": {"turns": [{"kind": "ask_human", "question": "?", '
            '"usage": {"input_tokens": 100000000000000000000}}]}}',
            "usage.input_tokens",
        ),
    ],
    ids=[
        "fault-newline",
        "slow-forever",
        "null-budget",
        "repeated-key",
        "huge-cost",
        "huge-tokens",
    ],
)
def test_a_scenario_that_says_something_it_cannot_mean_is_refused(
    refused, tmp_path, scenario, message
):
    path = tmp_path / "scenario.json"
    path.write_text(scenario)
    refused("--scenario", str(path), message=message)


@pytest.mark.parametrize("setting", ["bogus", "openai:", "scripted:/nonexistent/turns.json"])
def test_a_malformed_model_setting_is_refused_before_a_run_is_queued(refused, settings, setting):
    settings.ATLAS_MODEL = setting
    refused("--subject", "Acme Analytics Ltd", message="the ATLAS_MODEL setting")


def test_a_document_that_is_not_a_regular_file_is_refused_unread(refused):
    refused("--subject", "Acme Analytics Ltd", "--document", "/dev/zero", message="not a regular")


@pytest.mark.parametrize("field", ["subject", "notes", "jurisdiction"])
def test_a_nul_character_in_a_scenario_case_is_refused(refused, tmp_path, field):
    case = {"subject": "Acme Analytics Ltd", field: "Acme\u0000"}
    path = tmp_path / "nul.json"
    path.write_text(json.dumps({"case": case}))
    refused("--scenario", str(path), message="must not contain a NUL character")


def test_where_documents_are_read_from_is_not_a_key_of_the_scenario(refused, tmp_path):
    path = tmp_path / "base.json"
    path.write_text(json.dumps({"case": {"subject": "Acme Analytics Ltd"}, "base_dir": "/etc"}))
    refused("--scenario", str(path), message="unknown key 'base_dir'")


def _manage(*args: str, database: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT_ROOT,
        env={**os.environ, "DATABASE_URL": f"sqlite:///{database}"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_database_not_yet_migrated_is_named_with_what_to_do(tmp_path):
    *_, before_last, last = sorted((PROJECT_ROOT / "runs" / "migrations").glob("0*.py"))
    database = tmp_path / "db.sqlite3"
    assert _manage("migrate", "-v0", database=database).returncode == 0
    assert _manage("migrate", "runs", before_last.stem, "-v0", database=database).returncode == 0
    finished = _manage("run_case", "--subject", "Acme Analytics", database=database)
    assert finished.returncode == 1
    assert "Traceback" not in finished.stderr
    assert (
        f"The database is missing 1 migration, starting with runs.{last.stem}: run "
        "`python manage.py migrate`, then try again." in finished.stderr
    )
    missing = tmp_path / "no such folder" / "db.sqlite3"
    finished = _manage("cancel_run", "1", "--user", "analyst", database=missing)
    assert (finished.returncode, "Traceback" in finished.stderr) == (1, False)
    assert "Cannot read the database: unable to open database file" in finished.stderr


@pytest.mark.parametrize("answer", ["", " \t\n"], ids=["empty", "whitespace"])
def test_a_blank_scripted_answer_is_refused_when_the_scenario_loads(refused, tmp_path, answer):
    path = tmp_path / "scenario.json"
    scenario = {"case": {"subject": "Northwind Trading"}, "human": {"answers": ["US", answer]}}
    path.write_text(json.dumps(scenario))
    message = refused("--scenario", str(path), message="answers")
    assert message == "invalid scenario: 'human.answers.1': must not be blank"


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ('"gpt"', "invalid scenario: 'model': Input should be 'playbook' or an object"),
        ('{"turns": 5}', "invalid scenario: 'model.turns': must be a list of turns"),
        (
            '{"turns": [{"kind": "finish", "packet": 5}]}',
            "invalid scenario: 'model.turns': turn 0: 'packet': Input should be an object",
        ),
    ],
    ids=["unknown-name", "turns-not-a-list", "packet-not-an-object"],
)
def test_a_scenario_error_reads_as_plain_words_without_pydantics_names(
    refused, tmp_path, model, message
):
    path = tmp_path / "scenario.json"
    path.write_text(f'{{"case": {{"subject": "Acme Analytics"}}, "model": {model}}}')
    assert refused("--scenario", str(path), message="invalid scenario") == message


def test_a_document_over_the_limit_is_refused_with_its_own_size(refused, tmp_path):
    document = tmp_path / "big.pdf"
    with document.open("wb") as handle:
        handle.truncate(30_000_000)  # sparse: no disk space, and nothing worth reading
    message = refused("--subject", "Acme Analytics", "--document", str(document), message="big")
    assert message == (
        "document big.pdf: “big.pdf” is 30,000,000 bytes; the limit is 5,242,880 bytes (5 MB)."
    )


@pytest.mark.parametrize("api_key", ["", "sk-test"], ids=["no-key", "key"])
def test_a_hosted_model_without_its_endpoint_address_is_refused_before_a_run_is_queued(
    refused, settings, api_key
):
    """A key is not required: a local server may take none."""
    missing = "address: set OPENAI_BASE_URL"
    settings.OPENAI_BASE_URL, settings.OPENAI_API_KEY = " ", api_key
    message = refused("--subject", "Acme Analytics", "--model", "openai:gpt-x", message="needs")
    assert message == f"--model 'openai:gpt-x' needs the endpoint's {missing}"
    settings.ATLAS_MODEL = "openai:gpt-x"
    message = refused("--subject", "Acme Analytics", message="needs")
    assert message == f"the ATLAS_MODEL setting 'openai:gpt-x' needs the endpoint's {missing}"


def test_a_scenario_runs_on_its_own_model_whatever_the_model_setting_says(db, settings, tmp_path):
    settings.ATLAS_MODEL = "openai:gpt-x"
    settings.OPENAI_BASE_URL = settings.OPENAI_API_KEY = ""
    path = tmp_path / "scenario.json"
    path.write_text('{"case": {"subject": "Acme Analytics", "jurisdiction": "GB"}}')
    call_command("run_case", "--scenario", str(path), stdout=StringIO())
    assert Run.objects.get().model_name == "playbook"


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--subject", "Acme", "--subject", "Bob"], "--subject"),
        (["--subject", "Acme", "--jurisdiction", "GB", "--jurisdiction", "US"], "--jurisdiction"),
        (
            ["--subject", "Acme", "--max-iterations", "5", "--max-iterations", "9"],
            "--max-iterations",
        ),
    ],
)
def test_a_flag_given_twice_is_refused_not_the_last_one_taken(refused, args, flag):
    refused(*args, message=f"{flag} is given twice")
