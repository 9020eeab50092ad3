"""The world's lookups run in the run's own thread; anything else, and any injected delay,
runs on a helper thread that a cancel or time limit can cut off."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from atlas.runtime.memory import MemoryCancelSignal, SystemClock
from atlas.runtime.state import CaseBrief
from atlas.runtime.tools.base import ToolContext
from atlas.runtime.tools.gateway import ToolGateway
from atlas.runtime.tools.registry import default_registry
from atlas.runtime.world import default_world

LOOKUPS = {"resolve_entity", "screen_sanctions", "search_adverse_media"}


def spec_named(name):
    return next(spec for spec in default_registry() if spec.name == name)


def call(spec, *, fault="", cancel=None, timeout=None):
    """`spec` called through a gateway on Acme Analytics, and the name of the thread the
    tool ran on."""
    threads = []
    inner = spec.handler

    def handler(args, ctx):
        threads.append(threading.current_thread().name)
        return inner(args, ctx)

    spec = dataclasses.replace(spec, handler=handler, timeout_seconds=timeout or 5.0)
    gateway = ToolGateway(store=None, cancel=cancel or MemoryCancelSignal(), clock=SystemClock())
    brief = CaseBrief(subject="Acme Analytics Ltd", subject_type="company", jurisdiction="GB")
    arguments = {"query": "Acme Analytics"} if spec.name == "search_adverse_media" else {}
    arguments = arguments or {"name": "Acme Analytics Ltd"}
    outcome = gateway.execute(
        spec,
        spec.args_model(**arguments),
        key=f"run:1:{spec.name}",
        ctx=ToolContext(brief=brief, documents=None, world=default_world()),
        next_fault=lambda: fault,
        emit=lambda *args, **kwargs: None,
        max_retries=0,
    )
    return outcome, threads


def test_only_the_worlds_bounded_lookups_run_inline():
    assert {spec.name for spec in default_registry() if spec.runs_inline} == LOOKUPS


@pytest.mark.parametrize("name", sorted(LOOKUPS))
def test_a_lookup_runs_in_the_callers_thread(name):
    outcome, threads = call(spec_named(name))
    assert outcome.status == "succeeded"
    assert threads == [threading.current_thread().name]


def test_a_tool_not_marked_inline_runs_on_a_helper_thread():
    spec = dataclasses.replace(spec_named("search_adverse_media"), runs_inline=False)
    outcome, threads = call(spec)
    assert outcome.status == "succeeded"
    assert threads != [threading.current_thread().name]


def test_an_injected_delay_runs_on_a_helper_and_a_cancel_cuts_it_off():
    cancel = MemoryCancelSignal()
    threading.Timer(0.1, cancel.set).start()
    outcome, _ = call(spec_named("search_adverse_media"), fault="slow:30", cancel=cancel)
    assert (outcome.status, outcome.error_type) == ("cancelled", "cancelled")
    assert outcome.duration_ms < 5000


def test_an_inline_lookup_during_which_the_run_was_cancelled_is_dropped():
    cancel = MemoryCancelSignal()
    spec = spec_named("screen_sanctions")

    def cancelled_meanwhile(args, ctx):
        cancel.set()
        return spec.handler(args, ctx)

    outcome, threads = call(dataclasses.replace(spec, handler=cancelled_meanwhile), cancel=cancel)
    assert threads == [threading.current_thread().name]
    assert (outcome.status, outcome.result) == ("cancelled", None)


def test_an_inline_lookup_that_overran_its_limit_is_a_timeout():
    spec = spec_named("resolve_entity")

    def slow(args, ctx):
        threading.Event().wait(0.2)
        return spec.handler(args, ctx)

    outcome, _ = call(dataclasses.replace(spec, handler=slow), timeout=0.1)
    assert (outcome.status, outcome.error_type) == ("failed", "timeout")
    assert "did not answer within 0.1 s" in outcome.error_message
