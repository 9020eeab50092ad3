"""A person subject's form is read as theirs, unless its name line gives someone else's:
then its declarations and residence are not used, the analyst is asked why it was supplied
(the packet gives the answer), and the rating is not low until someone explains it."""

from __future__ import annotations

import pytest
from runtime_helpers import FnModel, answer, events_of, run
from test_document_owners import attached

from atlas.runtime.adapters.base import ModelReply
from atlas.runtime.adapters.playbook import Playbook
from atlas.runtime.context import ModelContext
from atlas.runtime.decisions import Finish
from atlas.runtime.state import Signal
from atlas.runtime.tools.builtin import person_name_given
from runs.rating_grounds import grounds_of

DECLARATION = (
    "CLIENT DECLARATION\n"
    "{name_line}\n"
    "Residential address: 14 Ferdowsi Avenue, Tehran, Iran\n"
    "Source of wealth: Salary as a software executive since 2012.\n"
    "Source of funds: Savings from the salary above.\n"
)


def linden_with(make_runtime, make_state, documents, name_line: str, model=None):
    doc = attached(documents, "declaration.txt", DECLARATION.format(name_line=name_line))
    state = make_state("Sarah Linden", subject_type="person", documents=[doc])
    return run(make_runtime(model), state)


def test_a_form_giving_another_persons_name_is_not_used(make_runtime, make_state, documents):
    state = linden_with(make_runtime, make_state, documents, "Name: Jane Doe")
    (item,) = [e for e in state.evidence if e.evidence_class == "document" and not e.declares]
    assert Signal.ANOTHER_PERSON in item.signals
    assert item.about_other_subject == "Jane Doe"
    assert "It is about Jane Doe, not Sarah Linden: its facts were not used." in item.claim
    # Neither where Jane Doe lives (Iran) nor her money is taken for the subject's.
    assert item.residences == {}
    assert state.high_risk_residences == []
    assert not [e for e in state.evidence if e.declares]
    # Before finishing, the analyst who attached it is asked why.
    assert state.status == "waiting_for_input"
    assert state.pending_question.question.startswith(
        "The uploaded document declaration.txt is about Jane Doe, not Sarah Linden (GB) "
        "[pe-sarah-linden], the person the case was matched to, so none of its facts were used."
    )
    state = answer(make_runtime(), state, "Wrong file: Jane Doe is another client")
    packet = state.proposed_packet
    assert packet.risk_rating == "medium"
    assert packet.open_gaps == [
        "Uploaded document declaration.txt is about another person, Jane Doe: its facts were "
        "not used. Asked why it was supplied, the analyst answered: “Wrong file: Jane Doe is "
        "another client”."
    ]
    assert grounds_of(state) == ["a document about another person"]


@pytest.mark.parametrize(
    "name_line",
    [
        "Name: Sarah Linden",
        "Full name: LINDEN, Sarah",
        "Name: Mrs Sarah J. Linden   Nationality: British",
        "Client name: Sarah Lynden",  # a spelling the registry's name screening would match
        "Declarant: Sarah Linden, software executive",
    ],
)
def test_a_form_giving_the_subjects_name_is_theirs(make_runtime, make_state, documents, name_line):
    state = linden_with(make_runtime, make_state, documents, name_line)
    (item,) = [e for e in state.evidence if e.evidence_class == "document" and not e.declares]
    assert Signal.ANOTHER_PERSON not in item.signals
    assert item.residences == {"Sarah Linden": "IR"}
    assert [e for e in state.evidence if e.declares]


def test_a_form_with_no_name_line_is_taken_as_the_subjects(make_runtime, make_state, documents):
    state = linden_with(make_runtime, make_state, documents, "Client reference: 2291")
    (item,) = [e for e in state.evidence if e.evidence_class == "document" and not e.declares]
    assert Signal.ANOTHER_PERSON not in item.signals
    assert item.residences == {"Sarah Linden": "IR"}


def test_a_low_rating_is_refused_until_someone_explains_it(
    make_runtime, make_state, documents, store
):
    model = _rating_low_anyway()
    state = linden_with(make_runtime, make_state, documents, "Name: Jane Doe", model=model)
    # The analyst's reason is for a reviewer to weigh: it does not lift the floor.
    state = answer(make_runtime(model), state, "It was attached by mistake.")
    (rejected,) = events_of(store, state, "final_rejected")
    assert (
        "An uploaded document gives another person's name than the subject's: that rules out "
        "a low risk rating until someone explains it."
    ) in rejected.data["errors"]


def _rating_low_anyway() -> FnModel:
    """The playbook, but its first packet rated low whatever it found."""
    finishes: list[Finish] = []

    def decide(context: ModelContext) -> ModelReply:
        action = Playbook().next_action(context.projection)
        if isinstance(action, Finish):
            finishes.append(action)
            action.packet.risk_rating = "low" if len(finishes) == 1 else "medium"
        return ModelReply(action=action)

    return FnModel(decide)


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("Sarah Linden", "Sarah Linden"),
        ("Sarah Linden   Nationality: British", "Sarah Linden"),
        ("Sarah Linden Nationality: British", "Sarah Linden"),
        ("Jane Doe | DOB: 1990", "Jane Doe"),
        ("LINDEN, Sarah", "LINDEN, Sarah"),
        ("Sarah Linden, Director", "Sarah Linden"),
        ("(in capitals)", None),
        ("________", None),
        ("Nationality: British", None),
    ],
)
def test_the_name_a_forms_name_line_gives(value, name):
    assert person_name_given(value) == name
