"""The model asks a person: a blocking question pauses the run, any other is noted."""

from __future__ import annotations

from atlas.runtime.decisions import AskHuman
from atlas.runtime.state import SENT_BACK_USER_STATUS, AtlasState, PendingQuestion
from atlas.runtime.step_writer import StepBuffer, StepWriter, short_hash
from atlas.runtime.stops import pause_for_review

# A blocking question answered this many times already is not put to the analyst again:
# asking it once more, answer after answer, is a cycle no history break may hide.
MAX_SAME_QUESTION_ANSWERED = 2


def ask_human(writer: StepWriter, s: AtlasState, buf: StepBuffer, action: AskHuman) -> AtlasState:
    asked = f"ask_human:{short_hash(action.question)}"
    s.decision_history.append(asked)
    since_extended = s.answered_questions[s.answers_before_extension :]
    answered = sum(qa.get("question") == action.question for qa in since_extended)
    if action.blocking and answered >= MAX_SAME_QUESTION_ANSWERED:
        return pause_for_review(
            writer,
            s,
            buf,
            "repeated_action",
            "cycle_detected",
            period=1,
            actions=[asked] * (answered + 1),
            answered=answered,
        )
    candidates = list(action.candidates)
    if not candidates and s.selected_entity is None and len(s.entity_candidates) > 1:
        candidates = [c.label() for c in s.entity_candidates]
    question_id = f"q-{s.step}"
    writer.emit(
        s,
        buf,
        "clarification_requested",
        question_id=question_id,
        question=action.question,
        candidates=candidates,
        blocking=action.blocking,
    )
    if action.blocking:
        s.pending_question = PendingQuestion(
            question_id=question_id,
            question=action.question,
            candidates=candidates,
            blocking=True,
            step=s.step,
        )
        sentence = SENT_BACK_USER_STATUS if s.review_awaiting_reply() else None
        writer.set_status(s, "waiting_for_input", "waiting_for_input", sentence)
    else:
        writer.observe(
            s,
            buf,
            source="runtime",
            name="ask_human",
            ok=True,
            data={"question": action.question},
            view="Non-blocking question recorded for the analyst; carry on with the research.",
        )
    return s
