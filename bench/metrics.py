"""How the loop-health page scales with trace events, measured in one run.

    .venv/bin/python bench/metrics.py            # SQLite (in memory), or
    DATABASE_URL=postgres://... .venv/bin/python bench/metrics.py

Prints the metrics page for 3,000 runs over 30 days, first with about 1,000 trace events
in the tenant and then with about 100,000 (the same runs, grown longer), the number of
queries it made, and the ratio of the two times: the page still reads the period's
events and tool calls, so it grows with them (counters kept on the run row would stop
that, at the price of a second copy of the counts to keep true). Rows are generated
in bulk, in a throwaway test database created and destroyed here, as bench/pages.py does.
"""

from __future__ import annotations

import os
import random
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "atlas.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.urls import reverse  # noqa: E402
from django.utils import timezone  # noqa: E402

from bench.pages import BATCH, analyze, random_run, timed  # noqa: E402
from runs.models import Case, Membership, Run, Tenant, ToolCall, TraceEvent  # noqa: E402

RUNS = 3_000
DAYS = 30
TOOLS = ["resolve_entity", "screen_sanctions", "search_adverse_media", "extract_uploaded_document"]
OUTCOMES = [
    ("awaiting_review", "finish_proposed"),
    ("completed", "packet_approved"),
    ("awaiting_review", "no_progress"),
    ("awaiting_review", "repeated_action"),
    ("awaiting_review", "awaiting_approval"),
    ("awaiting_review", "max_iterations"),
    ("failed", "tool_failure"),
    ("cancelled", "cancelled"),
    ("researching", ""),
]


def make_runs(cases: list[Case], rng: random.Random) -> list[Run]:
    now = timezone.now()
    runs = []
    for i in range(RUNS):
        started_at = now - timedelta(days=rng.uniform(0, DAYS - 1))
        run = random_run(cases[i % len(cases)], rng, started_at, outcomes=OUTCOMES)
        run.closed_by_reviewer = run.termination_reason == "packet_approved" and (
            rng.random() < 0.2
        )
        run.model_name = rng.choice(["playbook", "openai:gpt-4o-mini"])
        runs.append(run)
    runs = Run.objects.bulk_create(runs, batch_size=BATCH)
    # created_at is auto_now_add: spread the runs over the period afterwards.
    for run in runs:
        run.created_at = run.started_at
    Run.objects.bulk_update(runs, ["created_at"], batch_size=BATCH)
    return runs


def step_events(rng: random.Random) -> list[tuple[str, dict]]:
    """One step of a run's trace, with every kind of event the metrics count."""
    tool = rng.choice(TOOLS)
    roll = rng.random()
    if roll < 0.06:
        return [("model_requested", {}), ("model_decision", {"kind": "finish"}),
                (rng.choice(["final_rejected", "finish_proposed"]), {})]  # fmt: skip
    if roll < 0.10:
        return [("model_requested", {}), ("model_decision", {"kind": "ask_human"}),
                ("clarification_requested", {}),
                ("clarification_received", rng.choice([{}, {"reply_to_review": True}]))]  # fmt: skip
    if roll < 0.12:
        return [(rng.choice(["packet_rejected", "escalated", "conflict_detected"]), {})]
    decision = ("model_decision", {"kind": "call_tool", "tool_name": tool, "arguments": {}})
    if roll < 0.20:
        return [("model_requested", {}), decision, ("duplicate_action_blocked", {})]
    return [("model_requested", {}), decision, ("tool_started", {"tool": tool}),
            ("tool_succeeded", {"tool": tool, "summary": "ok"})]  # fmt: skip


def grow(runs: list[Run], events: int, rng: random.Random) -> None:
    """Add about `events` trace events to `runs`, with a tool call per tool step."""
    rows: list[TraceEvent] = []
    calls: list[ToolCall] = []
    written = 0
    while written < events:
        run = rng.choice(runs)
        for type_, data in step_events(rng):
            run.last_seq += 1
            written += 1
            rows.append(
                TraceEvent(
                    run=run,
                    seq=run.last_seq,
                    step=run.last_seq,
                    type=type_,
                    data=data,
                    timestamp=run.created_at,
                )
            )
            if type_ == "tool_started":
                calls.append(
                    ToolCall(
                        run=run,
                        idempotency_key=f"{run.pk}:{run.last_seq}",
                        step=run.last_seq,
                        tool=data["tool"],
                        effect_status=rng.choice(["succeeded"] * 8 + ["failed", "unknown"]),
                        attempts=1,
                    )
                )
    TraceEvent.objects.bulk_create(rows, batch_size=BATCH)
    ToolCall.objects.bulk_create(calls, batch_size=BATCH)
    Run.objects.bulk_update(runs, ["last_seq"], batch_size=BATCH)


def measure(client: Client, url: str) -> tuple[float, int]:
    queries: list[str] = []

    def count(execute, sql, params, many, context):
        queries.append(sql)
        return execute(sql, params, many, context)

    # Not CaptureQueriesContext: the request_started signal resets the queries it reads.
    with connection.execute_wrapper(count):
        client.get(url)
    return timed(client, url)[0], len(queries)


def main() -> None:
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        rng = random.Random(7)
        tenant = Tenant.objects.create(name="Bench Bank", slug="bench-bank")
        user = get_user_model().objects.create_user("bench-admin", password="x" * 16, is_staff=True)
        Membership.objects.create(user=user, tenant=tenant, role="admin")
        cases = Case.objects.bulk_create(
            Case(tenant=tenant, subject_name=f"Subject {n} Ltd", subject_type="company",
                 created_by=user)
            for n in range(100)
        )  # fmt: skip
        client = Client()
        client.force_login(user)
        settings.ALLOWED_HOSTS = ["*"]
        url = reverse("runs-metrics")

        runs = make_runs(cases, rng)
        grow(runs, 1_000, rng)
        analyze()
        few = TraceEvent.objects.count()
        t_few, q_few = measure(client, url)
        started = time.perf_counter()
        grow(runs, 100_000 - few, rng)
        analyze()
        generated = time.perf_counter() - started
        many = TraceEvent.objects.count()
        t_many, q_many = measure(client, url)

        print(f"database: {connection.vendor} ({settings.DATABASES['default']['NAME']})")
        print(f"metrics page, {RUNS:,} runs over {DAYS} days, fastest of several requests\n")
        print(f"  {few:>7,} events  {t_few * 1000:8.1f} ms  {q_few} queries")
        print(
            f"  {many:>7,} events  {t_many * 1000:8.1f} ms  {q_many} queries"
            f"   (events generated in {generated:.0f}s)"
        )
        ratio = t_many / t_few
        print(f"  ratio           {ratio:8.2f}   (1.00 would be no growth with events)")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
