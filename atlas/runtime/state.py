"""AtlasState: the durable memory of one run. Everything survives a JSON round trip."""

from __future__ import annotations

import hashlib
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from atlas.runtime.decisions import DueDiligencePacket, ReviewRound

RunStatus = Literal[
    "queued",
    "researching",
    "waiting_for_input",
    "awaiting_review",
    "completed",
    "failed",
    "cancelled",
]
STATUSES: tuple[str, ...] = get_args(RunStatus)
TERMINAL_STATUSES = frozenset({"completed", "failed", "cancelled"})
PAUSED_STATUSES = frozenset({"waiting_for_input", "awaiting_review"})

ReasonCode = Literal[
    "finish_proposed",
    "packet_approved",
    "awaiting_approval",
    "waiting_for_input",
    "max_iterations",
    "token_budget",
    "cost_budget",
    "deadline",
    "repeated_action",
    "no_progress",
    "policy_denied",
    "tool_failure",
    "model_failure",
    "cancelled",
]
REASON_CODES: tuple[str, ...] = get_args(ReasonCode)
BUDGET_REASONS = frozenset({"max_iterations", "token_budget", "cost_budget", "deadline"})
# Stops a reviewer can lift by extending the budget: the budgets and the loop guards.
EXTENDABLE_REASONS = BUDGET_REASONS | {"no_progress", "repeated_action", "policy_denied"}

# The longest user-visible status a run's row holds.
USER_STATUS_MAX_LENGTH = 300

# One sentence per reason code and per status, shown in the console.
USER_STATUS: dict[str, str] = {
    "finish_proposed": "Research is done and the packet is waiting for a reviewer's sign-off.",
    "packet_approved": "A reviewer signed off the packet; the case is complete.",
    "awaiting_approval": "A proposed action needs a reviewer's approval before it runs.",
    "waiting_for_input": "The agent asked the analyst a question and is waiting for the answer.",
    "max_iterations": "The research stopped at its iteration limit; a reviewer should look at the partial packet.",
    "token_budget": "The research stopped before exceeding its token budget; a reviewer should look at the partial packet.",
    "cost_budget": "The research stopped before exceeding its cost budget; a reviewer should look at the partial packet.",
    "deadline": "The research stopped at its time limit; a reviewer should look at the partial packet.",
    "repeated_action": "The agent kept repeating the same actions, so the run was handed to a reviewer.",
    "no_progress": "The agent stopped making progress, so the run was handed to a reviewer with what it found.",
    "policy_denied": "The agent kept proposing actions that policy forbids, so the run was handed to a reviewer.",
    "tool_failure": "A research tool failed in a way retrying cannot fix; the run stopped.",
    "model_failure": "The model kept returning unusable answers; the run stopped.",
    "cancelled": "The run was cancelled.",
    "queued": "The run is queued and will start shortly.",
    "researching": "The agent is researching the subject.",
    "awaiting_review": "The run is waiting for a reviewer.",
    "completed": "The case is complete.",
    "failed": "The run failed.",
}

# `finish_proposed` with a conflict nobody has settled: the sign-off waits for that first.
CONFLICT_AT_FINISH_USER_STATUS = (
    "Research is done, but its sources disagree: a reviewer settles that before the packet "
    "can be signed off."
)
# `waiting_for_input` after a reviewer sent the packet back, until the analyst replies.
SENT_BACK_USER_STATUS = (
    "A reviewer sent the packet back; the agent is waiting for the analyst's reply to them."
)
# `finish_proposed` again, with the analyst's reply to the reviewer who sent it back.
RESUBMITTED_USER_STATUS = (
    "The packet is back with the reviewers, with the analyst's reply to the one who sent it back."
)
# `packet_approved` reached by closing the case as it stands rather than by a sign-off.
CASE_CLOSED_USER_STATUS = (
    "A reviewer closed the case with its packet as it stood; the case is complete."
)


def user_status_for(status: str, reason: str | None) -> str:
    if reason is not None:
        return USER_STATUS[reason]
    return USER_STATUS[status]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AttachedDocument(_Model):
    document_id: str
    name: str
    sensitive: bool = False


# The analyst's notes on a case: enough for context, bounded because every model call
# carries them.
NOTES_MAX_LENGTH = 4000


