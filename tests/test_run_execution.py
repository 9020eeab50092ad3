from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from atlas.runtime.memory import MemoryCancelSignal
from reviews.models import HumanDecision, ReviewItem
from runs.actions import do_request_cancel, do_request_resume, do_start_run
from runs.execution import advance_run, run_inline
from runs.models import Case, Run
from runs.run_state import load_state


def _case(tenant, analyst, subject, subject_type="company", jurisdiction=""):
    return Case.objects.create(
        tenant=tenant,
        subject_name=subject,
        subject_type=subject_type,
        jurisdiction=jurisdiction,
        created_by=analyst,
    )


def _types(run: Run) -> list[str]:
    return list(run.events.order_by("seq").values_list("type", flat=True))


def test_a_clean_company_ends_with_a_packet_awaiting_sign_off(tenant, analyst):
    run = run_inline(
        do_start_run(
            _case(tenant, analyst, "Acme Analytics Ltd", jurisdiction="GB"), analyst, wake=False
        )
    )
    assert (run.status, run.termination_reason) == ("awaiting_review", "finish_proposed")
    assert run.user_status.startswith("Research is done")
    assert _types(run)[0] == "run_started" and _types(run)[-1] == "finish_proposed"
    assert list(run.events.values_list("seq", flat=True)) == list(range(1, run.last_seq + 1))
    item = ReviewItem.objects.get(run=run, status="open")
    assert item.kind == "signoff"
    assert item.payload["packet"]["findings"]


def test_a_reviewer_sign_off_completes_the_run(tenant, analyst, reviewer):
    run = run_inline(
        do_start_run(
            _case(tenant, analyst, "Acme Analytics Ltd", jurisdiction="GB"), analyst, wake=False
        )
    )
    item = ReviewItem.objects.get(run=run, kind="signoff")
    HumanDecision.objects.create(
        tenant=tenant,
        case=run.case,
        run=run,
        review_item=item,
        actor=reviewer,
        kind="sign_off",
        reason="Sources check out",
        payload={"approved": True, "reason": "Sources check out"},
        state_version=run.state_version,
    )
    do_request_resume(run)
    run = run_inline(run)
    assert (run.status, run.termination_reason) == ("completed", "packet_approved")
    assert "packet_approved" in _types(run) and _types(run)[-1] == "run_completed"


def test_an_ambiguous_name_waits_for_the_analyst_and_the_answer_resumes_it(tenant, analyst):
    run = run_inline(do_start_run(_case(tenant, analyst, "Northwind Trading"), analyst, wake=False))
    assert (run.status, run.termination_reason) == ("waiting_for_input", "waiting_for_input")
    item = ReviewItem.objects.get(run=run, kind="clarification")
    assert len(item.payload["candidates"]) >= 3
    HumanDecision.objects.create(
        tenant=tenant,
        case=run.case,
        run=run,
        review_item=item,
        actor=analyst,
        kind="answer",
        payload={"question_id": item.payload["question_id"], "text": item.payload["candidates"][0]},
        state_version=run.state_version,
    )
    run = run_inline(run)
    assert "clarification_received" in _types(run)
    assert run.status == "awaiting_review"


def test_cancelling_a_paused_run_ends_it_at_once_and_is_audited(tenant, analyst):
    run = run_inline(do_start_run(_case(tenant, analyst, "Northwind Trading"), analyst, wake=False))
    run = do_request_cancel(run, analyst)
    assert (run.status, run.termination_reason) == ("cancelled", "cancelled")
    assert _types(run)[-1] == "run_cancelled"
    assert HumanDecision.objects.filter(run=run, kind="cancel", actor=analyst).count() == 1
    assert not ReviewItem.objects.filter(run=run, status="open").exists()
    assert do_request_cancel(run, analyst).status == "cancelled"
    assert HumanDecision.objects.filter(run=run, kind="cancel").count() == 1


