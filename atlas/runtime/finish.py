"""A proposed finish: the deterministic checks its packet must pass, then review."""

from __future__ import annotations

import re

from atlas.runtime.context import CLAIM_VIEW_LIMIT, clipped
from atlas.runtime.decisions import DueDiligencePacket, Finish
from atlas.runtime.packets import with_open_issues
from atlas.runtime.rating_floor import rules_against
from atlas.runtime.redaction import redact
from atlas.runtime.state import (
    CONFLICT_AT_FINISH_USER_STATUS,
    RESUBMITTED_USER_STATUS,
    AtlasState,
    Signal,
)
from atlas.runtime.step_writer import StepBuffer, StepWriter, short_hash
from atlas.runtime.stops import pause_for_review
from atlas.runtime.tools.builtin import STRONG_MATCH
from atlas.runtime.wording import counted
from atlas.runtime.world import name_score
from atlas.runtime.world.normalize import normalize_name, normalize_text

# What only the runtime writes in a packet: a proposed finish cannot set it.
RUNTIME_ONLY_PACKET_FIELDS = {
    "partial": False,
    "closed_by_reviewer": False,
    "closing_note": "",
    "hit_dispositions": [],
    "review_history": [],
    "proposed_risk_rating": None,
}

SAME_PACKET_AS_REJECTED = (
    "A reviewer rejected this same packet, and nothing in it has changed since. Research "
    "what the reviewer asked for, or ask the analyst (their reply goes to the reviewer "
    "with the packet)."
)

# Evidence source kinds whose id after the colon is the id a tool gave the source.
SOURCES_WITH_TOOL_IDS = frozenset({"article", "registry", "sanctions", "document"})


def validate_finish(s: AtlasState, packet: DueDiligencePacket) -> list[str]:
    """Deterministic checks a proposed packet must pass (schema-valid is not enough)."""
    errors: list[str] = []
    evidence = s.evidence_by_id()
    if not packet.findings:
        errors.append("The packet has no findings.")
    for index, finding in enumerate(packet.findings, start=1):
        if not finding.claim.strip():
            errors.append(f"Finding {index} is empty.")
        if not finding.evidence_ids:
            errors.append(f"Finding {index} cites no evidence.")
        for evidence_id in finding.evidence_ids:
            if evidence_id not in evidence:
                errors.append(
                    f"Finding {index} cites {evidence_id}, which is not evidence this run has read."
                )
    if "screen_sanctions" not in s.completed_steps:
        errors.append(
            "The subject has not been screened against the sanctions lists (by its entity_id "
            "or by its own name; a screen of another name does not count)."
        )
    errors += _subject_errors(s, packet)
    errors += _entity_errors(s, packet)
    errors += _sanctions_result_errors(s, packet)
    errors += _uncited_hits(s, packet)
    errors += _media_summary_errors(s, packet)
    if packet.risk_rating == "unrated":
        errors.append("Rate the risk low, medium or high.")
    else:
        rules = rules_against(s, packet.risk_rating)
        errors += [rule.to_the_agent for rule in rules if rule.to_the_agent]
    if s.selected_entity is None and len(s.entity_candidates) > 1:
        errors.append("The subject matches several registry entities; ask the analyst which one.")
    return errors


def _subject_errors(s: AtlasState, packet: DueDiligencePacket) -> list[str]:
    """The packet is about the case's subject: as the case names it, or as the registry
    names the entity the run matched it to."""
    written = set(normalize_name(packet.subject).split())
    own = [s.brief.subject, *([s.selected_entity.name] if s.selected_entity else [])]
    for name in own:
        words = set(normalize_name(name).split())
        if written and (written <= words or words <= written):
            return []
        if name_score(packet.subject, name) >= STRONG_MATCH:
            return []
    return [
        f"The packet's subject “{packet.subject}” is not the case's subject, {s.brief.subject}."
    ]


def _entity_errors(s: AtlasState, packet: DueDiligencePacket) -> list[str]:
    """The packet's entity must be the one the run matched the subject to, if any."""
    named = (packet.selected_entity or "").strip()
    entity = s.selected_entity
    if not named:
        return []
    if entity is None:
        return [
            f"The packet names the entity “{named}”, but the run has not matched the subject "
            "to a registry entity: leave selected_entity empty, or resolve the subject first "
            "(by its own name and type, in the case's jurisdiction or none; narrowed further, "
            "a resolution matches only a candidate the analyst was asked to pick from)."
        ]
    if entity.entity_id in named or normalize_text(entity.name) in normalize_text(named):
        return []
    return [
        f"The packet names the entity “{named}”, but the run matched the subject to "
        f"{entity.name} [{entity.entity_id}]."
    ]


