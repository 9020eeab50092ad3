"""Scenario files: strict parsing, and headless runs with scripted humans."""

from __future__ import annotations

import json
import time
from decimal import Decimal

import pytest

from atlas.runtime.engine import build_runtime, run_record, run_scenario
from atlas.runtime.memory import MemoryRunStore
from atlas.runtime.scenario import ScenarioError, load_scenario, load_turns, parse_scenario


def test_unknown_keys_are_a_clear_error_naming_the_key():
    with pytest.raises(ScenarioError, match="unknown key 'budgets.max_iteration'"):
        parse_scenario({"case": {"subject": "Acme"}, "budgets": {"max_iteration": 3}})
    with pytest.raises(ScenarioError, match="unknown key 'colour'"):
        parse_scenario({"case": {"subject": "Acme"}, "colour": "blue"})


def test_unknown_values_are_a_clear_error():
    with pytest.raises(ScenarioError, match="unknown fault 'explode'"):
        parse_scenario({"case": {"subject": "A"}, "tool_faults": {"screen_sanctions": ["explode"]}})
    with pytest.raises(ScenarioError, match="unknown tool 'browse'"):
        parse_scenario({"case": {"subject": "A"}, "tool_faults": {"browse": ["ok"]}})
    with pytest.raises(ScenarioError, match="unknown event type"):
        parse_scenario({"case": {"subject": "A"}, "human": {"cancel_on": {"event": "lunch"}}})
    with pytest.raises(ScenarioError, match="turn 0"):
        parse_scenario({"case": {"subject": "A"}, "model": {"turns": [{"kind": "dance"}]}})
    with pytest.raises(ScenarioError):
        parse_scenario({"case": {"subject": "A"}, "model": "gpt-5"})
    with pytest.raises(ScenarioError):
        parse_scenario({"case": {"subject": "A", "subject_type": "robot"}})


@pytest.mark.parametrize("event", ["document_added", "document_marked_sensitive"])
def test_a_cancel_may_wait_for_any_event_the_runtime_records(event):
    scenario = parse_scenario({"case": {"subject": "A"}, "human": {"cancel_on": {"event": event}}})
    assert scenario.human.cancel_on.event == event


def test_the_design_example_parses():
    scenario = parse_scenario(
        {
            "case": {"subject": "Acme Analytics", "subject_type": "company", "jurisdiction": "GB"},
            "budgets": {
                "max_iterations": 12,
                "max_tokens": 20000,
                "max_cost_usd": "1.00",
                "deadline_seconds": 120,
                "max_model_errors": 2,
                "max_no_progress": 3,
            },
            "model": {
                "turns": [
                    {
                        "kind": "call_tool",
                        "tool_name": "resolve_entity",
                        "arguments": {"name": "Acme"},
                        "rationale_summary": "x",
                        "usage": {"input_tokens": 10, "output_tokens": 5, "cost_usd": "0.001"},
                    },
                    {"raw": "text"},
                    {"transport_error": "rate_limited"},
                    {"kind": "ask_human", "question": "Which?", "blocking": True},
                ]
            },
            "tool_faults": {"screen_sanctions": ["timeout", "ok", "slow:0.5"]},
            "human": {
                "answers": ["GB"],
                "approvals": ["approve", "deny"],
                "cancel_on": {"event": "tool_started", "nth": 1},
            },
        }
    )
    assert len(scenario.model.turns) == 4


def test_a_scenario_file_runs_headless_with_scripted_answers(tmp_path):
    path = tmp_path / "northwind.json"
    path.write_text(
        json.dumps(
            {"case": {"subject": "Northwind Trading"}, "human": {"answers": ["The GB company"]}}
        )
    )
    state, store = run_scenario(load_scenario(path))
    assert state.termination_reason == "finish_proposed"
    assert state.selected_entity.entity_id == "co-northwind-gb"
    record = run_record(state, store.events[state.run_id])
    assert record["status"] == "awaiting_review"
    assert record["trace"][0] == {
        "seq": 1,
        "type": "run_started",
        "step": 0,
        "data": record["trace"][0]["data"],
    }
    json.dumps(record)


