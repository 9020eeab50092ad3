"""The tools offered to the model: only those allowed now, the same in the prompt, in the
context's tool list and in the text its tokens are estimated from."""

from __future__ import annotations

import json

from atlas.runtime.context import build_context
from atlas.runtime.policy import TenantPolicy
from atlas.runtime.tools.registry import default_registry


def offered_in_prompt(context) -> list[dict]:
    prompt = context.messages[1]["content"]
    listed = prompt.split("Available tools:\n", 1)[1].split("\n\nRecent observations", 1)[0]
    return json.loads(listed)


def test_the_prompt_the_tool_list_and_the_estimated_text_offer_the_same_tools(make_state):
    context = build_context(make_state(), default_registry(), TenantPolicy())
    assert offered_in_prompt(context) == context.tools
    assert context.text().endswith(json.dumps(context.tools))
    assert [tool["name"] for tool in context.tools] == [
        "resolve_entity",
        "screen_sanctions",
        "search_adverse_media",
    ]


def test_a_tool_the_tenant_forbids_is_offered_nowhere_though_it_was_a_step_before(make_state):
    state = make_state()
    build_context(state, default_registry(), TenantPolicy())
    policy = TenantPolicy(forbidden_tools=["search_adverse_media"])
    context = build_context(state, default_registry(), policy)
    offered = ["resolve_entity", "screen_sanctions"]
    assert [tool["name"] for tool in offered_in_prompt(context)] == offered
    assert [tool["name"] for tool in context.tools] == offered
    assert context.text().endswith(json.dumps(context.tools))


def test_changing_one_contexts_tool_list_leaves_the_next_context_alone(make_state):
    first = build_context(make_state(), default_registry(), TenantPolicy())
    first.tools.pop()
    second = build_context(make_state(), default_registry(), TenantPolicy())
    assert len(second.tools) == 3
