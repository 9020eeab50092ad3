"""A packet's review history as the console shows it: when, and who, by their names."""

from __future__ import annotations

from django.utils.dateparse import parse_datetime

from runs.people import names_by_login


def review_rounds(packet: dict) -> list[dict]:
    """Each time a reviewer sent the packet back, with the analyst's reply once given."""
    rounds = packet.get("review_history") or []
    names = names_by_login(r.get(who) for r in rounds for who in ("rejected_by", "replied_by"))
    return [
        {
            **r,
            "rejected_by": names.get(r.get("rejected_by"), r.get("rejected_by")),
            "replied_by": names.get(r.get("replied_by"), r.get("replied_by")),
            "rejected_at": parse_datetime(r["rejected_at"]) if r.get("rejected_at") else None,
        }
        for r in rounds
    ]