def test_a_scenario_with_documents_and_approvals(tmp_path):
    (tmp_path / "kyc.txt").write_text("Company: Acme Analytics Ltd\nPassport number: X1234567\n")
    scenario = parse_scenario(
        {
            "case": {
                "subject": "Acme Analytics",
                "jurisdiction": "GB",
                "documents": [{"path": "kyc.txt", "sensitive": True}],
            },
            "human": {"approvals": ["approve"]},
        },
        base_dir=tmp_path,
    )
    state, store = run_scenario(scenario)
    assert state.termination_reason == "finish_proposed"
    assert "approval_granted" in store.event_types(state.run_id)
    assert any(e.evidence_class == "document" for e in state.evidence)


def test_cancel_on_the_first_tool_start_cancels_the_run():
    scenario = parse_scenario(
        {
            "case": {"subject": "Acme Analytics", "jurisdiction": "GB"},
            "tool_faults": {"resolve_entity": ["slow:20"]},
            "human": {"cancel_on": {"event": "tool_started", "nth": 1}},
        }
    )
    state, store = run_scenario(scenario)
    assert (state.status, state.termination_reason) == ("cancelled", "cancelled")
    assert store.event_types(state.run_id)[-3:] == ["tool_started", "tool_failed", "run_cancelled"]


def test_a_cancel_a_moment_after_a_tool_starts_interrupts_the_running_call():
    scenario = parse_scenario(
        {
            "case": {"subject": "Acme Analytics", "jurisdiction": "GB"},
            "tool_faults": {"resolve_entity": ["slow:20"]},
            "human": {"cancel_on": {"event": "tool_started", "nth": 1, "after_seconds": 0.2}},
        }
    )
    began = time.monotonic()
    state, store = run_scenario(scenario)
    assert time.monotonic() - began < 5
    assert (state.status, state.termination_reason) == ("cancelled", "cancelled")
    failed = next(e for e in store.events[state.run_id] if e.type == "tool_failed")
    assert failed.data["message"] == "Cancelled while the tool was running."


ACME = {"subject": "Acme Analytics", "jurisdiction": "GB"}


@pytest.mark.parametrize(
    ("event", "scenario"),
    [
        ("clarification_requested", {"case": {"subject": "Northwind Trading"}}),
        (
            "approval_requested",
            {"case": {**ACME, "documents": [{"path": "kyc.txt", "sensitive": True}]}},
        ),
        ("finish_proposed", {"case": ACME}),
        ("budget_exhausted", {"case": ACME, "budgets": {"max_iterations": 1}}),
    ],
)
def test_a_cancel_on_the_event_that_pauses_the_run_cancels_it(tmp_path, event, scenario):
    (tmp_path / "kyc.txt").write_text("Company: Acme Analytics Ltd\n")
    scenario = parse_scenario(
        {**scenario, "human": {"cancel_on": {"event": event}}}, base_dir=tmp_path
    )
    state, store = run_scenario(scenario)
    assert (state.status, state.termination_reason) == ("cancelled", "cancelled")
    types = store.event_types(state.run_id)
    assert event in types and types[-1] == "run_cancelled"
    assert store.load_state(state.run_id).status == "cancelled"


def test_a_cancel_a_moment_after_the_event_the_run_paused_on_still_cancels_it():
    scenario = parse_scenario(
        {
            "case": {"subject": "Northwind Trading"},
            "human": {"cancel_on": {"event": "clarification_requested", "after_seconds": 0.3}},
        }
    )
    began = time.monotonic()
    state, store = run_scenario(scenario)
    assert time.monotonic() - began >= 0.3
    assert (state.status, state.termination_reason) == ("cancelled", "cancelled")
    types = store.event_types(state.run_id)
    assert types[-2:] == ["clarification_requested", "run_cancelled"]