class CaseBrief(_Model):
    subject: str = Field(min_length=1)
    subject_type: Literal["company", "person"] = "company"
    jurisdiction: str | None = None
    notes: str = ""
    documents: list[AttachedDocument] = Field(default_factory=list)

    def document_names(self) -> dict[str, str]:
        """document id -> name, of the case's documents."""
        return {d.document_id: d.name for d in self.documents}


# Ceilings on what a run can be given, from a scenario, a run_case flag or an extension:
# generous for real research, and small enough that clock arithmetic and the JSON columns
# never overflow. Infinity and NaN are refused.
MAX_DEADLINE_SECONDS = 30 * 24 * 3600
IterationBudget = Annotated[int, Field(ge=0, le=10_000)]
TokenBudget = Annotated[int, Field(ge=0, le=1_000_000_000)]
CostBudget = Annotated[Decimal, Field(ge=0, le=Decimal(100_000), allow_inf_nan=False)]
DeadlineBudget = Annotated[float, Field(ge=0, le=MAX_DEADLINE_SECONDS, allow_inf_nan=False)]
ModelErrorBudget = Annotated[int, Field(ge=0, le=100)]
NoProgressBudget = Annotated[int, Field(ge=1, le=10_000)]


class Budgets(_Model):
    # A company with three directors and a document takes eleven iterations to research,
    # and a question or a send-back from a reviewer two or three more; a person directing
    # three companies, with a co-director on each, twenty, a question among them.
    max_iterations: IterationBudget = 30
    # Room for every iteration: a model call's context grows to about 5,000 tokens by the
    # end of a company's research, and past 9,000 for a person directing three companies
    # (131,000 tokens in all over twenty iterations, a question among them).
    max_tokens: TokenBudget = 200000
    # Room for every iteration too: a call costs at most $0.05 (a screening), so thirty of
    # them $1.50, with the model's calls besides.
    max_cost_usd: CostBudget = Decimal("2.00")
    deadline_seconds: DeadlineBudget = 120
    max_model_errors: ModelErrorBudget = 2
    max_no_progress: NoProgressBudget = 3
    # Tokens reserved for the model's answer when checking the budget before a call.
    max_output_tokens: int = Field(default=600, ge=1, le=100_000)
    max_tool_retries: int = Field(default=2, ge=0, le=10)
    max_policy_denials: int = Field(default=3, ge=1, le=100)
    max_consecutive_tool_failures: int = Field(default=3, ge=1, le=100)


class VersionBundle(_Model):
    model: str = "playbook"
    model_kind: Literal["rule-based", "scripted", "llm"] = "rule-based"
    prompt: str = "atlas-prompt/1"
    schema_version: str = "next-action/1"
    policy: str = "atlas-policy/1"
    toolset: str = "atlas-tools/1"


class EntityCandidate(_Model):
    entity_id: str
    name: str
    entity_type: Literal["company", "person"]
    jurisdiction: str
    score: float
    matched_on: str = ""
    registration_number: str | None = None
    # Offered because a sanctions entry the subject's name hit is linked to it: that hit's
    # list entry ("sanctions:un-3301"); "" for a candidate the registry search found.
    linked_by: str = ""
    # The list's own name or alias the subject's name hit, for such a candidate.
    listed_as: str = ""
    # What tells same-name entities apart for the analyst: born, role, incorporated, status.
    details: str = ""
    # A person's year of birth, as the registry or the list's linked entity gives it.
    born_year: int | None = None
    # For the matched entity: the attached document whose company number singled it out
    # of the candidates (document_picks), "" when the registry or the analyst did.
    matched_by_document: str = ""
    # ... and how, in a sentence for the case's pages.
    matched_by: str = ""

    def label(self) -> str:
        return candidate_label(self.model_dump())


def candidate_label(c: dict[str, Any]) -> str:
    """How a registry candidate is named to the analyst: enough to tell it from the others."""
    facts = [c["jurisdiction"]]
    if c.get("registration_number"):
        facts.append(f"no. {c['registration_number']}")
    if c.get("details"):
        facts.append(c["details"])
    return f"{c['name']} ({', '.join(facts)}) [{c['entity_id']}]"


class HeldDirectorship(_Model):
    """A company whose register names a person as a director."""

    entity_id: str
    name: str
    jurisdiction: str
    # The director's name as the company's record lists it, for a person the registry has
    # no record of: linked to the company by that name alone.
    listed_as: str = ""

    def label(self) -> str:
        return f"{self.name} ({self.jurisdiction})"