def test_a_run_left_researching_by_a_dead_worker_is_resumed(tenant, analyst):
    run = do_start_run(
        _case(tenant, analyst, "Acme Analytics Ltd", jurisdiction="GB"), analyst, wake=False
    )
    steps = iter([True, False])  # the first holder loses its lease after one step
    _lease_to(run, "worker-a")
    advance_run(
        run.pk,
        owner="worker-a",
        cancel=MemoryCancelSignal(),
        still_owner=lambda: next(steps, False),
    )
    run.refresh_from_db()
    assert run.status == "researching"
    _lease_to(run, "worker-b")
    # The first holder, still believing it holds the run, tries another pass: refused.
    advance_run(run.pk, owner="worker-a", cancel=MemoryCancelSignal())
    assert "run_resumed" not in _types(run)
    advance_run(run.pk, owner="worker-b", cancel=MemoryCancelSignal())
    run.refresh_from_db()
    assert _types(run).count("run_resumed") == 1
    assert run.status == "awaiting_review"


def _lease_to(run: Run, owner: str) -> None:
    Run.objects.filter(pk=run.pk).update(
        lease_owner=owner, lease_expires_at=timezone.now() + timedelta(seconds=60)
    )


def test_run_case_prints_the_run_record_as_json(db, capsys):
    call_command("run_case", "--subject", "Acme Analytics Ltd", "--jurisdiction", "GB", "--json")
    record = json.loads(capsys.readouterr().out)
    assert set(record) == {
        "run_id",
        "status",
        "termination_reason",
        "user_status",
        "iterations",
        "tokens",
        "cost_usd",
        "packet",
        "conflicts",
        "trace",
    }
    assert record["status"] == "awaiting_review"
    assert record["trace"][0] == {
        "seq": 1,
        "type": "run_started",
        "step": record["trace"][0]["step"],
        "data": record["trace"][0]["data"],
    }


def test_run_case_prints_a_readable_summary_by_default(db, capsys):
    call_command("run_case", "--subject", "Meridian Shipping Holdings", "--jurisdiction", "GB")
    lines = capsys.readouterr().out.splitlines()
    run = Run.objects.get()
    assert lines[0] == f"Run {run.pk}: awaiting_review / finish_proposed"
    assert lines[1] == f"  {run.user_status}"
    assert lines[2] == f"  iterations {run.iterations}, tokens {run.tokens:,}, cost $0.2900"
    assert run.tokens >= 1000 and "," in lines[2]
    assert lines[3] == "  packet: risk medium, 9 findings"
    assert lines[4].startswith("  conflict [open] directors: Helen Carter, James Whitfield (")
    assert lines[5].startswith("  trace: run_started, model_requested, model_decision")


def test_run_case_names_whom_a_conflict_is_about(transactional_db, capsys):
    """Committed for real: the extraction tool reads the scenario's documents on a thread
    of its own, which a test's open transaction would hide them from."""
    scenario = Path(__file__).resolve().parent.parent / "evals/standard/disputed_owner_share.json"
    call_command("run_case", "--scenario", str(scenario))
    (line,) = [line for line in capsys.readouterr().out.splitlines() if "conflict [" in line]
    assert line == (
        "  conflict [open] ownership share of beneficial owner Dmitri Volkov: 60% (Uploaded "
        "document harrow_ownership_declaration.txt) vs 40% (Uploaded document "
        "harrow_ownership_update_40.txt)"
    )


def test_run_case_runs_a_scenario_with_scripted_turns_and_answers(db, tmp_path, capsys):
    scenario = {
        "case": {"subject": "Northwind Trading", "subject_type": "company"},
        "model": "playbook",
        "human": {"answers": ["Northwind Trading Ltd (GB)"]},
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    call_command("run_case", "--scenario", str(path), "--json")
    record = json.loads(capsys.readouterr().out)
    types = [event["type"] for event in record["trace"]]
    assert "clarification_requested" in types and "clarification_received" in types


def test_run_case_honours_a_scripted_cancel_on_the_event_that_pauses_the_run(db, tmp_path, capsys):
    scenario = {
        "case": {"subject": "Northwind Trading"},
        "model": "playbook",
        "human": {"cancel_on": {"event": "clarification_requested"}},
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    call_command("run_case", "--scenario", str(path), "--json")
    record = json.loads(capsys.readouterr().out)
    assert (record["status"], record["termination_reason"]) == ("cancelled", "cancelled")
    assert [event["type"] for event in record["trace"]][-2:] == [
        "clarification_requested",
        "run_cancelled",
    ]
    run = Run.objects.get(pk=record["run_id"])
    assert run.status == "cancelled" and not run.lease_owner


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "Give --subject NAME or --scenario FILE"),
        (["--subject", "Acme", "--model", "gpt"], "--model must be playbook"),
        (["--subject", "Acme", "--jurisdiction", "G1"], "two-letter country code"),
        (["--scenario", "/nonexistent.json"], "cannot read scenario"),
        (["--subject", "Acme", "--document", "/nonexistent.pdf"], "cannot read document"),
    ],
)
def test_run_case_explains_bad_usage(db, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("run_case", *args)


def test_run_case_rejects_a_scenario_with_an_unknown_key(db, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"case": {"subject": "Acme"}, "budget": {}}))
    with pytest.raises(CommandError, match="unknown key 'budget'"):
        call_command("run_case", "--scenario", str(path))
    assert not Case.objects.exists()


