"""Forms for reviewer and analyst decisions; each maps onto one reviews.actions call."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django import forms

from atlas.runtime.state import Budgets
from reviews.actions import EXTENSIONS, MAX_REASON_CHARS, past_the_ceiling
from runs.case_fields import clean_typed_text

UNRESOLVABLE = "__unresolvable__"
MEANINGLESS_REASON = "Give a reason of a few words: it goes into the audit record."


class ReasonField(forms.CharField):
    """Text a person writes for the record (a reason, note, answer or decision).

    Line breaks are stored as LF: browsers count a line break as one character against
    `maxlength` but submit it as CRLF, so counting the submitted text would refuse a reason
    the browser had just accepted.

    A reason for the audit record must say something: at least three characters and one
    letter, so "?" or "." is refused. Answers to the agent's questions pass `for_audit=False`
    ("GB" is a fine answer).

    Invisible marks are dropped and a character the run refuses is refused, as in a
    subject's name (runs.case_fields.clean_typed_text); `what` names the text in the message.
    """

    def __init__(self, *, for_audit: bool = True, what: str = "The text", **kwargs) -> None:
        kwargs.setdefault("max_length", MAX_REASON_CHARS)
        kwargs.setdefault("strip", True)
        super().__init__(**kwargs)
        self.for_audit = for_audit
        self.what = what
        self.error_messages.setdefault(
            "max_length",
            f"{what} is too long: at most %(limit_value)d characters, and it has "
            "%(show_value)d. Shorten it and send it again.",
        )

    def to_python(self, value):
        if isinstance(value, str):
            value = value.replace("\r\n", "\n").replace("\r", "\n")
            value = clean_typed_text(value, self.what)
        return super().to_python(value)

    def validate(self, value) -> None:
        super().validate(value)
        if (
            self.for_audit
            and value
            and (len(value) < 3 or not any(char.isalpha() for char in value))
        ):
            raise forms.ValidationError(MEANINGLESS_REASON, code="meaningless")


HIT_FIELD_PREFIX = "hit-"
HIT_NOTE_PREFIX = "note-hit-"


def _by_evidence_id(data, prefix: str) -> dict[str, str]:
    return {
        name.removeprefix(prefix): value
        for name, value in data.items()
        if name.startswith(prefix) and value.strip()
    }


def hit_dispositions_in(data) -> dict[str, str]:
    """The disposition chosen for each screening match (fields `hit-<evidence id>`, one
    radio group per match); the runtime's schema refuses any value it does not know."""
    return _by_evidence_id(data, HIT_FIELD_PREFIX)


def hit_notes_in(data) -> dict[str, str]:
    """Why the reviewer marked a match so, where they said (fields `note-hit-<evidence
    id>`)."""
    return _by_evidence_id(data, HIT_NOTE_PREFIX)


class HitDispositionsMixin:
    """A form that may carry a disposition of each screening match, and a note on it; a
    note is cleaned as a ReasonField is."""

    def clean(self) -> dict:
        data = super().clean()
        try:
            data["hit_notes"] = {
                key: clean_typed_text(note, "A note on a screening match")
                for key, note in hit_notes_in(self.data).items()
            }
        except forms.ValidationError as error:
            self.add_error(None, error)
        return data

    def hit_dispositions(self) -> dict[str, str]:
        return hit_dispositions_in(self.data)

    def hit_notes(self) -> dict[str, str]:
        """The notes as cleaned: only for a valid form."""
        return self.cleaned_data["hit_notes"]


RATINGS = ("low", "medium", "high")


class RatedForm(forms.Form):
    """A decision that may set the packet's risk rating (a sign-off, a closing decision)
    when the reviewer weighs the evidence otherwise than the run did."""

    risk_rating = forms.ChoiceField(
        required=False,
        choices=[("", "As proposed"), ("low", "Low"), ("medium", "Medium"), ("high", "High")],
        error_messages={"invalid_choice": "Choose a rating of low, medium or high."},
    )


