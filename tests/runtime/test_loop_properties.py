"""Whatever the model says and whatever the tools do, the loop stays inside its contract."""

from __future__ import annotations

import json
from decimal import Decimal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atlas.runtime.adapters.scripted import ScriptedModel
from atlas.runtime.engine import Runtime
from atlas.runtime.memory import FakeClock, MemoryCancelSignal, MemoryDocumentSource, MemoryRunStore
from atlas.runtime.scenario import FAULT_WORDS
from atlas.runtime.state import STATUSES, AttachedDocument, Budgets, CaseBrief, new_state
from atlas.runtime.tools.registry import default_registry
from atlas.runtime.world import sample_documents

REGISTERED = set(default_registry().names())
TOOL_NAMES = sorted(REGISTERED) + ["delete_everything", "browse_web"]
ARGUMENTS = st.sampled_from(
    [
        {},
        {"name": "Acme Analytics"},
        {"name": "Northwind Trading", "jurisdiction": "SG"},
        {"name": "Дмитрий Волков", "entity_type": "person"},
        {"entity_id": "co-acme-analytics-gb"},
        {"entity_id": "nope"},
        {"query": "Meridian Shipping directors"},
        {"query": "x"},
        {"document_id": "doc-acme-onboarding"},
        {"document_id": "doc-meridian-kyc"},
        {"name": 42, "unexpected": True},
    ]
)
CALL = st.builds(
    lambda tool, args: {
        "kind": "call_tool",
        "tool_name": tool,
        "arguments": args,
        "rationale_summary": "?",
    },
    st.sampled_from(TOOL_NAMES),
    ARGUMENTS,
)
FINISH = st.builds(
    lambda risk, ids: {
        "kind": "finish",
        "packet": {
            "subject": "Acme Analytics",
            "risk_rating": risk,
            "findings": [{"claim": "c", "evidence_ids": ids}],
        },
    },
    st.sampled_from(["low", "medium", "high"]),
    # Ids a script may hold; a control character is the model's text's to try (below).
    st.lists(
        st.text(st.characters(exclude_categories=("Cc", "Cs", "Cf")), min_size=1, max_size=12),
        max_size=2,
    ),
)
TURN = st.one_of(
    CALL,
    FINISH,
    # As the model's text, so a question the runtime refuses (blank, a control
    # character) is a model error, not a script the scenario loader refuses.
    st.builds(
        lambda q, b: {"raw": json.dumps({"kind": "ask_human", "question": q, "blocking": b})},
        st.text(min_size=1, max_size=30),
        st.booleans(),
    ),
    # A script cannot hold NUL (a run stores its script); a model's NUL is tried as JSON.
    st.builds(
        lambda text: {"raw": text}, st.text(st.characters(exclude_characters="\x00"), max_size=60)
    ),
    st.sampled_from(
        [
            {"transport_error": "timeout"},
            {"transport_error": "rate_limited"},
            {"raw": '{"kind": "finish"}'},
        ]
    ),
)
FAULT = st.sampled_from([w for w in FAULT_WORDS if w != "oversized"] + ["oversized", "slow:0.01"])


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=st.lists(TURN, max_size=14),
    faults=st.dictionaries(st.sampled_from(sorted(REGISTERED)), st.lists(FAULT, max_size=4)),
    tokens_per_call=st.integers(min_value=0, max_value=4000),
    cost_per_call=st.decimals(min_value=0, max_value=Decimal("0.30"), places=2),
    max_iterations=st.integers(min_value=0, max_value=12),
)
def test_the_loop_never_breaks_its_contract(
    turns, faults, tokens_per_call, cost_per_call, max_iterations
):
    usage = {"input_tokens": tokens_per_call, "output_tokens": 0, "cost_usd": str(cost_per_call)}
    turns = [{**turn, "usage": usage} if "kind" in turn else turn for turn in turns]
    store = MemoryRunStore()
    runtime = Runtime(
        ScriptedModel(turns),
        store=store,
        clock=FakeClock(auto_advance=0.5),
        cancel=MemoryCancelSignal(),
        documents=MemoryDocumentSource(sample_documents()),
        retry_backoff_seconds=0.0,
    )
    budgets = Budgets(max_iterations=max_iterations, max_tokens=12000, max_cost_usd=Decimal("1.00"))
    state = new_state(
        run_id="prop",
        case_id="c",
        tenant_id="t",
        brief=CaseBrief(
            subject="Acme Analytics",
            jurisdiction="GB",
            documents=[
                AttachedDocument(document_id="doc-acme-onboarding", name="a.txt", sensitive=True)
            ],
        ),
        budgets=budgets,
        fault_plan=faults,
    )
    state = runtime.run_until_pause(runtime.start(state))

    assert state.status in STATUSES and state.status not in ("queued", "researching")
    assert state.termination_reason is not None and state.user_status
    assert state.iteration <= budgets.max_iterations
    assert state.tokens <= budgets.max_tokens
    assert state.cost_usd <= budgets.max_cost_usd
    started = {e.data["tool"] for e in store.events["prop"] if e.type == "tool_started"}
    assert started <= REGISTERED
    seqs = [e.seq for e in store.events["prop"]]
    assert seqs == list(range(1, len(seqs) + 1))
    if state.is_terminal:
        assert store.event_types("prop")[-1] in ("run_completed", "run_failed", "run_cancelled")
