"""Runtime policy: what the model may do, decided without reading its rationale.

Outcomes: allow, deny (`policy_denied`, the same action stays blocked), or
needs_approval (`awaiting_review`/`awaiting_approval` until a reviewer decides).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from atlas.runtime.money import cost_above_threshold
from atlas.runtime.state import AtlasState
from atlas.runtime.tools.base import ToolSpec

# 2: a document marked sensitive during a run counts. 3: a finish rests on the subject's own
# screen, names the matched entity and every hit's list, and is not low risk unsearched.
# 4: only a resolution of the subject in the case's terms matches it, a packet is about
# the case's subject, and its media summary does not deny the adverse media recorded.
# 5: the model narrows the subject only to the candidate the analyst's answer names, as the
# runtime reads it. 6: a source written as instructions to an AI agent rules out a low risk
# rating (what such text asks for is an approval), and a document naming no company counts
# as the case's. 7: a yes to a question that offered one candidate picks it, and an answer
# that none of the candidates listed is the subject drops them: the run goes on unmatched.
# 8: when nothing registered in the case's country matches closely, the subject is looked
# for in every country and the analyst asked; a legal form in a company's name picks the
# candidate of that form, and one of another form only once the analyst confirms it; a
# packet researched by name after the analyst turned the candidates down says so.
# 9: the subject's registry finding says what the name searched matched (an alias, a
# misspelling, a registration number), a sanctions hit which listed alias it scored on, and
# a director two sources spell apart but alike (Dmitri, Dmitry) is one, raising no conflict;
# a packet with no PEP match says the register was checked.
# 10: the registry entity a sanctions list links an unmatched subject's name to is offered.
# 11: a subject with words a candidate's name lacks is not matched to it unasked; a
# document's beneficial owners are screened, and an unscreened one rules out a low rating.
# 12: a packet says how much of the company owners with sanctions hits hold (OFAC's 50
# Percent Rule), or leaves a gap when their shares are not given or sources disagree; the
# other directors the registry lists for a company the subject person directs are
# screened, and an unscreened one rules out a low rating.
# 13: a packet about a politically exposed subject, or a company one directs or owns, says
# which of its source of wealth and source of funds no document read declares.
# 14: a hit on the subject whose list links the entry to another registry entity than the
# subject's match says so, as a possible namesake for a reviewer to weigh.
# 15: each beneficial owner a document names is searched for adverse media too, and an
# unsearched one rules out a low rating.
# 16: a match on the register of politically exposed persons whose person is another
# registry entity than the subject's match says so, as a possible namesake.
# 17: a hit on a director of the subject company, or on a co-director of a person subject,
# says whether the listed person's registry record lists the company among those they
# direct: the same person, or a possible namesake.
# 18: each business a declared source of wealth or funds names is screened, searched for
# adverse media and looked up in the registry, and an unresearched one rules out a low
# rating; the tenant's high-risk jurisdictions rule out a low rating for a subject, or a
# company a person subject directs, registered in one.
# 19: and for a subject company a director or beneficial owner of which lives in one, by its
# registry record or a document, or a person subject who does, by a document of theirs or
# a company's record.
# 20: each other director of a company a person subject directs is searched for adverse
# media too, and an unsearched one rules out a low rating; a person subject's document
# giving another person's name is not used, and rules out a low rating; a declared business
# may be named without its legal form ("dividends from Northern Star Trading").
# 21: sources giving a director or beneficial owner of the subject company, or a person
# subject, different countries of residence are a conflict for a reviewer; the country a
# reviewer chooses is the one the high-risk rule counts.
# 22: sources are weighed owner by owner on the shares they give: one giving fewer owners
# disputes nothing, a share inside another's band agrees with it, two that cannot both hold
# are a conflict over that owner's share, and the 50 Percent Rule is said when it holds (or
# fails) whichever share stands, a ceiling under half included; a registry's persons with
# significant control are owners, researched and counted as a document's are; where the
# tenant's policy counts nationality, a person subject's form, or a company document's
# table of its directors or owners, giving a nationality of a high-risk jurisdiction rules
# out a low rating as living there does.
POLICY_VERSION = "atlas-policy/22"


# FATF's high-risk jurisdictions subject to a call for action (North Korea, Iran, Myanmar),
# as its statements of 2025 list them: a tenant keeps its own list up to date.
HIGH_RISK_JURISDICTIONS = ("KP", "IR", "MM")


class TenantPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid")

    approval_cost_threshold_usd: Decimal = Field(default=Decimal("0.50"), ge=0)
    forbidden_tools: list[str] = Field(default_factory=list)
    # ISO 3166 codes: a subject registered in one (or a company a person subject directs, or
    # a business a declared source of wealth names), or living in one or with a director or
    # owner living in one (jurisdiction_risk), is not rated low, and its packet asks for
    # enhanced due diligence.
    high_risk_jurisdictions: list[str] = Field(default_factory=lambda: [*HIGH_RISK_JURISDICTIONS])
    # Whether a person subject who is a national of one of them, by a form of theirs, or a
    # director or owner of a subject company who is, by a document's table, is treated as
    # one living there is. Off unless the tenant's policy says so: institutions
    # differ on whether nationality alone calls for enhanced due diligence.
    nationality_counts: bool = False


@dataclass(frozen=True)
class PolicyVerdict:
    outcome: Literal["allow", "deny", "needs_approval"]
    reasons: list[str] = field(default_factory=list)


def sensitive_document_reason(name: str) -> str:
    """Why extracting the document named `name` needs approval (the console adds the same
    words to an approval requested before the mark: runs.actions.do_mark_sensitive)."""
    return f"Document {name} is marked sensitive."


def tool_allowed_in_state(state: AtlasState, tool_name: str, policy: TenantPolicy) -> str | None:
    """Why a tool may not be used right now, or None."""
    if tool_name in policy.forbidden_tools:
        return f"{tool_name} is forbidden by the tenant's policy."
    if tool_name == "extract_uploaded_document" and not state.brief.documents:
        return "No documents are attached to this case, so there is nothing to extract."
    return None


def evaluate(
    state: AtlasState, spec: ToolSpec, arguments: BaseModel, policy: TenantPolicy
) -> PolicyVerdict:
    reason = tool_allowed_in_state(state, spec.name, policy)
    if reason:
        return PolicyVerdict("deny", [reason])
    needs: list[str] = []
    if spec.name == "extract_uploaded_document":
        document_id = getattr(arguments, "document_id", None)
        attached = {d.document_id: d for d in state.brief.documents}
        if document_id not in attached:
            return PolicyVerdict("deny", [f"Document {document_id} is not attached to this case."])
        if attached[document_id].sensitive:
            needs.append(sensitive_document_reason(attached[document_id].name))
    if spec.price_usd > policy.approval_cost_threshold_usd:
        needs.append(cost_above_threshold(spec.price_usd, policy.approval_cost_threshold_usd))
    if needs:
        return PolicyVerdict("needs_approval", needs)
    return PolicyVerdict("allow")
