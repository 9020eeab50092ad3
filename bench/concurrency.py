"""Worker concurrency: many runs at once on two `runworker` processes, against the ideal.

    .venv/bin/python bench/concurrency.py [--runs 200] [--workers 2] [--concurrency 8]

Every run is a real persisted run (`do_start_run`, woken through the channel layer, driven
by `manage.py runworker atlas-runs` subprocesses exactly as in production). Each run makes
`--iterations` model decisions, each followed by one tool call, and then its iteration
budget stops it (`awaiting_review` / `max_iterations`). The latencies are simulated where
they would really be spent:

- the model is an OpenAI-compatible HTTP endpoint served by this script, answering every
  request after `--model-ms` (20 ms) with a `search_adverse_media` call on a fresh query;
  the workers reach it through the ordinary `openai:` adapter;
- every tool call carries the scenario fault `slow:0.05` (`--tool-ms`, 50 ms).

Ideal wall time: the runs packed perfectly onto the worker slots with nothing but the
simulated latencies, i.e. ceil(runs / (workers x concurrency)) waves of
iterations x (model + tool) each. The measured wall time runs from the moment the runs are
committed (their wake-ups are sent after commit) until the last one has paused. Goal:
measured / ideal <= 1.5.

Uses PostgreSQL and Redis when DATABASE_URL and REDIS_URL are set (a throwaway `test_...`
database is created and dropped, and a fresh channel prefix keeps the run's messages
apart); otherwise a throwaway SQLite file, where the in-memory channel layer cannot cross
processes, so the workers find every run through their sweeps.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "atlas.settings")
os.environ["CHANNEL_PREFIX"] = f"atlas-bench-{secrets.token_hex(4)}"
os.environ.setdefault("LOG_LEVEL", "WARNING")


class FakeModel(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat-completions endpoint that thinks for `delay` seconds."""

    delay = 0.02
    protocol_version = "HTTP/1.1"  # keeps connections open, as real endpoints do

    def do_POST(self) -> None:  # noqa: N802 - the http.server API
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        time.sleep(self.delay)
        action = {
            "kind": "call_tool",
            "tool_name": "search_adverse_media",
            "arguments": {"query": f"Acme Analytics {uuid.uuid4().hex[:8]}"},
            "rationale_summary": "Look for adverse media under another phrasing.",
        }
        body = json.dumps(
            {
                "choices": [{"message": {"role": "assistant", "content": json.dumps(action)}}],
                "usage": {"prompt_tokens": 400, "completion_tokens": 40},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def start_fake_model(delay: float) -> ThreadingHTTPServer:
    FakeModel.delay = delay
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeModel)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def database_url(settings_dict: dict) -> str:
    if settings_dict["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{settings_dict['NAME']}"
    return (
        f"postgres://{settings_dict['USER']}:{settings_dict['PASSWORD'] or ''}@"
        f"{settings_dict['HOST'] or '127.0.0.1'}:{settings_dict['PORT'] or 5432}/"
        f"{settings_dict['NAME']}"
    )


def start_workers(args, env: dict[str, str], logdir: Path) -> list[subprocess.Popen]:
    processes = []
    for index in range(args.workers):
        log = open(logdir / f"worker-{index}.log", "w")  # noqa: SIM115
        process = subprocess.Popen(
            [sys.executable, "manage.py", "runworker", "atlas-runs"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        process.log_path = Path(log.name)
        processes.append(process)
    deadline = time.monotonic() + 60
    for process in processes:
        while "started" not in process.log_path.read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"A worker did not start:\n{process.log_path.read_text()}")
            time.sleep(0.05)
    return processes


def process_cpu_seconds(process: subprocess.Popen) -> float | None:
    """CPU a live child has used so far (Linux /proc); None where that cannot be read."""
    try:
        fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop_workers(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()


def measure(args, workdir: Path) -> None:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from atlas.runtime.scenario import parse_scenario
    from runs.actions import do_open_case, do_start_run
    from runs.models import Membership, Run, Tenant, TraceEvent

    model_server = start_fake_model(args.model_ms / 1000)
    env = {
        **os.environ,
        "DATABASE_URL": database_url(connection.settings_dict),
        "ATLAS_WORKER_CONCURRENCY": str(args.concurrency),
        "OPENAI_BASE_URL": f"http://127.0.0.1:{model_server.server_address[1]}/v1",
        "OPENAI_API_KEY": "bench",
        "LOG_LEVEL": "INFO",
        "DEBUG": "0",
        "DB_CONN_MAX_AGE": "60",  # pool threads keep their connection between runs
        "SECRET_KEY": secrets.token_urlsafe(48),
    }
    tenant = Tenant.objects.create(name="Bench Bank", slug="bench-bank")
    user = get_user_model().objects.create_user(username="bench-analyst")
    Membership.objects.create(user=user, tenant=tenant, role=Membership.Role.ANALYST)
    case = do_open_case(
        tenant=tenant, user=user, subject_name="Acme Analytics Ltd", subject_type="company"
    )
    scenario = parse_scenario(
        {
            "case": {"subject": "Acme Analytics Ltd"},
            "budgets": {
                "max_iterations": args.iterations,
                "max_tokens": 10_000_000,
                "max_cost_usd": "1000",
                "deadline_seconds": 3600,
                "max_no_progress": args.iterations + 5,
            },
            "tool_faults": {
                "search_adverse_media": [f"slow:{args.tool_ms / 1000:g}"] * args.iterations
            },
        }
    )
    workers = start_workers(args, env, workdir)
    startup_cpu = [process_cpu_seconds(process) for process in workers]
    try:
        with transaction.atomic():
            runs = [
                do_start_run(case, user, model_name="openai:bench", scenario=scenario)
                for _ in range(args.runs)
            ]
            started = time.monotonic()  # the commit makes them visible and sends the wake-ups
        load_before = os.getloadavg()[0]
        own_before = resource.getrusage(resource.RUSAGE_SELF)
        run_ids = [run.pk for run in runs]
        active = Run.objects.filter(pk__in=run_ids, status__in=Run.ACTIVE_STATUSES)
        deadline = started + args.timeout
        while active.exists():
            if time.monotonic() > deadline:
                raise SystemExit(f"{active.count()} runs still active after {args.timeout}s")
            time.sleep(0.01)
        wall = time.monotonic() - started
        load_after = os.getloadavg()[0]
        own_after = resource.getrusage(resource.RUSAGE_SELF)
    finally:
        stop_workers(workers)
        model_server.shutdown()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    worker_cpu = children.ru_utime + children.ru_stime

    outcomes = Counter(
        Run.objects.filter(pk__in=run_ids).values_list("status", "termination_reason")
    )
    iterations = Counter(Run.objects.filter(pk__in=run_ids).values_list("iterations", flat=True))
    starts = TraceEvent.objects.filter(run_id__in=run_ids, type="run_started").count()
    resumes = TraceEvent.objects.filter(
        run_id__in=run_ids, type="run_resumed", data__cause="recovery"
    ).count()
    per_worker = [
        sum(" is awaiting_review " in line for line in p.log_path.read_text().splitlines())
        for p in workers
    ]
    timings = list(
        Run.objects.filter(pk__in=run_ids).values_list(
            "created_at", "started_at", "elapsed_seconds"
        )
    )
    committed_at = max(created for created, _, _ in timings)
    waits = sorted((start - committed_at).total_seconds() for _, start, _ in timings)
    elapsed = sorted(seconds for _, _, seconds in timings)
    slots = args.workers * args.concurrency
    per_run = args.iterations * (args.model_ms + args.tool_ms) / 1000
    waves = math.ceil(args.runs / slots)
    ideal = waves * per_run
    layer = settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1]

    print(
        f"database: {connection.vendor}, channel layer: {layer}, "
        f"{args.workers} worker processes x {args.concurrency} slots = {slots} slots"
    )
    print(
        f"{args.runs} runs, each {args.iterations} x (model {args.model_ms:g} ms + "
        f"tool {args.tool_ms:g} ms) = {per_run * 1000:.0f} ms of simulated latency"
    )
    print(f"outcomes: {dict(outcomes)}; iterations per run: {dict(iterations)}")
    print(
        f"run_started events: {starts} (one per run), run_resumed: {resumes}; "
        f"runs paused per worker process: {per_worker}"
    )
    print(
        f"per run: wait for a worker median {waits[len(waits) // 2] * 1000:.0f} ms "
        f"(max {waits[-1] * 1000:.0f} ms); start to pause median "
        f"{elapsed[len(elapsed) // 2] * 1000:.0f} ms (max {elapsed[-1] * 1000:.0f} ms)"
    )
    print(
        f"ideal: ceil({args.runs} / {slots}) = {waves} waves x {per_run * 1000:.0f} ms "
        f"= {ideal:.2f} s; measured: {wall:.2f} s"
    )
    print(f"ratio (measured / ideal): {wall / ideal:.2f} (goal <= 1.5)")
    cores = os.cpu_count() or 1
    print(
        f"context: the worker processes used {worker_cpu:.1f} s of CPU in all (start-up "
        f"included; {children.ru_utime:.1f} s user, {children.ru_stime:.1f} s system), "
        f"so on {cores} cores they need at least {worker_cpu / cores:.1f} s; "
        f"load average {load_before:.1f} before, {load_after:.1f} after"
    )
    if None not in startup_cpu:
        startup = sum(startup_cpu)
        print(
            f"of which start-up {startup:.1f} s; the rest, {worker_cpu - startup:.1f} s, is "
            f"{(worker_cpu - startup) / (args.runs * args.iterations) * 1000:.1f} ms of worker "
            f"CPU per iteration"
        )
    own_cpu = (own_after.ru_utime + own_after.ru_stime) - (
        own_before.ru_utime + own_before.ru_stime
    )
    print(
        f"this process (the fake model server and the polling) used {own_cpu:.1f} s of CPU "
        "while the runs ran"
    )
    if starts != args.runs or outcomes != Counter(
        {("awaiting_review", "max_iterations"): args.runs}
    ):
        raise SystemExit("Some runs did not end as expected; see the counts above.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=8, help="slots per worker process")
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--model-ms", type=float, default=20.0)
    parser.add_argument("--tool-ms", type=float, default=50.0)
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    if min(args.runs, args.workers, args.concurrency, args.iterations) < 1:
        parser.error("--runs, --workers, --concurrency and --iterations must be at least 1")

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection

    settings.DEBUG = False
    workdir = Path(tempfile.mkdtemp(prefix="atlas-concurrency-bench-"))
    test = connection.settings_dict.setdefault("TEST", {})
    if connection.vendor == "sqlite":
        test["NAME"] = str(workdir / "bench.sqlite3")
    else:
        test["NAME"] = f"test_atlas_concurrency_{os.getpid()}"
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        measure(args, workdir)
    finally:
        connection.close()
        connection.creation.destroy_test_db(old_name, verbosity=0)


if __name__ == "__main__":
    main()