def test_a_cancel_on_a_retry_start_stops_the_retry_before_it_runs():
    scenario = parse_scenario(
        {
            "case": ACME,
            "tool_faults": {"resolve_entity": ["timeout", "slow:3"]},
            "human": {"cancel_on": {"event": "tool_started", "nth": 2}},
        }
    )
    started = time.monotonic()
    state, store = run_scenario(scenario)
    assert time.monotonic() - started < 1.0
    assert (state.status, state.termination_reason) == ("cancelled", "cancelled")
    assert store.event_types(state.run_id)[-5:] == [
        "tool_started",
        "tool_retryable_failure",
        "tool_started",
        "tool_failed",
        "run_cancelled",
    ]
    failed = next(e for e in store.events[state.run_id] if e.type == "tool_failed")
    assert failed.data["message"] == "Cancelled before the tool ran."
    (record,) = store.tool_calls.values()
    assert (record.effect_status, record.attempts) == ("cancelled", 2)


def test_a_cancel_on_the_model_request_stops_the_run_before_any_tool_starts():
    scenario = parse_scenario(
        {"case": ACME, "human": {"cancel_on": {"event": "model_requested", "nth": 1}}}
    )
    state, store = run_scenario(scenario)
    assert (state.status, state.termination_reason) == ("cancelled", "cancelled")
    # The reply already on its way is recorded with what it cost, and not acted on.
    assert store.event_types(state.run_id) == [
        "run_started",
        "model_requested",
        "model_decision",
        "run_cancelled",
    ]
    assert not store.tool_calls


def test_a_scripted_model_file_and_a_script_that_runs_out(tmp_path):
    path = tmp_path / "turns.json"
    path.write_text(
        json.dumps(
            [
                {
                    "kind": "call_tool",
                    "tool_name": "resolve_entity",
                    "arguments": {"name": "Acme Analytics"},
                }
            ]
        )
    )
    store = MemoryRunStore()
    scenario = parse_scenario({"case": {"subject": "Acme Analytics"}})
    runtime = build_runtime(f"scripted:{path}", scenario=scenario, store=store)
    from atlas.runtime.engine import state_for_scenario

    state = runtime.run_until_pause(runtime.start(state_for_scenario(scenario, run_id="r-1")))
    assert (state.status, state.termination_reason) == ("failed", "model_failure")
    assert store.event_types("r-1")[-2:] == ["model_failed", "run_failed"]


def test_an_unknown_model_spec_is_refused():
    with pytest.raises(ValueError, match="unknown model"):
        build_runtime("claude:opus")


@pytest.mark.parametrize("load", [load_scenario, load_turns])
def test_a_file_that_is_not_utf8_is_a_clear_error(tmp_path, load):
    path = tmp_path / "latin1.json"
    path.write_bytes('{"case": {"subject": "Café"}}'.encode("latin-1"))
    with pytest.raises(ScenarioError, match="is not UTF-8 text"):
        load(path)


@pytest.mark.parametrize("depth", [100_000, 300])
@pytest.mark.parametrize("load", [load_scenario, load_turns])
def test_a_file_nested_too_deeply_is_a_clear_error(tmp_path, load, depth):
    path = tmp_path / "deep.json"
    path.write_text("[" * depth + "]" * depth)
    with pytest.raises(ScenarioError, match="nests more than 64 levels deep"):
        load(path)


def test_an_integer_too_long_to_read_is_a_clear_error(tmp_path):
    path = tmp_path / "long.json"
    path.write_text(
        '{"case": {"subject": "Acme"}, "budgets": {"max_iterations": %s}}' % ("9" * 5000)
    )
    with pytest.raises(ScenarioError, match="is not valid JSON"):
        load_scenario(path)


@pytest.mark.parametrize(
    ("budgets", "message"),
    [
        ('{"deadline_seconds": 1e400}', "'budgets.deadline_seconds': Input should be a finite"),
        ('{"deadline_seconds": 1e300}', "'budgets.deadline_seconds': Input should be less than"),
        ('{"max_cost_usd": "NaN"}', "'budgets.max_cost_usd': Input should be a finite"),
        ('{"max_cost_usd": "1e400"}', "'budgets.max_cost_usd': Input should be less than"),
        ('{"max_tokens": 1e30}', "'budgets.max_tokens'"),
        ('{"max_iterations": 100000000}', "'budgets.max_iterations': Input should be less than"),
    ],
)
def test_budgets_that_are_not_finite_or_past_their_ceiling_are_a_clear_error(
    tmp_path, budgets, message
):
    path = tmp_path / "scenario.json"
    path.write_text('{"case": {"subject": "Acme"}, "budgets": ' + budgets + "}")
    with pytest.raises(ScenarioError, match=message):
        load_scenario(path)