def test_run_case_async_only_queues_the_run(db, capsys):
    call_command("run_case", "--subject", "Acme Analytics Ltd", "--async", "--json")
    record = json.loads(capsys.readouterr().out)
    assert Run.objects.get(pk=record["run_id"]).status == "queued"


def test_a_sign_off_for_a_replaced_packet_is_settled_and_never_replayed(
    tenant, analyst, reviewer, second_reviewer
):
    from reviews.actions import do_resolve_conflict, do_sign_off

    case = _case(tenant, analyst, "Meridian Shipping Holdings")
    run = run_inline(do_start_run(case, analyst, wake=False))
    first_packet = ReviewItem.objects.get(run=run, kind="signoff", status="open")
    escalation = ReviewItem.objects.get(run=run, kind="escalation", status="open")
    conflict = escalation.payload["conflicts"][0]
    # Before the worker runs, one reviewer settles the conflict and signs off packet 1.
    do_resolve_conflict(
        escalation, reviewer, conflict["conflict_id"], unresolvable=True, note="Cannot confirm"
    )
    early = do_sign_off(first_packet, reviewer, True, "looks fine")
    run = run_inline(run)  # the resolution resumes research; packet 2 is proposed
    assert run.termination_reason == "finish_proposed"
    assert "human_input_rejected" in _types(run)
    assert str(early.pk) in run.state["rejected_decisions"]

    second_packet = ReviewItem.objects.get(run=run, kind="signoff", status="open")
    do_sign_off(second_packet, second_reviewer, False, "Sources disagree; dig further")
    run = run_inline(run)
    assert run.status != "completed", "the stale sign-off must not approve packet 2"
    assert "packet_rejected" in _types(run)


def test_the_audit_page_says_why_a_decision_was_not_applied(
    client, tenant, analyst, reviewer, second_reviewer
):
    from reviews.actions import do_resolve_conflict, do_sign_off

    run = run_inline(
        do_start_run(_case(tenant, analyst, "Meridian Shipping Holdings"), analyst, wake=False)
    )
    escalation = ReviewItem.objects.get(run=run, kind="escalation", status="open")
    do_resolve_conflict(
        escalation,
        reviewer,
        escalation.payload["conflicts"][0]["conflict_id"],
        unresolvable=True,
        note="Cannot confirm",
    )
    do_sign_off(
        ReviewItem.objects.get(run=run, kind="signoff", status="open"), reviewer, True, "ok"
    )
    run_inline(run)
    client.force_login(second_reviewer)
    page = client.get("/reviews/audit/").content.decode()
    assert "Not applied: There is no proposed packet to sign off." in page
    client.force_login(analyst)
    case_page = client.get(f"/cases/{run.case_id}/").content.decode()
    assert "no longer applied: There is no proposed packet to sign off." in case_page


def test_a_scenario_that_names_the_playbook_runs_on_it_whatever_the_default(
    db, settings, tmp_path, capsys
):
    settings.ATLAS_MODEL = "openai:gpt-x"
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"case": {"subject": "Acme Analytics Ltd"}, "model": "playbook"}))
    call_command("run_case", "--scenario", str(path), "--json")
    record = json.loads(capsys.readouterr().out)
    assert Run.objects.get(pk=record["run_id"]).model_name == "playbook"
    assert record["status"] == "awaiting_review"


