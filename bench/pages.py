"""How the admin pages scale, measured in one run.

    .venv/bin/python bench/pages.py            # SQLite (in memory), or
    DATABASE_URL=postgres://... .venv/bin/python bench/pages.py

Prints two ratios (goal: at most 2 each):
- the trace page of a 5,000-event run over the trace page of a 50-event run;
- the run browser with 100,000 runs in the tenant over the run browser with 100 runs.

Everything runs against a throwaway test database (`test_<NAME>` on PostgreSQL, memory on
SQLite) created and destroyed here, with rows generated in bulk; nothing is kept. Each
timing is the fastest of several requests through Django's test client (the full
middleware, view, queries and template rendering; no network), with the pages compared
requested in turn so that load from other processes falls on both.
"""

from __future__ import annotations

import os
import random
import sys
import time
from datetime import timedelta
from decimal import Decimal
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
from django.utils import timezone  # noqa: E402

from runs.models import Case, Membership, Observation, Run, Tenant, TraceEvent  # noqa: E402

REPEATS = 25
BATCH = 5_000
STATUSES = [
    ("awaiting_review", "finish_proposed"),
    ("completed", "packet_approved"),
    ("awaiting_review", "no_progress"),
    ("failed", "tool_failure"),
    ("cancelled", "cancelled"),
]
TOOLS = ["resolve_entity", "screen_sanctions", "search_adverse_media"]


def timed(client: Client, *urls: str) -> list[float]:
    """Fastest of REPEATS requests per URL, the URLs taken in turn (ABAB...).

    The fastest sample is the time the page needs; slower ones measure whatever else the
    machine was doing. Taking the URLs in turn spreads that noise over all of them.
    """
    for url in urls:
        client.get(url)  # warm: templates, query plans, caches
    samples: dict[str, list[float]] = {url: [] for url in urls}
    for _ in range(REPEATS):
        for url in urls:
            start = time.perf_counter()
            response = client.get(url)
            samples[url].append(time.perf_counter() - start)
            assert response.status_code == 200, (url, response.status_code)
    return [min(samples[url]) for url in urls]


