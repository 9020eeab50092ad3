"""A scenario's document keeps the name it is given whole, "/" and all: the name is a title,
not a path. Its file is still found relative to the scenario file's folder, and stored
under a safe name inside the case's own folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

from runs.models import Case, Run

pytestmark = pytest.mark.django_db

MINUTES = "Board minutes 2024/25.txt"


def _run_scenario_with(tmp_path: Path, monkeypatch, document: dict) -> Case:
    """run_case on a scenario in its own folder, started from another folder."""
    folder = tmp_path / "scenarios"
    (folder / "papers").mkdir(parents=True)
    (folder / "papers" / "minutes.txt").write_text("Director: Jane Roe\n")
    path = folder / "scenario.json"
    path.write_text(json.dumps({"case": {"subject": "Acme", "documents": [document]}}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    call_command("run_case", "--scenario", str(path))
    return Case.objects.get()


def test_a_document_name_with_a_slash_is_stored_whole(tmp_path, monkeypatch):
    case = _run_scenario_with(
        tmp_path, monkeypatch, {"path": "papers/minutes.txt", "name": MINUTES}
    )
    assert case.documents.get().original_name == MINUTES


def test_the_run_knows_the_document_by_its_whole_name(tmp_path, monkeypatch):
    _run_scenario_with(tmp_path, monkeypatch, {"path": "papers/minutes.txt", "name": MINUTES})
    run = Run.objects.get()
    started = run.events.get(type="run_started").data
    assert [document["name"] for document in started["documents"]] == [MINUTES]


@pytest.mark.parametrize("name", [MINUTES, "../../outside/minutes.txt"])
def test_the_file_is_stored_inside_the_cases_folder(tmp_path, monkeypatch, name):
    case = _run_scenario_with(tmp_path, monkeypatch, {"path": "papers/minutes.txt", "name": name})
    document = case.documents.get()
    assert document.original_name == name
    case_folder = Path(settings.MEDIA_ROOT, "documents", str(case.tenant_id), str(case.pk))
    stored = Path(document.file.path).resolve()
    assert stored.parent == case_folder.resolve()
    assert stored.read_text() == "Director: Jane Roe\n"