# A summary that is only a denial. A summary that also says more ("no adverse media on the
# company; one article on a director") is the reviewer's to read.
ONLY_DENIES = re.compile(
    r"^\W*(none|nothing|n/?a|clean|clear|(no|nothing)\s+(relevant\s+)?(adverse|negative)"
    r"(\s+(media|news|coverage|articles?))?)(\s+found)?\W*$",
    re.IGNORECASE,
)


def _media_summary_errors(s: AtlasState, packet: DueDiligencePacket) -> list[str]:
    """The adverse-media summary may not deny the adverse media the run recorded. (The
    sanctions result is held to its hits by naming their lists, and a reviewer marks each
    hit a match or a false positive before signing off.)"""
    adverse = [item for item in s.evidence if Signal.ADVERSE in item.signals]
    if not adverse or not ONLY_DENIES.search(packet.adverse_media_summary):
        return []
    return [
        "The adverse-media summary says there is none, but this run recorded "
        f"{counted(len(adverse), 'adverse item')}: summarize them."
    ]


def _sanctions_result_errors(s: AtlasState, packet: DueDiligencePacket) -> list[str]:
    """The packet's sanctions result names the list of every hit the run recorded: a
    result that reads "no hits" beside a recorded hit is not a reviewer's to catch."""
    written = packet.sanctions_result.casefold()
    unnamed = sorted(
        {
            hit.source_label or hit.source_id
            for hit in s.sanctions_hits()
            if (hit.source_label or hit.source_id).casefold() not in written
        }
    )
    if not unnamed:
        return []
    return [
        "The sanctions result must name the list of every sanctions hit this run recorded; "
        f"it does not name {', '.join(unnamed)}."
    ]


def _uncited_hits(s: AtlasState, packet: DueDiligencePacket) -> list[str]:
    """Every sanctions hit the run recorded is cited by a finding: a packet may weigh a
    hit (a delisting, a namesake), but not leave it out."""
    cited = {evidence_id for finding in packet.findings for evidence_id in finding.evidence_ids}
    uncited = [hit.evidence_id for hit in s.sanctions_hits() if hit.evidence_id not in cited]
    if not uncited:
        return []
    return [
        "Every sanctions hit this run recorded must be cited by a finding; none cites "
        f"{', '.join(uncited)}."
    ]


def packet_fingerprint(packet: DueDiligencePacket) -> str:
    """What a reviewer judged: the packet without the record of earlier reviews."""
    return short_hash(packet.model_dump(mode="json", exclude={"review_history"}))


def cited_as_evidence(s: AtlasState, packet: DueDiligencePacket) -> DueDiligencePacket:
    """The packet with every citation an evidence id. A finding may also cite a source this
    run has read by the id its tool gave it (article, registry entity, sanctions entry,
    document) or by its address: that becomes the ids of the evidence from that source.
    Anything else is left as it is, for validate_finish to reject."""
    read = s.evidence_by_id()
    by_source: dict[str, list[str]] = {}
    for item in s.evidence:
        kind, _, own_id = item.source_id.partition(":")
        names = {item.source_id, item.url, item.document_id}
        if kind in SOURCES_WITH_TOOL_IDS:
            names.add(own_id)
        for name in names - {None, ""}:
            by_source.setdefault(name, []).append(item.evidence_id)
    findings = []
    for finding in packet.findings:
        evidence_ids: list[str] = []
        for cited in finding.evidence_ids:
            for evidence_id in [cited] if cited in read else by_source.get(cited, [cited]):
                if evidence_id not in evidence_ids:
                    evidence_ids.append(evidence_id)
        findings.append(finding.model_copy(update={"evidence_ids": evidence_ids}))
    return packet.model_copy(update={"findings": findings})


def with_whole_claims(s: AtlasState, packet: DueDiligencePacket) -> DueDiligencePacket:
    """A finding that repeats its one cited item's claim as the model saw it, cut short,
    carries the claim whole (redacted as the model saw it): a packet's finding does not end
    mid-list because the model's view was bounded."""
    read = s.evidence_by_id()
    findings = []
    for finding in packet.findings:
        cited = read.get(finding.evidence_ids[0]) if len(finding.evidence_ids) == 1 else None
        if cited is not None:
            whole = redact(cited.claim)
            if whole != finding.claim and finding.claim == clipped(whole, CLAIM_VIEW_LIMIT):
                finding = finding.model_copy(update={"claim": whole})
        findings.append(finding)
    return packet.model_copy(update={"findings": findings})