class SameTextElsewhere(_Model):
    """Another address where an evidence item's text was found word for word."""

    source_id: str
    source_label: str = ""
    url: str | None = None


def evidence_id_for(fingerprint: str) -> str:
    """An evidence item's id, from its fingerprint: the same finding keeps its id."""
    return f"ev-{fingerprint[:10]}"


def conflict_id_for(entity_id: str, fact: str, person_key: str = "") -> str:
    """A conflict's id, from what it is over: sources disagreeing on that again reopen it.
    `person_key`: whom of the entity a fact about one person is about."""
    over = f"{entity_id}|{fact}" + (f"|{person_key}" if person_key else "")
    return "cf-" + hashlib.sha256(over.encode()).hexdigest()[:10]


class EvidenceItem(_Model):
    evidence_id: str
    evidence_class: str  # registry | sanctions | pep | adverse_media | document | human
    source_id: str
    source_label: str = ""
    tool: str
    url: str | None = None
    document_id: str | None = None
    retrieved_at: datetime
    fingerprint: str
    claim: str
    step: int
    signals: list[str] = Field(default_factory=list)  # Signal values among them
    # Whom the item is about when not the subject itself ("director Dmitry Volkov").
    about: str = ""
    # An article found by a name alone, not linked to a registry entity: it may be about a
    # namesake.
    found_by_name: bool = False
    # The entity id of the registry candidate for the subject the item is about (its
    # registry record, a screen by its id); "" when it is about no candidate. Once another
    # entity is selected, it is about someone else than the subject.
    candidate_id: str = ""
    # For a sanctions hit: the registry entity its list links the entry to, if one; for a
    # match on the register of politically exposed persons, the person it matched.
    linked_entity_id: str = ""
    # For such a hit or match: that entity is not whom the subject (or the director) was
    # found to be, so it may be a namesake's (listed_namesakes).
    possible_namesake: bool = False
    # For an article found by the subject's name: the registry entity it is about instead,
    # when it is linked only to entities whose names the subject's only partly shares and
    # never names the subject ("Golden Gate Shipping SA (PA)" for "Golden Gate Logistics").
    about_another_entity: str = ""
    # For a document about another company than the one matched, whose name is the case's
    # subject's all the same: that company, with the number the document gives it
    # ("Northwind Trading Pte Ltd, company number 201534871K"); the client may be it.
    namesake_company: str = ""
    # For a document about another company than the one matched, or a person's form giving
    # someone else's name: whom it is about, as its lines name them ("Harrow Bay Freight
    # Ltd"); its facts were not used, and the analyst is asked why it was supplied.
    about_other_subject: str = ""
    # For a document about the subject company: it speaks of directors, but names none that
    # could be read, so who they are is for a person to check.
    directors_unread: bool = False
    # The same for its beneficial owners.
    owners_unread: bool = False
    # For a match on the register of politically exposed persons with a relative or
    # associate of one: how they are related ("close family member", "close associate").
    pep_relation: str = ""
    # For what a document declares of where the money comes from: which source
    # (document_declarations.SOURCE_OF_WEALTH or SOURCE_OF_FUNDS).
    declares: str = ""
    # For such a declaration: the businesses it names (declared_businesses), each to be
    # screened and searched for in the news.
    businesses: list[str] = Field(default_factory=list)
    # For the registry record of such a business: the country it is registered in.
    registered_in: str = ""
    # For a company's registry record, or a document about the subject company: the
    # country each person it lists (a director, a beneficial owner) lives in, by name,
    # where it says.
    residences: dict[str, str] = Field(default_factory=dict)
    # For a person's form: its line saying where they live, personal data redacted.
    residence_line: str = ""
    # For a person's form: the countries it says they are a national of (ISO codes).
    nationalities: list[str] = Field(default_factory=list)
    # For a person's form: the year its dates of birth give, where they all give one.
    birth_year: int | None = None
    # For a document about the subject company: the year each director or owner it
    # names was born in, by name, as it says beside the name or in its own document.
    birth_years_of: dict[str, int] = Field(default_factory=dict)
    # For a sanctions hit or a match on the register: the year the registry person its
    # entry is linked to was born in, where the registry gives one.
    linked_born_year: int | None = None
    # For a sanctions hit: the years of birth its entry gives, where the list gives any.
    listed_born_years: list[int] = Field(default_factory=list)
    # ... the countries it lists its person a national of, and the entry's name.
    listed_nationalities: list[str] = Field(default_factory=list)
    listed_name: str = ""
    # For a person's own form: the name it gives them, in full (middle names too).
    full_name: str = ""
    # For an article found by a person's name: the age it gives them, where it gives one,
    # on the date it was published.
    age_given: int | None = None
    published: str = ""
    # For a document about the subject company: the countries each director or owner it
    # lists is a national of, by name, where it says (beside the name, or in a table).
    nationalities_of: dict[str, list[str]] = Field(default_factory=dict)
    # The same text at other addresses (an article syndicated word for word): one story,
    # held once, each place it ran named.
    copies: list[SameTextElsewhere] = Field(default_factory=list)


