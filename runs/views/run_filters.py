"""The admins' run browser query: filters, sort orders and keyset pagination.

Pages are cut with a keyset (`(sort value, id)` of the last row seen), never OFFSET, so
page 2,000 of 100,000 runs costs what page 1 costs. Every sort has a matching
`(tenant, column, id)` index in runs/models.py.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import HttpRequest, QueryDict
from django.utils import timezone

from runs.access import tenant_of
from runs.models import Run, Tenant
from runs.numbers import LARGEST
from runs.search_text import matching_runs, search_text

PAGE_SIZE = 50

# sort key -> (column, python type of its values); every column is indexed with tenant and id.
# A run's figures sort as they stand when it is not researching (Run.settled_*): a run still
# researching sorts as if it had spent nothing yet.
SORTS: dict[str, tuple[str, str]] = {
    "created": ("created_at", "datetime"),
    "cost": ("settled_cost_usd", "decimal"),
    "tokens": ("settled_tokens", "int"),
    "iterations": ("settled_iterations", "int"),
    "duration": ("settled_elapsed_seconds", "float"),
}
SORT_LABELS = {
    "created": "Started (UTC)",
    "cost": "Cost",
    "tokens": "Tokens",
    "iterations": "Iterations",
    "duration": "Research time",
}


class BadCursor(ValueError):
    """A page link that was edited or came from another sort order."""


@dataclass
class RunFilters:
    status: str = ""
    reason: str = ""
    model: str = ""
    prompt: str = ""
    policy: str = ""
    subject: str = ""
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    tenant: str = ""
    sort: str = "created"
    descending: bool = True
    # What is wrong with the query, each as the list page says it (with what it did
    # instead) and as a bare problem (an export refuses the query instead).
    errors: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def _wrong(self, problem: str, instead: str) -> None:
        self.problems.append(problem)
        self.errors.append(f"{problem}; {instead}.")

    @classmethod
    def from_query(cls, query: QueryDict) -> RunFilters:
        filters = cls()
        status = query.get("status", "")
        if status and status not in Run.Status.values:
            filters._wrong(f"Unknown status {status!r}", "the filter was ignored")
        else:
            filters.status = status
        reason = query.get("reason", "")
        if reason and reason not in dict(Run.OUTCOME_CHOICES):
            filters._wrong(f"Unknown termination reason {reason!r}", "the filter was ignored")
        else:
            filters.reason = reason
        filters.model = query.get("model", "").strip()[:120]
        filters.prompt = query.get("prompt", "").strip()[:40]
        filters.policy = query.get("policy", "").strip()[:40]
        filters.subject = search_text(query.get("subject", ""))
        filters.tenant = query.get("tenant", "").strip()[:50]
        filters.date_from, filters.date_to = day_range(query, filters._wrong, noun="run")
        sort = query.get("sort", "-created")
        descending = sort.startswith("-")
        sort = sort.lstrip("-")
        if sort not in SORTS:
            filters._wrong(f"Cannot sort by {sort!r}", "showing the newest runs first")
            sort, descending = "created", True
        filters.sort, filters.descending = sort, descending
        return filters

    @property
    def sort_param(self) -> str:
        return ("-" if self.descending else "") + self.sort

    def apply(self, runs: QuerySet[Run]) -> QuerySet[Run]:
        if self.status:
            runs = runs.filter(status=self.status)
        if self.reason:
            runs = runs.with_outcome(self.reason)
        if self.model:
            runs = runs.filter(model_name=self.model)
        if self.prompt:
            runs = runs.filter(prompt_version=self.prompt)
        if self.policy:
            runs = runs.filter(policy_version=self.policy)
        if self.subject:
            runs = runs.filter(matching_runs(self.subject))
        if self.tenant:
            runs = runs.filter(tenant__slug=self.tenant)
        return within_days(runs, self.date_from, self.date_to)

    def as_query(self) -> dict[str, str]:
        """The filters as URL parameters (no cursor), for links and exports."""
        values = {
            "status": self.status,
            "reason": self.reason,
            "model": self.model,
            "prompt": self.prompt,
            "policy": self.policy,
            "subject": self.subject,
            "tenant": self.tenant,
            "date_from": self.date_from.isoformat() if self.date_from else "",
            "date_to": self.date_to.isoformat() if self.date_to else "",
            "sort": self.sort_param,
        }
        return {key: value for key, value in values.items() if value}


def day_range(
    query: QueryDict, wrong: Callable[[str, str], None], *, noun: str
) -> tuple[dt.date | None, dt.date | None]:
    """A filter form's `date_from` and `date_to`, each a date or None. What is wrong with
    them goes to `wrong(problem, what was done instead)`; reversed dates are kept, since
    they say plainly that no `noun` can match."""
    days: dict[str, dt.date | None] = {"date_from": None, "date_to": None}
    for name in days:
        raw = query.get(name, "").strip()
        if not raw:
            continue
        try:
            days[name] = dt.date.fromisoformat(raw)
        except ValueError:
            wrong(f"{raw!r} is not a date (use YYYY-MM-DD)", "it was ignored")
    first, last = days["date_from"], days["date_to"]
    if first and last and first > last:
        wrong(
            f"The From date ({first}) is after the To date ({last})",
            f"no {noun} can match: swap them",
        )
    return first, last


def start_of_day(day: dt.date) -> dt.datetime | None:
    """The first moment of `day` in the current time zone; None at the very edge of the
    calendar, where that moment lies outside what the database's UTC datetimes can hold:
    every stored run is then on the far side of it."""
    start = dt.datetime.combine(day, dt.time.min, tzinfo=timezone.get_current_timezone())
    try:
        start.astimezone(dt.UTC)
    except OverflowError:
        return None
    return start


def within_days(rows: QuerySet, first: dt.date | None, last: dt.date | None) -> QuerySet:
    """Rows (runs, cases) created from the first day through the last one (both optional,
    both inclusive)."""
    if first and (start := start_of_day(first)):
        rows = rows.filter(created_at__gte=start)
    if last and last < dt.date.max and (end := start_of_day(last + dt.timedelta(days=1))):
        rows = rows.filter(created_at__lt=end)
    return rows


def runs_in_scope(request: HttpRequest) -> QuerySet[Run]:
    """A superuser sees every tenant's runs; an admin only their own tenant's."""
    if request.user.is_superuser:
        return Run.objects.all()
    tenant: Tenant = tenant_of(request)
    if tenant is None:  # pragma: no cover - tenant_of raises instead
        raise PermissionDenied
    return Run.objects.filter(tenant=tenant)


def ordered(runs: QuerySet[Run], filters: RunFilters, *, reverse: bool = False) -> QuerySet[Run]:
    column = SORTS[filters.sort][0]
    descending = filters.descending != reverse
    prefix = "-" if descending else ""
    return runs.order_by(f"{prefix}{column}", f"{prefix}id")


def _encode_value(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    return value


def encode_cursor(run: Run, filters: RunFilters) -> str:
    column = SORTS[filters.sort][0]
    payload = json.dumps([filters.sort, _encode_value(getattr(run, column)), run.pk])
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, filters: RunFilters) -> tuple[Any, int]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        sort, raw_value, run_id = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError):
        raise BadCursor("That page link is damaged.") from None
    if sort != filters.sort or not isinstance(run_id, int):
        raise BadCursor("That page link belongs to another sort order.")
    if not 0 < run_id <= LARGEST:
        raise BadCursor("That page link is damaged.")
    try:
        return _cursor_value(SORTS[sort][1], raw_value), run_id
    except (TypeError, ValueError, InvalidOperation, OverflowError):
        raise BadCursor("That page link is damaged.") from None


def _cursor_value(kind: str, raw_value: Any) -> Any:
    """A sort value as the database can compare it; anything no row could hold (NaN, an
    infinity, a time without a zone or beyond the UTC calendar) is a ValueError."""
    if kind == "datetime":
        value = dt.datetime.fromisoformat(raw_value)
        if value.tzinfo is None:
            raise ValueError("a cursor time needs a time zone")
        value.astimezone(dt.UTC)  # raises OverflowError at the edges of the calendar
        return value
    if kind == "decimal":
        value = Decimal(raw_value)
        if not value.is_finite():
            raise ValueError("a cursor amount must be finite")
        return value
    if kind == "int":
        value = int(raw_value)
        if abs(value) > LARGEST:
            raise OverflowError("a cursor count beyond any column")
        return value
    value = float(raw_value)
    if not math.isfinite(value):
        raise ValueError("a cursor duration must be finite")
    return value


def after_keyset(
    runs: QuerySet[Run], filters: RunFilters, value: Any, run_id: int, *, backwards: bool = False
) -> QuerySet[Run]:
    """Rows strictly after (value, id) in the page order (before it when `backwards`)."""
    column = SORTS[filters.sort][0]
    going_down = filters.descending != backwards
    op = "lt" if going_down else "gt"
    bound = "lte" if going_down else "gte"
    # The redundant bound on the column alone lets the index range scan start at the cursor.
    return runs.filter(**{f"{column}__{bound}": value}).filter(
        Q(**{f"{column}__{op}": value}) | Q(**{column: value, f"id__{op}": run_id})
    )


@dataclass
class RunPage:
    runs: list[Run]
    next_cursor: str | None
    prev_cursor: str | None


def page_of_runs(
    runs: QuerySet[Run], filters: RunFilters, *, after: str = "", before: str = ""
) -> RunPage:
    """One page in the chosen order; `after`/`before` are cursors from a previous page."""
    if before:
        value, run_id = decode_cursor(before, filters)
        rows = list(
            ordered(
                after_keyset(runs, filters, value, run_id, backwards=True), filters, reverse=True
            )[: PAGE_SIZE + 1]
        )
        has_more_before = len(rows) > PAGE_SIZE
        rows = list(reversed(rows[:PAGE_SIZE]))
        return RunPage(
            runs=rows,
            next_cursor=encode_cursor(rows[-1], filters) if rows else None,
            prev_cursor=encode_cursor(rows[0], filters) if rows and has_more_before else None,
        )
    page_qs = runs
    if after:
        value, run_id = decode_cursor(after, filters)
        page_qs = after_keyset(runs, filters, value, run_id)
    rows = list(ordered(page_qs, filters)[: PAGE_SIZE + 1])
    has_more = len(rows) > PAGE_SIZE
    rows = rows[:PAGE_SIZE]
    return RunPage(
        runs=rows,
        next_cursor=encode_cursor(rows[-1], filters) if rows and has_more else None,
        prev_cursor=encode_cursor(rows[0], filters) if rows and after else None,
    )
