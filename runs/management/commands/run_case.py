"""Run one case end to end without a browser, persisted like any other run."""

from __future__ import annotations

import argparse
import json
import signal
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import pydantic
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import BaseCommand, CommandError

from atlas.runtime.memory import MemoryCancelSignal
from atlas.runtime.money import dollars
from atlas.runtime.scenario import Scenario, ScenarioError, load_scenario, load_turns
from atlas.runtime.wording import counted, fact_about
from runs.actions import (
    do_attach_document,
    do_open_case,
    do_request_cancel,
    do_start_run,
    run_budgets,
)
from runs.case_fields import clean_jurisdiction, clean_subject_name
from runs.execution import HeldElsewhere, run_headless
from runs.leases import HEADLESS, THIS_PROCESS, release_lease
from runs.management.migrated import require_migrated_database
from runs.models import Case, Run, Tenant
from runs.records import run_record
from runs.uploads import CheckedUpload, check_upload

CLI_USERNAME = "atlas-cli"
# Created on first use, so that run_case works on a fresh database; any other tenant must
# exist already, or be created on purpose with --create-tenant.
DEFAULT_TENANT = "demo-bank"

# What a shell reports for a command ended by Ctrl+C (128 + SIGINT): a second Ctrl+C stops
# run_case before it prints the run's record.
INTERRUPTED_EXIT_CODE = 130


def _decimal(value: str) -> Decimal:
    try:
        amount = Decimal(value)
    except InvalidOperation:
        amount = None
    if amount is None or not amount.is_finite():
        # argparse turns this into a usage error; a CommandError here would be a traceback.
        raise argparse.ArgumentTypeError(
            f"must be a decimal amount such as 0.50, got {value!r}"
        ) from None
    return amount


# Each budget flag (--max-iterations, ...) and how its value is read.
BUDGET_FLAGS = {
    "max_iterations": int,
    "max_tokens": int,
    "max_cost_usd": _decimal,
    "deadline_seconds": float,
    "max_model_errors": int,
    "max_no_progress": int,
}

# The flags that define a case, which a scenario's case defines instead (--document adds
# a document to either).
CASE_FLAGS = ("subject", "subject_type", "jurisdiction")


def _flag(name: str) -> str:
    """The command-line flag of an option: max_cost_usd is --max-cost-usd."""
    return "--" + name.replace("_", "-")


class WholeNamedUpload(SimpleUploadedFile):
    """An upload that keeps its name whole. Django cuts an upload's name to its last path
    part, as a browser's file name can hold nothing else; a scenario's document name
    ("Board minutes 2024/25.txt") is a title, not a path. The file itself is still stored
    under a safe form of the last part, in the case's folder (runs.uploads.stored_file_name).
    """

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = value


@dataclass(frozen=True)
class CaseToOpen:
    subject: str
    subject_type: str
    jurisdiction: str
    notes: str
    uploads: list[tuple[SimpleUploadedFile, CheckedUpload, bool]]


@dataclass(frozen=True)
class CheckedInput:
    """Everything run_case was given, checked before anything is stored."""

    scenario: Scenario | None
    budgets: dict[str, Any]
    case: CaseToOpen


def check_model(spec: str, what: str) -> None:
    """Refuse, in one line, a model spec no run could use (atlas_eval's --model too)."""
    if spec == "playbook":
        return
    kind, _, rest = spec.partition(":")
    if kind not in {"scripted", "openai"} or not rest:
        raise CommandError(f"{what} must be playbook, scripted:FILE or openai:MODEL, got {spec!r}")
    if kind == "scripted":
        try:
            load_turns(rest)
        except ScenarioError as error:
            raise CommandError(f"{what}: {error}") from None
        return
    # Without an address the adapter would call a default host, and the run would fail
    # only after the case and the run were stored. A local server may well need no key.
    if not settings.OPENAI_BASE_URL.strip():
        raise CommandError(f"{what} {spec!r} needs the endpoint's address: set OPENAI_BASE_URL")


def _given_twice(name: str, first: str) -> str:
    if name == first:
        return f"document {name} is given twice: give it once"
    return f"document {name} is the same file as {first}: give it once"


@contextmanager
def _ctrl_c_cancels(cancel: MemoryCancelSignal) -> Iterator[None]:
    """The first Ctrl+C cancels the run, which ends `cancelled` within a second with its
    in-flight tool call recorded; a second one interrupts at once (KeyboardInterrupt)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may handle signals (call_command from a thread)
        return

    def cancel_run(signum: int, frame: object) -> None:
        cancel.set()
        signal.signal(signal.SIGINT, signal.default_int_handler)

    previous = signal.signal(signal.SIGINT, cancel_run)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class _Once(argparse.Action):
    """A flag that takes one value: given twice, it is refused, not the last one taken."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option_string} is given twice: give it once")
        setattr(namespace, self.dest, values)


