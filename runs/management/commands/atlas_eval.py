"""Run an evaluation suite and check every run against its expectations."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.template.loader import render_to_string
from django.utils import timezone

from atlas.runtime.money import dollars
from runs import metrics
from runs.evaluation import Result, SuiteError, load_suite, run_case
from runs.management.commands.run_case import check_model
from runs.management.migrated import require_migrated_database
from runs.models import Run
from runs.views.charts import fmt


class Command(BaseCommand):
    help = (
        "Run every scenario in SUITE_DIR (NAME.json + NAME.expect.json), print a result table "
        "and the loop metrics, write an HTML report; exit 1 if any expectation fails."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("suite", help="Directory of scenario files, e.g. evals/standard")
        parser.add_argument("--html", default="eval-report.html", help="Where to write the report")
        parser.add_argument(
            "--model", help="playbook | scripted:FILE | openai:MODEL for every scenario"
        )
        parser.add_argument("--tenant", default="atlas-eval", help="Tenant slug the runs belong to")
        parser.add_argument(
            "--only", action="append", default=[], help="Run only this scenario (repeatable)"
        )

    def handle(self, *args, **options) -> None:
        # Bad usage is refused before anything runs, as run_case refuses it.
        if options["model"]:
            check_model(options["model"], "--model")
        html_path = self._report_path(options["html"])
        require_migrated_database()
        try:
            cases = load_suite(options["suite"])
        except SuiteError as error:
            raise CommandError(str(error)) from None
        if options["only"]:
            unknown = set(options["only"]) - {case.name for case in cases}
            if unknown:
                raise CommandError(f"no scenario named {', '.join(sorted(unknown))} in the suite")
            cases = [case for case in cases if case.name in options["only"]]

        results: list[Result] = []
        for case in cases:
            result = run_case(case, tenant=options["tenant"], model=options["model"])
            results.append(result)
            mark = "PASS" if result.passed else "FAIL"
            self.stdout.write(f"{mark}  {case.name}  ({result.seconds:.1f}s)")
        self._print_table(results)
        overall = metrics.overall(
            Run.objects.filter(pk__in=[r.run_id for r in results if r.run_id])
        )
        self._print_metrics(overall)
        html_path.write_text(self._report(results, overall, options), encoding="utf-8")
        failed = [r for r in results if not r.passed]
        self.stdout.write(f"\nReport: {html_path}")
        if failed:
            self.stderr.write(
                "The scenario failed its expectations."
                if len(results) == 1
                else f"{len(failed)} of {len(results)} scenarios failed their expectations."
            )
            sys.exit(1)
        self.stdout.write(
            "The scenario met its expectations."
            if len(results) == 1
            else f"All {len(results)} scenarios met their expectations."
        )

    def _report_path(self, given: str) -> Path:
        """Where the report goes, refused now if it could not be written after the runs."""
        path = Path(given)
        if path.is_dir():
            problem = f"{path} is a directory"
        elif not path.parent.is_dir():
            missing = "is not a directory" if path.parent.exists() else "does not exist"
            problem = f"{path.parent} {missing}"
        elif not os.access(path if path.exists() else path.parent, os.W_OK):
            problem = f"{path if path.exists() else path.parent} is not writable"
        else:
            return path
        raise CommandError(f"cannot write the report: {problem}")

    def _print_table(self, results: list[Result]) -> None:
        header = ("scenario", "expected", "outcome", "events", "iter", "cost", "result")
        rows = [
            (
                r.case.name,
                r.expected,
                r.outcome,
                str(len(r.record["trace"])) if r.record else "—",
                str(r.record["iterations"]) if r.record else "—",
                dollars(r.record["cost_usd"]) if r.record else "—",
                "pass" if r.passed else "FAIL",
            )
            for r in results
        ]
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        line = "  ".join(f"{{:<{w}}}" for w in widths)
        self.stdout.write("")
        self.stdout.write(line.format(*header))
        self.stdout.write(line.format(*("-" * w for w in widths)))
        for row, result in zip(rows, results, strict=True):
            self.stdout.write(line.format(*row))
            for failure in result.failures:
                self.stdout.write(f"    ✗ {failure}")

    def _print_metrics(self, overall: metrics.MetricRow) -> None:
        runs = "this run" if overall.runs == 1 else f"these {overall.runs} runs"
        self.stdout.write(f"\nLoop metrics over {runs}:")
        for key, label, unit in metrics.METRICS:
            self.stdout.write(f"  {label:<40} {fmt(overall.values.get(key), unit)}")
        reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(overall.reasons.items()))
        self.stdout.write(f"  {'Termination reasons':<40} {reasons or '—'}")

    def _report(self, results: list[Result], overall: metrics.MetricRow, options) -> str:
        return render_to_string(
            "runs/eval_report.html",
            {
                "suite": options["suite"],
                "model": options["model"] or "as each scenario says",
                "generated_at": timezone.now(),
                "results": results,
                "passed": sum(r.passed for r in results),
                "failed": sum(not r.passed for r in results),
                "metrics": [
                    (label, fmt(overall.values.get(key), unit))
                    for key, label, unit in metrics.METRICS
                ],
                "reasons": sorted(overall.reasons.items()),
            },
        )