def test_cancelling_while_a_worker_holds_the_run_leaves_it_to_that_worker(tenant, analyst):
    from django.utils import timezone

    run = do_start_run(_case(tenant, analyst, "Acme Analytics Ltd"), analyst, wake=False)
    Run.objects.filter(pk=run.pk).update(
        lease_owner="worker-x", lease_expires_at=timezone.now() + timezone.timedelta(seconds=30)
    )
    run = do_request_cancel(run, analyst)
    assert run.status == "queued" and run.cancel_requested_at is not None
    assert run.lease_owner == "worker-x"


@pytest.mark.django_db(transaction=True)
def test_a_run_is_never_visible_without_its_state(tenant, analyst):
    """A worker's sweep reads queued runs from other connections: the row and its state
    are written in one transaction, or a sweep can take a run with no state and crash."""
    from django.db import connection

    writes = []

    def record(execute, sql, params, many, context):
        if sql.lstrip().upper().startswith(("INSERT", "UPDATE")) and '"runs_run"' in sql:
            writes.append(connection.in_atomic_block)
        return execute(sql, params, many, context)

    case = _case(tenant, analyst, "Acme Analytics Ltd", jurisdiction="GB")
    with connection.execute_wrapper(record):
        run = do_start_run(case, analyst, wake=False)
    assert writes and all(writes)
    assert Run.objects.get(pk=run.pk).state["run_id"] == str(run.pk)


def test_a_run_driven_here_is_never_claimable_by_a_worker(tenant, analyst):
    from runs.leases import claim_due_runs

    case = _case(tenant, analyst, "Acme Analytics Ltd", jurisdiction="GB")
    run = do_start_run(case, analyst, wake=False, driven_here=True)
    assert claim_due_runs("worker-x", limit=10) == []
    assert run_inline(run).status == "awaiting_review"
    run.refresh_from_db()
    assert run.lease_owner == ""  # handed back once it waits for sign-off


@pytest.mark.parametrize("driver", ["run_inline", "run_headless"])
def test_a_long_run_driven_here_renews_its_hold_so_no_worker_sweeps_it_up(
    tenant, analyst, monkeypatch, driver
):
    from runs import execution, leases
    from runs.leases import claimable
    from runs.storage import DjangoRunStore

    case = _case(tenant, analyst, "Acme Analytics Ltd", jurisdiction="GB")
    run = do_start_run(case, analyst, wake=False, driven_here=True)
    seconds = [0.0]
    monkeypatch.setattr(leases, "monotonic", lambda: seconds[0])
    commit_step = DjangoRunStore.commit_step
    claimable_after = []

    def commit_then_let_time_pass(store, commit):
        commit_step(store, commit)
        claimable_after.append(Run.objects.filter(claimable(), pk=run.pk).exists())
        if len(claimable_after) == 2:
            # As if the hold ran out while the run went on: hours of slow steps.
            Run.objects.filter(pk=run.pk).update(
                lease_expires_at=timezone.now() - timedelta(seconds=1)
            )
        seconds[0] += 3600

    monkeypatch.setattr(DjangoRunStore, "commit_step", commit_then_let_time_pass)
    run = getattr(execution, driver)(run, *([None] if driver == "run_headless" else []))
    assert run.status == "awaiting_review"
    assert len(claimable_after) > 6
    # Free only for the rest of the step in which the hold ran out: renewed at the next.
    assert claimable_after[:2] == [False, False]
    assert True not in claimable_after[4:]


def test_a_run_driven_here_stops_when_a_worker_took_it_over(tenant, analyst, monkeypatch):
    from runs.storage import DjangoRunStore

    case = _case(tenant, analyst, "Acme Analytics Ltd", jurisdiction="GB")
    run = do_start_run(case, analyst, wake=False, driven_here=True)
    monkeypatch.setattr("runs.leases.monotonic", iter(range(0, 10**6, 3600)).__next__)
    commit_step = DjangoRunStore.commit_step

    def commit_then_lose_the_hold(store, commit):
        commit_step(store, commit)
        _lease_to(run, "worker-x")

    monkeypatch.setattr(DjangoRunStore, "commit_step", commit_then_lose_the_hold)
    run = run_inline(run)
    assert (run.status, run.lease_owner) == ("researching", "worker-x")
    assert run.iterations <= 1  # it stopped at the first check after losing the run


