"""A board given as a table in an uploaded document ("Board of directors", then rows of a
name and the role "Director") is read like a "Directors:" line; a document that speaks of
the directors but names none that can be read says so in the packet, instead of passing
as a document without directors."""

from __future__ import annotations

import pytest
from runtime_helpers import run, tool_arguments

from atlas.runtime.memory import MemoryDocumentSource
from atlas.runtime.ports import StoredDocument
from atlas.runtime.state import AttachedDocument
from atlas.runtime.tools.document_directors import board_table_rows, mentions_directors

ACME = "Company: Acme Analytics Ltd\nCompany number: 08812345\n\n"
BOARD_TABLE = (
    "Board of directors\n"
    "Name            Role         Appointed\n"
    "Sarah Linden    Director     2015-01-01\n"
    "Tom Becker      Director     2016-02-02\n"
    "Viktor Petrenko Director     2024-09-01\n"
)


@pytest.mark.parametrize(
    ("table", "names"),
    [
        (BOARD_TABLE, ["Sarah Linden", "Tom Becker", "Viktor Petrenko"]),
        (
            "Directors and officers\nName  Position\nJane Roe  Director\n"
            "Dr. Omar Haddad  Non-executive director\nAnn Lee  Secretary\n",
            ["Jane Roe", "Omar Haddad"],
        ),
        (
            "Board of Directors\n| Jane Roe | Director |\n| John Doe | Director | resigned 2021 |\n",
            ["Jane Roe"],
        ),
        # The table ends at a blank line after its rows: a committee below is not the board.
        (
            "Board of directors\nJane Roe\tDirector\n\nAudit committee\nPeter Pan  Director\n",
            ["Jane Roe"],
        ),
        # No heading naming the board: a role column alone is not enough.
        ("Staff\nJane Roe  Director of Sales\n", []),
        # Headings over other people: gone, a subsidiary's, or holdings.
        ("Directors who resigned during the year\nJohn Doe  Director  2019-01-01\n", []),
        ("Directors (former)\nJohn Doe  Director\n", []),
        ("Directors of subsidiary undertakings\nJohn Doe  Director\n", []),
        ("Directors' interests\nBig Fund LP  Director  1,000,000\n", []),
        # An officer's function is not part of a name, nor a board seat.
        (
            "Board of directors\nJane Roe  Finance Director\nJohn Doe  Alternate Director\n"
            "Mark Smith  Director\n",
            ["Mark Smith"],
        ),
    ],
)
def test_the_rows_of_a_board_table_are_its_directors(table, names):
    assert [row.name for row in board_table_rows(table)] == names


@pytest.mark.parametrize(
    ("text", "mentioned"),
    [
        ("Directors: None", False),
        ("Company: X\nDirectors: n/a\n", False),
        ("The board of directors meets quarterly.", True),
        ("Purpose of relationship: freight payments.", False),
        # A title is not the company's board.
        ("Signed for the Director of Companies House", False),
        ("Approved by: Sales Director", False),
        ("Directors: none appointed", False),
    ],
)
def test_a_document_speaks_of_directors_unless_it_says_there_are_none(text, mentioned):
    assert mentions_directors(text) is mentioned


def _attached(text: str) -> tuple[MemoryDocumentSource, AttachedDocument]:
    document = StoredDocument(
        document_id="doc-board",
        name="board.txt",
        content_type="text/plain",
        content=text.encode(),
    )
    return MemoryDocumentSource([document]), AttachedDocument(
        document_id="doc-board", name="board.txt"
    )


def test_a_director_in_a_board_table_is_screened_and_disputes_the_registry(
    make_runtime, make_state, store
):
    documents, attached = _attached(ACME + BOARD_TABLE)
    runtime = make_runtime(documents=documents)
    state = run(runtime, make_state(documents=[attached]))

    screened = {args.get("name") for args in tool_arguments(store, state, "screen_sanctions")}
    assert "Viktor Petrenko" in screened
    (conflict,) = state.conflicts
    assert conflict.fact == "directors"
    assert "Sarah Linden, Tom Becker, Viktor Petrenko" in {v.value for v in conflict.values}
    assert not any(
        "speaks of the company's directors" in g for g in state.proposed_packet.open_gaps
    )


def test_a_document_naming_no_director_it_speaks_of_leaves_a_gap(make_runtime, make_state):
    text = ACME + "The board of directors approved the onboarding at its March meeting.\n"
    documents, attached = _attached(text)
    state = run(make_runtime(documents=documents), make_state(documents=[attached]))

    assert (state.status, state.termination_reason) == ("awaiting_review", "finish_proposed")
    assert (
        "Uploaded document board.txt speaks of the company's directors, but names none that "
        "could be read: check who they are by hand, and have any it names screened."
    ) in state.proposed_packet.open_gaps


def test_two_documents_of_the_same_name_are_told_apart_by_their_ids(make_runtime, make_state):
    first = StoredDocument(
        document_id="doc-1",
        name="kyc.txt",
        content_type="text/plain",
        content=(ACME + "Directors: Sarah Linden, Tom Becker\n").encode(),
    )
    second = first.model_copy(
        update={
            "document_id": "doc-2",
            "content": (ACME + "Directors: Sarah Linden, Mark Evans\n").encode(),
        }
    )
    attached = [AttachedDocument(document_id=d, name="kyc.txt") for d in ("doc-1", "doc-2")]
    runtime = make_runtime(documents=MemoryDocumentSource([first, second]))
    state = run(runtime, make_state(documents=attached))
    labels = {e.source_label for e in state.evidence if e.evidence_class == "document"}
    assert labels == {
        "Uploaded document kyc.txt (document doc-1)",
        "Uploaded document kyc.txt (document doc-2)",
    }
    (conflict,) = state.conflicts
    assert {v.source_label for v in conflict.values} >= {
        "Uploaded document kyc.txt (document doc-2)"
    }
