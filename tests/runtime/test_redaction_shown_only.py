"""Personal data is redacted in what is shown, and only as far as it is shown: the model's
view of a 5 MB result, and a document's opening in its evidence, which a table's rows must
not slip through."""

from __future__ import annotations

from atlas.runtime import redaction
from atlas.runtime.context import MODEL_VIEW_LIMIT, model_view
from tests.runtime.test_tools_and_world import _researched_with


def _counting_redaction(monkeypatch) -> list[int]:
    read: list[int] = []
    whole = redaction.redact

    def counted(text: str) -> str:
        read.append(len(text))
        return whole(text)

    monkeypatch.setattr(redaction, "redact", counted)
    return read


def test_the_model_view_of_a_huge_result_redacts_what_it_shows_and_reads_no_more(monkeypatch):
    read = _counting_redaction(monkeypatch)
    text = "Passport No: K7654321. " + "An ordinary sentence of the report. " * 150_000
    view, truncated = model_view("document:doc-1", {"text": text, "name": "report.txt"})
    assert truncated
    assert "K7654321" not in view and "[REDACTED" in view
    assert sum(read) < 20 * MODEL_VIEW_LIMIT, sum(read)  # not the 5 MB


def test_a_plain_text_view_is_redacted_too():
    view, truncated = model_view("tool:x", "Kontonummer: 1234567890\n" + "x" * 10)
    assert not truncated
    assert "1234567890" not in view


def test_a_tables_passport_numbers_stay_out_of_a_documents_opening(make_runtime, make_state):
    text = b"Name | Passport No. | Role\nJane Roe | K7654321 | Director\n"
    state = _researched_with(make_runtime, make_state, text, "board.txt", "doc-board")
    (evidence,) = [e for e in state.evidence if e.evidence_class == "document"]
    assert "It begins:" in evidence.claim
    assert "Jane Roe" in evidence.claim
    assert "K7654321" not in evidence.claim