def test_a_run_a_worker_holds_is_not_driven_here_too(tenant, analyst):
    from runs.execution import HeldElsewhere

    case = _case(tenant, analyst, "Acme Analytics Ltd", jurisdiction="GB")
    run = do_start_run(case, analyst, wake=False)
    _lease_to(run, "worker-x")
    with pytest.raises(HeldElsewhere, match="worker-x"):
        run_inline(run)
    run.refresh_from_db()
    assert (run.status, run.lease_owner, run.last_seq) == ("queued", "worker-x", 0)


def test_a_run_on_a_hosted_model_is_charged_at_the_configured_prices(
    server, settings, tenant, analyst
):
    from decimal import Decimal

    settings.OPENAI_BASE_URL = server.base_url
    settings.OPENAI_API_KEY = "sk-configured"
    settings.OPENAI_PRICE_INPUT_PER_1K_USD = Decimal("0.01")
    settings.OPENAI_PRICE_OUTPUT_PER_1K_USD = Decimal("0.03")
    resolve = {
        "kind": "call_tool",
        "tool_name": "resolve_entity",
        "arguments": {"name": "Acme Analytics", "jurisdiction": "GB"},
        "rationale_summary": "Identify the subject.",
    }
    server.responses = [
        server.completion(resolve, prompt_tokens=1000, completion_tokens=100),
        *[server.completion("Not JSON.", prompt_tokens=1, completion_tokens=1)] * 5,
    ]
    case = _case(tenant, analyst, "Acme Analytics Ltd", jurisdiction="GB")
    run = do_start_run(case, analyst, model_name="openai:gpt-test", wake=False)
    run = run_inline(run)  # then replies that are not JSON, until the model-error limit
    assert server.headers[0]["Authorization"] == "Bearer sk-configured"
    decision = run.events.get(type="model_decision").data
    # 1,000 tokens in at $0.01 per 1,000, 100 out at $0.03 per 1,000.
    assert decision["usage"]["cost_usd"] == "0.013000"
    assert load_state(run).model_cost_usd >= Decimal("0.013")
    assert run.cost_usd >= Decimal("0.013") + Decimal("0.01")  # the model, then the tool


