"""A packet's review history as the console shows it: when, and who, by their names."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.utils.dateparse import parse_datetime


def review_rounds(packet: dict) -> list[dict]:
    """Each time a reviewer sent the packet back, with the analyst's reply once given."""
    rounds = packet.get("review_history") or []
    usernames = {r.get(who) for r in rounds for who in ("rejected_by", "replied_by")} - {"", None}
    names = {
        user.get_username(): user.get_full_name() or user.get_username()
        for user in get_user_model().objects.filter(username__in=usernames)
    }
    return [
        {
            **r,
            "rejected_by": names.get(r.get("rejected_by"), r.get("rejected_by")),
            "replied_by": names.get(r.get("replied_by"), r.get("replied_by")),
            "rejected_at": parse_datetime(r["rejected_at"]) if r.get("rejected_at") else None,
        }
        for r in rounds
    ]