class Signal(StrEnum):
    """What an evidence item says about the subject's risk. The finish checks hold a
    packet's rating to these, and the packet page names them as the rating's grounds."""

    SANCTIONS_HIT = "sanctions_hit"
    ADVERSE = "adverse"
    PEP = "pep"
    # Not a risk of the subject: the source holds text written as instructions to an AI
    # agent (atlas.runtime.injection), which was treated as data like the rest of it.
    INSTRUCTIONS = "instructions"
    # An uploaded document names another company in its `Company:` line than the entity
    # the subject was matched to: its facts were not used, and a wrong file may have been
    # supplied for the subject.
    ANOTHER_COMPANY = "another_company"
    # A person subject's uploaded document gives another person's name in its name line
    # ("Name: Jane Doe" on a case about Sarah Linden): its facts were not used either.
    ANOTHER_PERSON = "another_person"


class Fact(_Model):
    fact: str  # directors | registration_number | sanctions_status | ...
    entity_id: str
    # A fact about one person of the entity (where a director lives) names them, as the
    # source spells them; "" for a fact about the entity itself.
    person: str = ""
    value: str  # normalized, compared for conflicts
    display_value: str
    source_id: str
    source_label: str = ""
    retrieved_at: datetime
    excerpt: str = ""
    evidence_id: str

    @classmethod
    def said_by(cls, item: EvidenceItem, **fields: str) -> Fact:
        """The fact `fields` give (fact, entity_id, value, ...) as the source of `item`
        says it."""
        return cls(
            source_id=item.source_id,
            source_label=item.source_label,
            retrieved_at=item.retrieved_at,
            evidence_id=item.evidence_id,
            **fields,
        )


class ConflictValue(_Model):
    value: str
    source_id: str
    source_label: str = ""
    retrieved_at: datetime
    excerpt: str = ""


class ConflictResolutionRecord(_Model):
    value: str | None
    note: str = ""
    actor: str
    decision_id: str


class Conflict(_Model):
    conflict_id: str
    fact: str
    entity_id: str
    # Whom a conflict over a fact about one person is about ("director Farhad Rahimi").
    person: str = ""
    values: list[ConflictValue]
    status: Literal["open", "resolved", "unresolvable"] = "open"
    resolution: ConflictResolutionRecord | None = None
    # How reviewers settled it before a source read since disputed that (oldest first).
    earlier_resolutions: list[ConflictResolutionRecord] = Field(default_factory=list)


class PendingQuestion(_Model):
    question_id: str
    question: str
    candidates: list[str] = Field(default_factory=list)
    blocking: bool = True
    step: int


class ProposedToolCall(_Model):
    action_id: str
    tool_name: str
    arguments: dict[str, Any]
    signature: str
    reasons: list[str] = Field(default_factory=list)
    estimated_cost_usd: Decimal = Decimal("0")
    step: int
    # Reuse of a key on crash reconciliation; empty means "derive from run, step, args".
    idempotency_key: str = ""
    # A call taken over after a crash is run again in the step it began in, not a new one,
    # its attempts counted on from those its earlier holder started.
    continues_step: bool = False
    attempts_before: int = 0
    first_started_at: datetime | None = None


class InFlightToolCall(_Model):
    idempotency_key: str
    tool_name: str
    arguments: dict[str, Any]
    signature: str
    step: int
    # Why it needed a reviewer's approval, if it did (kept for a call taken over later).
    reasons: list[str] = Field(default_factory=list)


