"""Evaluation suites: scenario files with expected outcomes, checked against real runs.

A suite is a directory. Every `NAME.json` in it is a scenario in DESIGN.md's format (so
`run_case --scenario NAME.json` runs it unchanged) and `NAME.expect.json` next to it says
what must come out. See evals/README.md for the expectation keys.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import Annotated, Any

from django.core.management import call_command
from django.core.management.base import CommandError
from pydantic import Field, ValidationError, field_validator

from atlas.runtime.decisions import RiskRating
from atlas.runtime.scenario import (
    EVENT_TYPES,
    ScenarioError,
    StrictModel,
    describe_validation_error,
    read_json,
)
from atlas.runtime.state import REASON_CODES, STATUSES
from runs.management.commands.run_case import check_scenario

EXPECT_SUFFIX = ".expect.json"


class SuiteError(ValueError):
    """A suite that cannot be run as given (missing or malformed files)."""


def _known_events(values: list[str]) -> list[str]:
    unknown = [value for value in values if value not in EVENT_TYPES]
    if unknown:
        raise ValueError(f"unknown event type(s): {', '.join(unknown)}")
    return values


class PacketExpectation(StrictModel):
    present: bool | None = None
    risk_rating: RiskRating | None = None
    has_unresolved_conflict: bool | None = None
    partial: bool | None = None
    sanctions_result_contains: str | None = None
    selected_entity_contains: str | None = None
    open_gaps_contain: str | None = None
    open_gaps_lack: str | None = None


class Expectation(StrictModel):
    description: str = ""
    status: str | None = None
    reason: str | None = None
    required_events: list[str] = Field(default_factory=list)
    events_in_order: list[str] = Field(default_factory=list)
    forbidden_events: list[str] = Field(default_factory=list)
    max_event_count: dict[str, Annotated[int, Field(ge=0)]] = Field(default_factory=dict)
    packet: PacketExpectation | None = None
    max_seconds: float | None = Field(default=None, gt=0, allow_inf_nan=False)

    @field_validator("status")
    @classmethod
    def _status(cls, value: str | None) -> str | None:
        if value is not None and value not in STATUSES:
            raise ValueError(f"unknown status {value!r}")
        return value

    @field_validator("reason")
    @classmethod
    def _reason(cls, value: str | None) -> str | None:
        if value is not None and value not in REASON_CODES:
            raise ValueError(f"unknown reason code {value!r}")
        return value

    @field_validator("required_events", "events_in_order", "forbidden_events")
    @classmethod
    def _events(cls, value: list[str]) -> list[str]:
        return _known_events(value)

    @field_validator("max_event_count")
    @classmethod
    def _counted_events(cls, value: dict[str, int]) -> dict[str, int]:
        _known_events(list(value))
        return value


@dataclass
class Case:
    name: str
    scenario_path: Path
    expectation: Expectation


@dataclass
class Result:
    case: Case
    record: dict[str, Any] | None = None
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def run_id(self) -> int | None:
        return self.record["run_id"] if self.record else None

    @property
    def outcome(self) -> str:
        if not self.record:
            return "did not run"
        return f"{self.record['status']} / {self.record['termination_reason'] or '—'}"

    @property
    def expected(self) -> str:
        exp = self.case.expectation
        return f"{exp.status or 'any'} / {exp.reason or 'any'}"


def load_suite(directory: str | Path) -> list[Case]:
    """Every case of the suite, each scenario checked as run_case checks it: a suite with
    any problem is refused whole, before anything runs."""
    root = Path(directory)
    if not root.is_dir():
        raise SuiteError(f"{root} is not a directory")
    scenarios = sorted(
        path for path in root.glob("*.json") if not path.name.endswith(EXPECT_SUFFIX)
    )
    if not scenarios:
        raise SuiteError(f"{root} has no scenario files (NAME.json)")
    cases = []
    problems = []
    for path in scenarios:
        try:
            check_scenario(str(path))
        except CommandError as error:
            problems.append(_about(path, str(error)))
        name = path.name[: -len(".json")]
        expect_path = root / f"{name}{EXPECT_SUFFIX}"
        if not expect_path.exists():
            problems.append(f"{path.name}: no expectations file {expect_path.name}")
            continue
        try:
            expectation = Expectation.model_validate(read_json(expect_path, "expectations file"))
        except ScenarioError as error:
            problems.append(str(error))
            continue
        except ValidationError as error:
            problems.append(f"{expect_path.name}: {describe_validation_error(error)}")
            continue
        cases.append(Case(name=name, scenario_path=path, expectation=expectation))
    orphans = sorted(
        p.name
        for p in root.glob(f"*{EXPECT_SUFFIX}")
        if not (root / p.name.replace(EXPECT_SUFFIX, ".json")).exists()
    )
    problems += [f"{name}: expectations without a scenario file" for name in orphans]
    if len(problems) == 1:
        raise SuiteError(f"the suite has a problem: {problems[0]}")
    if problems:
        raise SuiteError(f"the suite has {len(problems)} problems:\n  " + "\n  ".join(problems))
    return cases


def _about(path: Path, message: str) -> str:
    """The message, naming the file it is about unless it does already."""
    return message if str(path) in message else f"{path.name}: {message}"


def _is_subsequence(wanted: list[str], types: list[str]) -> bool:
    position = 0
    for type_ in types:
        if position < len(wanted) and type_ == wanted[position]:
            position += 1
    return position == len(wanted)


def check(expectation: Expectation, record: dict[str, Any], seconds: float) -> list[str]:
    """Every way the run differs from what was expected, in words."""
    failures: list[str] = []
    if expectation.status and record["status"] != expectation.status:
        failures.append(f"status is {record['status']}, expected {expectation.status}")
    if expectation.reason and record["termination_reason"] != expectation.reason:
        failures.append(f"reason is {record['termination_reason']}, expected {expectation.reason}")
    types = [event["type"] for event in record["trace"]]
    for event in expectation.required_events:
        if event not in types:
            failures.append(f"no {event} event")
    if expectation.events_in_order and not _is_subsequence(expectation.events_in_order, types):
        failures.append(f"events not in order {' → '.join(expectation.events_in_order)}")
    for event in expectation.forbidden_events:
        if event in types:
            failures.append(f"forbidden {event} event happened ({types.count(event)}×)")
    for event, limit in expectation.max_event_count.items():
        if types.count(event) > limit:
            failures.append(f"{types.count(event)} {event} events, at most {limit} expected")
    if expectation.max_seconds is not None and seconds > expectation.max_seconds:
        failures.append(f"took {seconds:.1f}s, at most {expectation.max_seconds:g}s expected")
    if expectation.packet is not None:
        failures += _check_packet(expectation.packet, record.get("packet"))
    return failures


def _check_packet(expected: PacketExpectation, packet: dict[str, Any] | None) -> list[str]:
    if expected.present is False:
        return ["a packet was proposed, none expected"] if packet else []
    if packet is None:
        return ["no packet"] if expected.present or _asks_about_content(expected) else []
    failures = []
    if expected.risk_rating and packet.get("risk_rating") != expected.risk_rating:
        failures.append(f"risk is {packet.get('risk_rating')}, expected {expected.risk_rating}")
    if expected.has_unresolved_conflict is not None:
        has = bool(packet.get("unresolved_conflicts"))
        if has != expected.has_unresolved_conflict:
            failures.append(
                "the packet has an unresolved conflict"
                if has
                else "the packet has no unresolved conflict"
            )
    if expected.partial is not None and bool(packet.get("partial")) != expected.partial:
        failures.append(
            f"packet partial is {bool(packet.get('partial'))}, expected {expected.partial}"
        )
    for key, wanted in (
        ("sanctions_result", expected.sanctions_result_contains),
        ("selected_entity", expected.selected_entity_contains),
    ):
        if wanted and wanted.lower() not in str(packet.get(key) or "").lower():
            failures.append(f"packet {key} {packet.get(key)!r} does not mention {wanted!r}")
    gaps = " ".join(packet.get("open_gaps") or []).lower()
    if expected.open_gaps_contain and expected.open_gaps_contain.lower() not in gaps:
        failures.append(f"no open gap of the packet mentions {expected.open_gaps_contain!r}")
    if expected.open_gaps_lack and expected.open_gaps_lack.lower() in gaps:
        failures.append(f"an open gap of the packet mentions {expected.open_gaps_lack!r}")
    return failures


def _asks_about_content(expected: PacketExpectation) -> bool:
    return any(
        value is not None
        for value in (
            expected.risk_rating,
            expected.has_unresolved_conflict,
            expected.partial,
            expected.sanctions_result_contains,
            expected.selected_entity_contains,
            expected.open_gaps_contain,
            expected.open_gaps_lack,
        )
    )


def run_case(case: Case, *, tenant: str, model: str | None) -> Result:
    """Run one scenario through `run_case` (persisted like any other run) and check it."""
    out = StringIO()
    options: dict[str, Any] = {
        "scenario": str(case.scenario_path),
        "json": True,
        "tenant": tenant,
        "create_tenant": True,
    }
    if model:
        options["model"] = model
    started = time.monotonic()
    try:
        call_command("run_case", stdout=out, **options)
    except CommandError as error:
        return Result(case=case, failures=[f"could not run: {error}"])
    seconds = time.monotonic() - started
    record = json.loads(out.getvalue())
    return Result(
        case=case,
        record=record,
        seconds=seconds,
        failures=check(case.expectation, record, seconds),
    )