def with_matched_entity(s: AtlasState, packet: DueDiligencePacket) -> DueDiligencePacket:
    """A packet that names no entity names the one the run matched, if any: which entity
    was researched is the run's record, not the model's to leave out."""
    entity = s.selected_entity
    if entity is None or (packet.selected_entity or "").strip():
        return packet
    return packet.model_copy(update={"selected_entity": f"{entity.name} [{entity.entity_id}]"})


def propose_finish(
    writer: StepWriter, s: AtlasState, buf: StepBuffer, action: Finish
) -> AtlasState:
    s.decision_history.append(f"finish:{short_hash(action.packet.model_dump(mode='json'))}")
    proposed = with_matched_entity(s, with_whole_claims(s, cited_as_evidence(s, action.packet)))
    errors = validate_finish(s, proposed)
    if errors and _subject_screen_denied(s):
        # No packet goes without a screen of the subject, which nothing now will run.
        _rejected(writer, s, buf, errors, proposed)
        return pause_for_review(writer, s, buf, "policy_denied", None, SCREEN_DENIED_USER_STATUS)
    if errors:
        return _rejected(writer, s, buf, errors, proposed)
    packet = with_open_issues(s, proposed.model_copy(update=RUNTIME_ONLY_PACKET_FIELDS))
    # The same packet may go back to the reviewer once the analyst has answered them.
    if packet_fingerprint(packet) in s.rejected_packets and s.awaits_reply_to_review():
        return _rejected(writer, s, buf, [SAME_PACKET_AS_REJECTED], packet)
    s.proposed_packet = packet
    held = any(c.status == "open" for c in packet.unresolved_conflicts)
    if held:
        sentence = CONFLICT_AT_FINISH_USER_STATUS
    elif s.packet_reviews and s.packet_reviews[-1].reply:
        sentence = RESUBMITTED_USER_STATUS
    else:
        sentence = None
    writer.set_status(s, "awaiting_review", "finish_proposed", sentence)
    writer.emit(s, buf, "finish_proposed", packet=packet)
    if held:  # one a reviewer marked unresolvable is carried, not escalated again
        writer.emit(
            s,
            buf,
            "escalated",
            reason="unresolved_conflict",
            user_status=s.user_status,
            conflicts=[c.conflict_id for c in packet.unresolved_conflicts if c.status == "open"],
            open_gaps=packet.open_gaps,
        )
    return s


SCREEN_DENIED_USER_STATUS = (
    "The subject could not be screened against the sanctions lists, which a packet needs: "
    "the screen was denied, so the run was handed to a reviewer."
)


def _subject_screen_denied(s: AtlasState) -> bool:
    """Whether the subject is unscreened and a screen of it was denied (by the tenant's
    policy or a reviewer): a screen of a director or a company it directs does not count."""
    if "screen_sanctions" in s.completed_steps:
        return False
    # Once an entity is matched, a namesake's screen is not the subject's.
    if s.selected_entity:
        subject_ids = {s.selected_entity.entity_id}
    else:
        subject_ids = {c.entity_id for c in s.entity_candidates}
    subject_names = {normalize_name(s.brief.subject)}
    if s.selected_entity:
        subject_names.add(normalize_name(s.selected_entity.name))
    for denied in s.denied_actions:
        if denied["tool"] != "screen_sanctions":
            continue
        arguments = denied.get("arguments") or {}
        if arguments.get("entity_id") in subject_ids:
            return True
        if normalize_name(str(arguments.get("name") or "")) in subject_names:
            return True
    return False


def _rejected(
    writer: StepWriter,
    s: AtlasState,
    buf: StepBuffer,
    errors: list[str],
    packet: DueDiligencePacket,
) -> AtlasState:
    # The refused packet is kept in the trace: what the model proposed, and why it failed.
    writer.emit(s, buf, "final_rejected", errors=errors, packet=packet)
    writer.observe(
        s,
        buf,
        source="runtime",
        name="finish",
        ok=False,
        error_type="final_rejected",
        error_message="The packet was rejected: " + " ".join(errors),
    )
    return s