class DocumentRead(_Model):
    """An attached document's extraction, read before the subject had a registry match (a
    company subject's, or a company's paperwork on a person's case): whose facts it gives
    is known only once one is matched, so it is read into the state again then (reducer)."""

    step: int
    read_at: datetime
    result: dict[str, Any]


class ObservationNote(_Model):
    """What the model was shown about one observation (the whole data lives in the store)."""

    step: int
    source: Literal["tool", "human", "runtime"]
    name: str
    ok: bool
    model_view: str
    error_type: str | None = None
    error_message: str | None = None
    source_ids: list[str] = Field(default_factory=list)


class AtlasState(_Model):
    run_id: str
    case_id: str
    tenant_id: str
    brief: CaseBrief
    opened_by: str | None = None
    version: int = 0

    status: RunStatus = "queued"
    termination_reason: ReasonCode | None = None
    user_status: str = USER_STATUS["queued"]

    entity_candidates: list[EntityCandidate] = Field(default_factory=list)
    # Registry entities of the other type than the case's that the subject's name matches.
    other_type_matches: list[str] = Field(default_factory=list)
    # How many entities of the subject's name its latest resolution left out as registered
    # outside the country it searched (None before one ran): a search everywhere can only
    # find more when this is not 0.
    candidates_registered_elsewhere: int | None = None
    selected_entity: EntityCandidate | None = None
    # Held only until the subject is matched (then read again and dropped).
    documents_read_before_match: list[DocumentRead] = Field(default_factory=list)
    # person entity id -> the companies the registry lists them as directing; under "" the
    # companies whose records list a director by a person subject's name, while the subject
    # matches no registry person.
    directorships: dict[str, list[HeldDirectorship]] = Field(default_factory=dict)
    evidence: list[EvidenceItem] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(default_factory=list)
    observations: list[ObservationNote] = Field(default_factory=list)

    pending_question: PendingQuestion | None = None
    answered_questions: list[dict[str, str]] = Field(default_factory=list)
    pending_approval: ProposedToolCall | None = None
    approved_action: ProposedToolCall | None = None
    in_flight: InFlightToolCall | None = None
    proposed_packet: DueDiligencePacket | None = None
    completed_steps: list[str] = Field(default_factory=list)

    step: int = 0
    iteration: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    model_cost_usd: Decimal = Decimal("0")
    tool_cost_usd: Decimal = Decimal("0")
    largest_model_call_cost_usd: Decimal = Decimal("0")
    largest_model_call_tokens: int = 0

    started_at: datetime | None = None
    deadline_at: datetime | None = None
    paused_at: datetime | None = None
    updated_at: datetime | None = None

    budgets: Budgets = Field(default_factory=Budgets)
    # The tenant's high-risk jurisdictions (ISO 3166 codes), as its policy gave them when
    # the run last took a step.
    high_risk_jurisdictions: list[str] = Field(default_factory=list)
    # Whether its policy counts nationality as a tie to a country (jurisdiction_risk).
    nationality_counts: bool = False
    # Who of the research is registered in one (jurisdiction_risk), as of the last commit:
    # for the pages, which read the stored state.
    high_risk_registrations: list[str] = Field(default_factory=list)
    # Who lives in one: a director or owner of the subject company, or a person subject.
    high_risk_residences: list[str] = Field(default_factory=list)
    # Who is a national of one, where the tenant's policy counts nationality: a person
    # subject, or a director or owner of the subject company.
    high_risk_nationalities: list[str] = Field(default_factory=list)
    versions: VersionBundle = Field(default_factory=VersionBundle)

    next_seq: int = 1
    action_counts: dict[str, int] = Field(default_factory=dict)
    decision_history: list[str] = Field(default_factory=list)
    denied_signatures: list[str] = Field(default_factory=list)
    denied_actions: list[dict[str, Any]] = Field(default_factory=list)  # {tool, arguments, reason}
    executed_actions: list[dict[str, Any]] = Field(default_factory=list)  # {tool, arguments, step}
    approved_signatures: list[str] = Field(default_factory=list)
    policy_denials: int = 0
    # How many answers the analyst had given when a reviewer last extended the run: only
    # those after count towards a question asked again and again (questions.ask_human).
    answers_before_extension: int = 0
    progress_history: list[str] = Field(default_factory=list)
    consecutive_model_errors: int = 0
    # Of those, the requests that got no reply at all (the endpoint failed, not the model).
    consecutive_transport_errors: int = 0
    # Not before then is the model called again: its endpoint asked so (Retry-After).
    model_retry_at: datetime | None = None
    consecutive_tool_failures: int = 0
    applied_decision_ids: list[str] = Field(default_factory=list)
    # decision id -> why it could not apply; settled like applied ones, never retried.
    rejected_decisions: dict[str, str] = Field(default_factory=dict)
    # Fingerprints of packets a reviewer rejected: the same packet is not proposed again.
    rejected_packets: list[str] = Field(default_factory=list)
    # Every time a reviewer sent a packet back, with the analyst's reply once given.
    packet_reviews: list[ReviewRound] = Field(default_factory=list)

    model_cursor: int = 0
    fault_plan: dict[str, list[str]] = Field(default_factory=dict)
    tool_fault_cursors: dict[str, int] = Field(default_factory=dict)

    def review_awaiting_reply(self) -> ReviewRound | None:
        """The last send-back, if the analyst has not replied to it yet."""
        if self.packet_reviews and not self.packet_reviews[-1].reply:
            return self.packet_reviews[-1]
        return None

    def awaits_reply_to_review(self) -> bool:
        """A reviewer sent the last packet back and the analyst has not replied yet. A
        send-back recorded before replies were (a rejected packet without its round) never
        got one."""
        unrecorded = len(self.rejected_packets) > len(self.packet_reviews)
        return unrecorded or self.review_awaiting_reply() is not None

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def cost_usd(self) -> Decimal:
        return self.model_cost_usd + self.tool_cost_usd

    @property
    def is_terminal(self) -> bool:
        return self.status in TERMINAL_STATUSES

    def evidence_by_id(self) -> dict[str, EvidenceItem]:
        return {item.evidence_id: item for item in self.evidence}

    def evidence_classes(self) -> list[str]:
        return sorted({item.evidence_class for item in self.evidence})

    def sanctions_hits(self) -> list[EvidenceItem]:
        return [item for item in self.evidence if Signal.SANCTIONS_HIT in item.signals]

    def given_by_documents(self, facts: list[Fact]) -> dict[str, list[str]]:
        """Of `facts`, each value the case's own documents give -> the names of those
        documents."""
        names = self.brief.document_names()
        given: dict[str, list[str]] = {}
        for fact in facts:
            if name := names.get(fact.source_id.removeprefix("document:")):
                given.setdefault(fact.value, []).append(name)
        return given

    def settled_facts(self, conflict_id: str, facts: list[Fact]) -> list[Fact]:
        """`facts`, or only those giving the value a reviewer chose in the conflict
        `conflict_id` over them."""
        chosen = next(
            (
                c.resolution.value
                for c in self.conflicts
                if c.conflict_id == conflict_id and c.resolution
            ),
            None,
        )
        return [fact for fact in facts if fact.display_value == chosen] if chosen else facts

    def screening_matches(self) -> list[EvidenceItem]:
        """What matched by name, each for a reviewer to mark as a confirmed match or a
        false positive: sanctions hits, matches on the register of politically exposed
        persons, and adverse articles found by a name alone (a director's, say)."""
        return [
            item
            for item in self.evidence
            if Signal.SANCTIONS_HIT in item.signals
            or item.evidence_class == "pep"
            or (item.found_by_name and Signal.ADVERSE in item.signals)
        ]

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def clone(self) -> AtlasState:
        """A deep, independent copy. The state survives a JSON round trip by design, and
        pydantic's JSON round trip is several times faster than copy.deepcopy."""
        return type(self).model_validate_json(self.model_dump_json())

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AtlasState:
        return cls.model_validate(data)


def new_state(
    *,
    run_id: str,
    case_id: str,
    tenant_id: str,
    brief: CaseBrief,
    budgets: Budgets | None = None,
    versions: VersionBundle | None = None,
    fault_plan: dict[str, list[str]] | None = None,
    opened_by: str | None = None,
) -> AtlasState:
    """A fresh `queued` state; `Runtime.start` moves it to `researching`."""
    return AtlasState(
        run_id=run_id,
        case_id=case_id,
        tenant_id=tenant_id,
        brief=brief,
        budgets=budgets or Budgets(),
        versions=versions or VersionBundle(),
        fault_plan=dict(fault_plan or {}),
        opened_by=opened_by,
    )