class DecisionForm(HitDispositionsMixin, RatedForm):
    decision = forms.ChoiceField(
        choices=[("approve", "Approve"), ("deny", "Deny")],
        error_messages={
            "required": "Choose approve or deny.",
            "invalid_choice": "Choose approve or deny.",
        },
    )
    reason = ReasonField(
        what="The reason",
        error_messages={"required": "A reason is required; it is recorded in the audit trail."},
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    # How many reasons for an approval the page showed (reviews.actions.do_decide_approval).
    reasons_seen = forms.IntegerField(
        required=False,
        min_value=0,
        widget=forms.HiddenInput,
        error_messages=dict.fromkeys(
            ("invalid", "min_value"),
            "This page is out of date: reload it to see why the call needs approval, then "
            "decide again.",
        ),
    )

    @property
    def approve(self) -> bool:
        return self.cleaned_data["decision"] == "approve"


class AnswerForm(forms.Form):
    answer = ReasonField(required=False, for_audit=False, what="The answer")
    answer_text = ReasonField(required=False, for_audit=False, what="The answer")

    def clean(self) -> dict:
        data = super().clean()
        text = data.get("answer") or data.get("answer_text") or ""
        if not text and not self.errors:  # a field's own error already says what is wrong
            raise forms.ValidationError("Write an answer or pick one of the suggested answers.")
        data["text"] = text
        return data


class ResolveConflictForm(forms.Form):
    conflict_id = forms.CharField(max_length=128)
    choice = forms.CharField(
        max_length=2000,
        error_messages={
            "required": "Pick the value that stands, or mark the conflict unresolvable."
        },
    )
    note = ReasonField(
        what="The note",
        error_messages={
            "required": "A note is required: say why this value stands (or why it cannot be resolved)."
        },
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    @property
    def unresolvable(self) -> bool:
        return self.cleaned_data["choice"] == UNRESOLVABLE


# The extension field that lifts each budget a run can stop on.
FIELD_FOR_STOP = {
    "max_iterations": "extra_iterations",
    "token_budget": "extra_tokens",
    "cost_budget": "extra_cost_usd",
    "deadline": "extra_seconds",
}


@dataclass(frozen=True)
class BudgetShortfall:
    """What the budget a run stopped on must grow by before the run can take its next step
    (`at_least`), and why in a reviewer's words; without it resuming stops the run again at
    once, and the escalation comes straight back."""

    field: str
    at_least: Decimal
    advice: str


def _whole_number_added(label: str, most: int) -> forms.IntegerField:
    """An extension's field for a whole number of iterations, tokens or seconds."""
    unit = label.lower()
    return forms.IntegerField(
        label=label,
        min_value=0,
        max_value=most,
        initial=0,
        required=False,
        error_messages={
            "invalid": f"Enter a whole number of {unit}, such as 5.",
            "min_value": "Enter 0 or more: an extension only adds.",
            "max_value": f"Add at most {most:,} {unit} at a time.",
        },
    )


class ExtendBudgetForm(forms.Form):
    extra_iterations = _whole_number_added("Iterations", 100)
    extra_tokens = _whole_number_added("Tokens", 1_000_000)
    extra_cost_usd = forms.DecimalField(
        label="Cost",
        min_value=Decimal("0"),
        max_value=Decimal("100"),
        decimal_places=2,
        initial=Decimal("0"),
        required=False,
        error_messages={
            "invalid": "Enter an amount in dollars, such as 0.50.",
            "min_value": "Enter 0 or more: an extension only adds.",
            "max_value": "Add at most $100.00 at a time.",
            "max_decimal_places": "Enter dollars and cents, at most 2 decimal places, such as 0.25.",
        },
    )
    extra_seconds = _whole_number_added("Seconds", 3600)
    reason = ReasonField(
        what="The reason",
        error_messages={"required": "A reason is required; it is recorded in the audit trail."},
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(
        self,
        *args,
        budgets: dict | None = None,
        shortfall: BudgetShortfall | None = None,
        **kwargs,
    ) -> None:
        """`budgets`: the run's budgets as they stand, so no extension takes one past the
        ceiling the runtime holds it to (the runtime would refuse it after the decision was
        recorded); `shortfall`: what the budget the run stopped on needs."""
        super().__init__(*args, **kwargs)
        self.budgets = Budgets.model_validate(budgets or {})
        self.shortfall = shortfall

    def clean(self) -> dict:
        data = super().clean()
        for name in ("extra_iterations", "extra_tokens", "extra_seconds"):
            data[name] = data.get(name) or 0
        data["extra_cost_usd"] = data.get("extra_cost_usd") or Decimal("0")
        if self.errors:
            return data
        if not any(data[name] for name in EXTENSIONS):
            raise forms.ValidationError(
                "Extend at least one budget (iterations, tokens, cost or time)."
            )
        for name, refusal in past_the_ceiling(self.budgets, data).items():
            self.add_error(name, refusal)
        need = self.shortfall
        if need is not None and Decimal(str(data[need.field])) < need.at_least:
            self.add_error(need.field, need.advice)
        return data


class CloseCaseForm(HitDispositionsMixin, RatedForm):
    decision = ReasonField(
        what="The closing decision",
        error_messages={
            "required": "Write the closing decision; it goes into the packet and the audit trail."
        },
        widget=forms.Textarea(attrs={"rows": 3}),
    )