TURN_ASK = '{"kind": "ask_human", "question": "Which one?"'


@pytest.mark.parametrize(
    ("fragment", "message"),
    [
        (
            '"budgets": {"max_iterations": true}',
            "'budgets.max_iterations': Input should be a valid",
        ),
        ('"budgets": {"max_iterations": "3"}', "'budgets.max_iterations': Input should be a valid"),
        ('"budgets": {"max_tokens": 2.5}', "'budgets.max_tokens': Input should be a valid"),
        ('"budgets": {"deadline_seconds": "120"}', "'budgets.deadline_seconds': Input should be"),
        ('"budgets": {"max_cost_usd": true}', "'budgets.max_cost_usd': Decimal input should be"),
        ('"human": {"cancel_on": {"event": "tool_started", "nth": true}}', "'human.cancel_on.nth'"),
        (
            '"case": {"subject": "Acme", "documents": [{"path": "a.pdf", "sensitive": "yes"}]}',
            "'case.documents.0.sensitive': Input should be a valid boolean",
        ),
        ('"human": {"answers": [1]}', "'human.answers.0': Input should be a valid string"),
        ('"tool_faults": {"screen_sanctions": [0]}', "'tool_faults.screen_sanctions.0'"),
        ('"model": {"turns": [' + TURN_ASK + ', "blocking": "yes"}]}', "turn 0: 'blocking'"),
        (
            '"model": {"turns": [' + TURN_ASK + ', "usage": {"input_tokens": "10"}}]}',
            "turn 0: 'usage.input_tokens': Input should be a valid integer",
        ),
        (
            '"model": {"turns": [' + TURN_ASK + ', "usage": {"output_tokens": false}}]}',
            "turn 0: 'usage.output_tokens': Input should be a valid integer",
        ),
    ],
)
def test_a_value_of_the_wrong_type_is_a_clear_error_not_coerced(tmp_path, fragment, message):
    path = tmp_path / "scenario.json"
    case = "" if fragment.startswith('"case"') else '"case": {"subject": "Acme"}, '
    path.write_text("{" + case + fragment + "}")
    with pytest.raises(ScenarioError, match=message):
        load_scenario(path)


def test_an_amount_may_be_a_decimal_string_or_a_number(tmp_path):
    path = tmp_path / "scenario.json"
    path.write_text(
        '{"case": {"subject": "Acme"}, "budgets": {"max_cost_usd": 2, "deadline_seconds": 30},'
        ' "model": {"turns": [' + TURN_ASK + ', "usage": {"cost_usd": 0.25}}]}}'
    )
    scenario = load_scenario(path)
    assert scenario.budgets.max_cost_usd == Decimal("2")
    assert scenario.budgets.deadline_seconds == 30.0
    assert scenario.model.turns[0].usage.cost_usd == Decimal("0.25")


def test_a_scripted_model_file_refuses_a_wrong_type_too(tmp_path):
    path = tmp_path / "turns.json"
    path.write_text("[" + TURN_ASK + ', "blocking": 1}]')
    with pytest.raises(ScenarioError, match="turn 0: 'blocking': Input should be a valid boolean"):
        load_turns(path)


@pytest.mark.parametrize("name", ["..", "/", "reports/", "a\x00.pdf"])
def test_a_document_name_that_is_not_a_file_name_is_a_clear_error(name):
    document = {"path": "filing.pdf", "name": name}
    with pytest.raises(ScenarioError, match="'case.documents.0.name'.*is not a file name"):
        parse_scenario({"case": {"subject": "Acme", "documents": [document]}})