def make_trace(case: Case, events: int) -> Run:
    """A run of `events` events, four per step, with one observation per step."""
    started = timezone.now() - timedelta(hours=2)
    run = Run.objects.create(
        tenant=case.tenant,
        case=case,
        status="awaiting_review",
        termination_reason="max_iterations",
        user_status="The research stopped at its iteration limit.",
        iterations=events // 4,
        tokens=events * 25,
        cost_usd=Decimal("0.01") * (events // 4),
        started_at=started,
        last_seq=events,
        state={"versions": {"model_kind": "rule-based"}, "conflicts": []},
    )
    rows, observations = [], []
    for seq in range(1, events + 1):
        step, kind = (seq - 1) // 4 + 1, (seq - 1) % 4
        tool = TOOLS[step % 3]
        type_, data = [
            ("model_requested", {"iteration": step}),
            (
                "model_decision",
                {
                    "kind": "call_tool",
                    "tool_name": tool,
                    "arguments": {"name": f"Subject {step}"},
                    "usage": {"input_tokens": 80, "output_tokens": 20, "cost_usd": "0.0100"},
                },
            ),
            ("tool_started", {"tool": tool, "idempotency_key": f"{run.pk}:{step}", "attempt": 1}),
            (
                "tool_succeeded",
                {
                    "tool": tool,
                    "idempotency_key": f"{run.pk}:{step}",
                    "summary": "ok",
                    "source_ids": [f"ev-{step}"],
                },
            ),
        ][kind]
        rows.append(
            TraceEvent(
                run=run,
                seq=seq,
                step=step,
                type=type_,
                data=data,
                timestamp=started + timedelta(seconds=seq),
            )
        )
        if kind == 3:
            observations.append(
                Observation(
                    run=run,
                    step=step,
                    source="tool",
                    name=tool,
                    ok=True,
                    data={
                        "candidates": [{"entity_id": f"co-{step}", "name": f"Subject {step} Ltd"}]
                        * 5
                    },
                    model_view=f"<<<UNTRUSTED_DATA>>> Subject {step} Ltd [co-{step}] <<<END>>>",
                    created_at=started,
                )
            )
    TraceEvent.objects.bulk_create(rows, batch_size=BATCH)
    Observation.objects.bulk_create(observations, batch_size=BATCH)
    return run


def random_run(
    case: Case, rng: random.Random, started_at, outcomes: list[tuple[str, str]] = STATUSES
) -> Run:
    """An unsaved run of `case` with a random outcome and random usage."""
    status, reason = rng.choice(outcomes)
    return Run(
        tenant_id=case.tenant_id,
        case=case,
        subject_name=case.subject_name,  # bulk_create skips Run.save
        subject_type=case.subject_type,
        status=status,
        termination_reason=reason,
        iterations=rng.randint(1, 12),
        tokens=rng.randint(100, 20_000),
        cost_usd=Decimal(rng.randint(1, 100_000)) / 100_000,
        elapsed_seconds=rng.uniform(1, 120),
        prompt_version=rng.choice(["atlas-prompt/1", "atlas-prompt/2"]),
        policy_version="atlas-policy/1",
        started_at=started_at,
    )


def add_runs(tenant: Tenant, cases: list[Case], count: int, rng: random.Random) -> None:
    now = timezone.now()
    for start in range(0, count, BATCH):
        batch = [
            random_run(cases[i % len(cases)], rng, now - timedelta(seconds=i))
            for i in range(start, min(count, start + BATCH))
        ]
        Run.objects.bulk_create(batch)


def analyze() -> None:
    """Fresh statistics and visibility maps now, so autovacuum does not run mid-measurement."""
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE")


def main() -> None:
    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        rng = random.Random(42)
        tenant = Tenant.objects.create(name="Bench Bank", slug="bench-bank")
        user = get_user_model().objects.create_user("bench-admin", password="x" * 16, is_staff=True)
        Membership.objects.create(user=user, tenant=tenant, role="admin")
        cases = Case.objects.bulk_create(
            Case(
                tenant=tenant,
                subject_name=f"Subject {n} Ltd",
                subject_type="company",
                created_by=user,
            )
            for n in range(100)
        )
        client = Client()
        client.force_login(user)
        settings.ALLOWED_HOSTS = ["*"]

        short, long = make_trace(cases[0], 50), make_trace(cases[1], 5_000)
        analyze()
        t_short, t_long = timed(client, f"/runs/{short.pk}/trace/", f"/runs/{long.pk}/trace/")

        add_runs(tenant, cases, 100 - Run.objects.filter(tenant=tenant).count(), rng)
        analyze()
        urls = {
            "newest first": "/runs/",
            "by cost": "/runs/?sort=-cost",
            "failed, by tokens": "/runs/?status=failed&sort=-tokens",
        }
        small = dict(zip(urls, timed(client, *urls.values()), strict=True))
        started = time.perf_counter()
        add_runs(tenant, cases, 100_000 - Run.objects.filter(tenant=tenant).count(), rng)
        analyze()
        generated = time.perf_counter() - started
        # A page deep in the list: follow "next" 20 times (keyset, so it costs what page 1 costs).
        response = client.get("/runs/?sort=-cost")
        for _ in range(20):
            next_url = (
                response.content.decode()
                .split('rel="next"')[0]
                .rsplit('href="', 1)[1]
                .split('"')[0]
            )
            response = client.get("/runs/" + next_url.replace("&amp;", "&"))
        *big_times, deep = timed(client, *urls.values(), "/runs/" + next_url.replace("&amp;", "&"))
        big = dict(zip(urls, big_times, strict=True))

        print(f"database: {connection.vendor} ({settings.DATABASES['default']['NAME']})")
        print(f"fastest of {REPEATS} requests each, taken in turn, through Django's test client\n")
        print("Trace page")
        print(f"  50-event run     {t_short * 1000:8.1f} ms")
        print(f"  5,000-event run  {t_long * 1000:8.1f} ms")
        trace_ratio = t_long / t_short
        print(f"  ratio            {trace_ratio:8.2f}   (goal <= 2)\n")
        print(f"Run browser (100,000 runs generated in {generated:.0f}s)")
        for name in urls:
            print(
                f"  {name:<20} 100 runs {small[name] * 1000:7.1f} ms   100,000 runs {big[name] * 1000:7.1f} ms"
                f"   ratio {big[name] / small[name]:5.2f}"
            )
        print(f"  page 21 by cost      {'':>24} {deep * 1000:7.1f} ms")
        browser_ratio = big["newest first"] / small["newest first"]
        print(f"  ratio (newest first) {browser_ratio:8.2f}   (goal <= 2)")
        ok = trace_ratio <= 2 and browser_ratio <= 2
        print("\nBoth ratios within the goal." if ok else "\nA ratio is above the goal.")
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