def test_model_text_with_control_characters_is_refused_and_stored_safely(db, tmp_path, capsys):
    """PostgreSQL refuses NUL in text and JSON: a reply carrying one is a model error, and
    what the trace keeps of it has the character replaced."""
    question = json.dumps({"kind": "ask_human", "question": "Which\u0000 one?"})
    tool = {
        "kind": "call_tool",
        "tool_name": "resolve_entity",
        "arguments": {"name": "Acme\u202e Analytics"},
    }
    scenario = {
        "case": {"subject": "Acme Analytics Ltd", "jurisdiction": "GB"},
        "budgets": {"max_model_errors": 5},
        "model": {
            "turns": [{"raw": question}, {"raw": "not json\u001b"}, {"raw": json.dumps(tool)}]
        },
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    call_command("run_case", "--scenario", str(path), "--json")
    record = json.loads(capsys.readouterr().out)
    failures = [event["data"] for event in record["trace"] if event["type"] == "model_failed"]
    assert [failure["error_type"] for failure in failures[:3]] == [
        "invalid_action",
        "invalid_json",
        "invalid_action",
    ]
    assert "control character U+0000" in failures[0]["message"]
    assert "control character U+202E" in failures[2]["message"]
    assert failures[1]["raw_excerpt"] == "not json\ufffd"
    assert Run.objects.get().status == record["status"] == "failed"


def test_a_hosted_models_nul_characters_are_stored_replaced(server, settings, tenant, analyst):
    settings.OPENAI_BASE_URL = server.base_url
    server.responses = [
        server.completion("not json \u0000"),
        (500, {"error": "broken \u0000 upstream"}),
        (500, {"error": "broken \u0000 upstream"}),
        (500, {"error": "broken \u0000 upstream"}),
        server.completion({"kind": "ask_human", "question": "Which\u0000one?"}),
        *[server.completion("not json \u0000")] * 5,
    ]
    case = _case(tenant, analyst, "Acme Analytics Ltd", jurisdiction="GB")
    run = run_inline(do_start_run(case, analyst, model_name="openai:gpt-test", wake=False))
    assert (run.status, run.termination_reason) == ("failed", "model_failure")
    failures = [event.data for event in run.events.filter(type="model_failed").order_by("seq")]
    assert failures[0]["raw_excerpt"] == "not json \ufffd"
    assert failures[1]["message"].startswith("HTTP 500:")
    assert "control character U+0000" in failures[2]["message"]


def test_model_numbers_json_cannot_store_are_a_model_error(db, tmp_path, capsys):
    """NaN, Infinity and a number too large for a float decode in Python but are not JSON
    a trace event can hold: such a decision is a model error the loop repairs, never a
    crash that leaves the run researching."""
    turns = [
        {"raw": '{"kind": "call_tool", "tool_name": "resolve_entity", "arguments": {"x": NaN}}'},
        {"raw": '{"kind": "call_tool", "tool_name": "nowhere", "arguments": {"x": -Infinity}}'},
        {"raw": '{"kind": "call_tool", "tool_name": "resolve_entity", "arguments": {"x": 1e999}}'},
        {"raw": json.dumps({"kind": "ask_human", "question": "Which one?"})},
    ]
    scenario = {
        "case": {"subject": "Acme Analytics Ltd", "jurisdiction": "GB"},
        "budgets": {"max_model_errors": 5},
        "model": {"turns": turns},
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    call_command("run_case", "--scenario", str(path), "--json")
    record = json.loads(capsys.readouterr().out)
    failures = [event["data"] for event in record["trace"] if event["type"] == "model_failed"]
    assert len(failures) == 3
    assert "NaN" in failures[0]["message"]
    assert "-Infinity" in failures[1]["message"]
    assert "a number JSON cannot hold" in failures[2]["message"]
    assert record["status"] == Run.objects.get().status == "waiting_for_input"


def test_a_scripted_file_with_nan_is_refused_before_any_run(db, tmp_path):
    path = tmp_path / "turns.json"
    path.write_text(
        '[{"kind": "call_tool", "tool_name": "resolve_entity", "arguments": {"x": Infinity}}]'
    )
    with pytest.raises(CommandError, match="Infinity"):
        call_command("run_case", "--subject", "Acme Analytics", "--model", f"scripted:{path}")
    assert not Run.objects.exists()


def test_a_decisions_own_text_is_bounded_before_it_reaches_the_trace(db, tmp_path, capsys):
    """A tool name the length of a book is not a decision (it would be echoed into every
    later prompt); a long rationale is kept to its start, the decision itself stands."""
    long_name = {"kind": "call_tool", "tool_name": "x" * 100_000, "arguments": {}}
    long_why = {
        "kind": "call_tool",
        "tool_name": "resolve_entity",
        "arguments": {"name": "Acme Analytics", "jurisdiction": "GB"},
        "rationale_summary": "because " * 100_000,
    }
    scenario = {
        "case": {"subject": "Acme Analytics Ltd", "jurisdiction": "GB"},
        "model": {
            "turns": [
                {"raw": json.dumps(long_name)},
                {"raw": json.dumps(long_why)},
                {"raw": json.dumps({"kind": "ask_human", "question": "Which one?"})},
            ]
        },
    }
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps(scenario))
    call_command("run_case", "--scenario", str(path), "--json")
    record = json.loads(capsys.readouterr().out)
    failure = next(event["data"] for event in record["trace"] if event["type"] == "model_failed")
    assert failure["error_type"] == "invalid_action"
    assert "tool_name" in failure["message"]
    decision = next(event["data"] for event in record["trace"] if event["type"] == "model_decision")
    assert decision["tool_name"] == "resolve_entity"
    assert 1_000 < len(decision["rationale_summary"]) <= 2_000
    assert decision["rationale_summary"].endswith("…")
    assert [e["type"] for e in record["trace"]].count("tool_succeeded") == 1