class Command(BaseCommand):
    help = "Run one due-diligence case headlessly and print the run record."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--subject", action=_Once, help="Name of the company or person to research"
        )
        parser.add_argument(
            "--subject-type",
            action=_Once,
            choices=["company", "person"],
            help="company (default) or person",
        )
        parser.add_argument("--jurisdiction", action=_Once, help="Two-letter country code, e.g. GB")
        parser.add_argument(
            "--document", action="append", default=[], help="Path of a PDF or text file to attach"
        )
        parser.add_argument("--scenario", action=_Once, help="Scenario file (JSON, see DESIGN.md)")
        parser.add_argument(
            "--model",
            action=_Once,
            help="playbook | scripted:FILE | openai:MODEL (overrides the scenario's)",
        )
        parser.add_argument(
            "--tenant",
            action=_Once,
            help=f"Slug of the tenant the case belongs to (default {DEFAULT_TENANT})",
        )
        parser.add_argument(
            "--create-tenant", action="store_true", help="Create the --tenant if it does not exist"
        )
        parser.add_argument("--json", action="store_true", help="Print the run record as JSON")
        parser.add_argument(
            "--async",
            dest="run_async",
            action="store_true",
            help="Queue the run for the workers instead",
        )
        for name, parse in BUDGET_FLAGS.items():
            parser.add_argument(_flag(name), type=parse, action=_Once)

    def handle(self, *args, **options) -> None:
        given = self.checked_input(options)
        scenario = given.scenario

        require_migrated_database()
        tenant = self._tenant(options)
        user, _ = get_user_model().objects.get_or_create(
            username=CLI_USERNAME, defaults={"first_name": "Atlas", "last_name": "command line"}
        )
        case = self._open_case(tenant, user, given.case)
        run = do_start_run(
            case,
            user,
            model_name=options["model"],
            budgets=given.budgets,
            scenario=scenario,
            wake=options["run_async"],
            driven_here=not options["run_async"],
        )
        if options["run_async"]:
            self.stdout.write(
                json.dumps({"run_id": run.pk, "status": run.status})
                if options["json"]
                else f"Run {run.pk} queued for the workers."
            )
            return
        interrupted = MemoryCancelSignal()
        try:
            with _ctrl_c_cancels(interrupted):
                run = run_headless(run, scenario, interrupted)
                self._print(run, as_json=options["json"])
        except HeldElsewhere as error:
            raise CommandError(str(error)) from None
        except KeyboardInterrupt:
            # Not driven here any more: cancelled now, or else a worker would take it up and
            # research on after the operator stopped it.
            for holder in (THIS_PROCESS, HEADLESS):  # created held, then driven
                release_lease(run.pk, holder)
            run = do_request_cancel(run, run.created_by)
            self.stderr.write(f"Interrupted again: stopped at once, run {run.pk} is {run.status}.")
            raise SystemExit(INTERRUPTED_EXIT_CODE) from None
        if interrupted.is_set():
            # The run ended cancelled and its record is printed: an outcome like any other,
            # so the exit code is 0 (DESIGN.md). Only a second Ctrl+C, which stops the
            # command before it can print the record, exits as interrupted.
            self.stderr.write(f"Interrupted: run {run.pk} is {run.status}.")

    def checked_input(self, options) -> CheckedInput:
        """The case, scenario, model and budgets as given, or a one-line CommandError."""
        case_flags = [_flag(name) for name in CASE_FLAGS if options[name] is not None]
        if options["scenario"] and case_flags:
            raise CommandError(
                f"{', '.join(case_flags)} cannot be given with --scenario: "
                "the scenario file defines the case."
            )
        scenario = self._scenario(options)
        if scenario is None and not options["subject"]:
            raise CommandError("Give --subject NAME or --scenario FILE.")
        if options["model"]:
            check_model(options["model"], "--model")
        elif scenario is None:  # a scenario names its own model, playbook by default
            check_model(settings.ATLAS_MODEL, "the ATLAS_MODEL setting")
        budgets = self._budgets(scenario, options)
        return CheckedInput(scenario, budgets, self._case_to_open(scenario, options))

    def _scenario(self, options) -> Scenario | None:
        if not options["scenario"]:
            return None
        try:
            return load_scenario(options["scenario"])
        except ScenarioError as error:
            raise CommandError(str(error)) from None

    def _budgets(self, scenario: Scenario | None, options) -> dict[str, Any]:
        """The budget flags given, checked together with the scenario's budgets."""
        flags = {name: options[name] for name in BUDGET_FLAGS if options.get(name) is not None}
        try:
            run_budgets(scenario, flags)
        except pydantic.ValidationError as error:
            problem = error.errors()[0]
            flag = _flag(str(problem["loc"][0]))
            raise CommandError(f"{flag}: {problem['msg']}, got {problem['input']}") from None
        return flags

    def _tenant(self, options) -> Tenant:
        slug = DEFAULT_TENANT if options["tenant"] is None else options["tenant"]
        tenant = Tenant.objects.filter(slug=slug).first()
        if tenant is not None:
            return tenant
        if slug != DEFAULT_TENANT and not options["create_tenant"]:
            existing = list(Tenant.objects.order_by("slug").values_list("slug", flat=True)[:11])
            listed = ", ".join(existing[:10]) + (", ..." if len(existing) > 10 else "")
            raise CommandError(
                f"--tenant: no tenant {slug!r} (existing: {listed or 'none'}); "
                "pass --create-tenant to create it."
            )
        self._checked(Tenant._meta.get_field("slug").run_validators, slug, "--tenant")
        name = slug.replace("-", " ").title()
        return Tenant.objects.get_or_create(slug=slug, defaults={"name": name})[0]

    def _case_to_open(self, scenario: Scenario | None, options) -> CaseToOpen:
        """The case as given, every field and document checked, before anything is stored."""
        if scenario is not None:
            given = scenario.case
            subject, subject_type, notes = given.subject, given.subject_type, given.notes
            jurisdiction, where = given.jurisdiction or "", "scenario case."
            try:
                documents = [
                    (scenario.document_path(d), d.name, d.sensitive) for d in given.documents
                ]
            except ScenarioError as error:
                raise CommandError(str(error)) from None
        else:
            subject, notes = options["subject"], ""
            subject_type = options["subject_type"] or "company"
            jurisdiction, where = options["jurisdiction"] or "", "--"
            documents = []
        subject = self._checked(clean_subject_name, subject, f"{where}subject")
        jurisdiction = self._checked(clean_jurisdiction, jurisdiction, f"{where}jurisdiction")
        documents += [(Path(p), None, False) for p in options["document"]]
        uploads, given_as = [], {}
        for path, name, sensitive in documents:
            upload = self._read_document(path, name)
            checked = self._checked(check_upload, upload, f"document {upload.name}")
            if checked.sha256 in given_as:  # as the case page refuses a second copy
                raise CommandError(_given_twice(upload.name, given_as[checked.sha256]))
            given_as[checked.sha256] = upload.name
            uploads.append((upload, checked, sensitive))
        return CaseToOpen(subject, subject_type, jurisdiction, notes, uploads)

    def _checked(self, check: Callable[[Any], Any], value: Any, what: str) -> Any:
        """`check(value)`, its ValidationError turned into a one-line CommandError."""
        try:
            return check(value)
        except ValidationError as error:
            raise CommandError(f"{what}: {' '.join(error.messages)}") from None

    def _open_case(self, tenant, user, given: CaseToOpen) -> Case:
        case = do_open_case(
            tenant=tenant,
            user=user,
            subject_name=given.subject,
            subject_type=given.subject_type,
            jurisdiction=given.jurisdiction,
            notes=given.notes,
        )
        for upload, checked, sensitive in given.uploads:
            do_attach_document(case, upload, user=user, sensitive=sensitive, checked=checked)
        return case

    def _read_document(self, path: Path, name: str | None) -> SimpleUploadedFile:
        # A device such as /dev/zero is never read to its end, and a file over the upload
        # limit is not read at all: check_upload refuses it by its size, the file's own.
        limit = settings.ATLAS_UPLOAD_MAX_BYTES
        try:
            found = path.stat()
            if not stat.S_ISREG(found.st_mode):
                raise CommandError(f"document {path} is not a regular file")
            content = b""
            if found.st_size <= limit:
                with path.open("rb") as handle:
                    # One byte over the limit, if it grew since: enough to refuse it by size.
                    content = handle.read(limit + 1)
        except OSError as error:
            raise CommandError(f"cannot read document {path}: {error.strerror}") from None
        upload = WholeNamedUpload(name or path.name, content)
        if found.st_size > limit:
            upload.size = found.st_size
        return upload

    def _print(self, run: Run, *, as_json: bool) -> None:
        record = run_record(run)
        if as_json:
            self.stdout.write(json.dumps(record, indent=2))
            return
        self.stdout.write(
            f"Run {record['run_id']}: {record['status']} / {record['termination_reason']}"
        )
        self.stdout.write(f"  {record['user_status']}")
        self.stdout.write(
            f"  iterations {record['iterations']}, tokens {record['tokens']:,}, "
            f"cost {dollars(Decimal(record['cost_usd']))}"
        )
        packet = record["packet"]
        if packet:
            self.stdout.write(
                f"  packet: risk {packet.get('risk_rating')}, "
                f"{counted(len(packet.get('findings', [])), 'finding')}"
            )
        for conflict in record["conflicts"]:
            values = " vs ".join(
                f"{v['value']} ({v['source_label'] or v['source_id']})" for v in conflict["values"]
            )
            fact = fact_about(conflict["fact"], conflict.get("person", ""))
            self.stdout.write(f"  conflict [{conflict['status']}] {fact}: {values}")
        self.stdout.write("  trace: " + ", ".join(event["type"] for event in record["trace"]))


def check_scenario(path: str) -> None:
    """Refuse, with run_case's own one-line CommandError, a scenario that `run_case
    --scenario PATH` would refuse (atlas_eval checks a whole suite before running any of it)."""
    command = Command()
    parser = command.create_parser("manage.py", "run_case")
    command.checked_input(vars(parser.parse_args([f"--scenario={path}"])))
