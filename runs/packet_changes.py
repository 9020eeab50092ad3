"""What a run found that the case's last signed-off run did not, and what that run found
that this one no longer does: a periodic review reads the difference first.

Evidence is compared by id, which the reducer derives from what the evidence says (the
listing, the article, the registry record and whom it is about), so the same finding has
the same id on every run that makes it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from runs.evidence_links import numbered
from runs.models import Run


@dataclass
class PacketChanges:
    run_id: int  # the earlier run, signed off or closed by a reviewer
    finished_at: dt.datetime | None
    rating: str  # its final risk rating ("" if it had none)
    new: list[dict] = field(default_factory=list)  # this run's evidence, numbered
    gone: list[dict] = field(default_factory=list)  # the earlier run's evidence

    @property
    def same(self) -> bool:
        return not self.new and not self.gone


def changes_since_last_signoff(run: Run) -> PacketChanges | None:
    """The changes against the latest run of the case, started before `run`, whose packet a
    reviewer signed off or closed; None when there is none."""
    earlier = (
        Run.objects.signed_off()
        .filter(case_id=run.case_id, pk__lt=run.pk)
        .order_by("-finished_at", "-pk")
        .values_list("pk", "finished_at", "risk_rating", "state__evidence")
        .first()
    )
    if earlier is None:
        return None
    run_id, finished_at, rating, earlier_evidence = earlier
    earlier_evidence = earlier_evidence or []
    evidence = (run.state or {}).get("evidence") or []
    before = {item.get("evidence_id") for item in earlier_evidence}
    now = {item.get("evidence_id") for item in evidence}
    return PacketChanges(
        run_id=run_id,
        finished_at=finished_at,
        rating=rating,
        new=[item for item in numbered(evidence) if item.get("evidence_id") not in before],
        gone=[item for item in earlier_evidence if item.get("evidence_id") not in now],
    )
