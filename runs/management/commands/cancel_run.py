"""`manage.py cancel_run RUN_ID --user NAME`: cancel a run from the command line.

The same action as the page's Cancel button: the request is recorded (who, when) and the
worker holding the run stops it within a second, also in the middle of a tool call; a run
whose packet or escalation waits for a reviewer is theirs to end, and is refused here too.
"""

from __future__ import annotations

import time

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from runs.access import has_role
from runs.actions import CancelRefused, do_request_cancel
from runs.management.migrated import require_migrated_database
from runs.models import Membership, Run

CANCEL_ROLES = (Membership.Role.ANALYST, Membership.Role.ADMIN)


class Command(BaseCommand):
    help = "Cancel a run; waits for it to stop and prints its final status."

    def add_arguments(self, parser) -> None:
        parser.add_argument("run_id", type=int)
        parser.add_argument(
            "--user",
            required=True,
            help="The analyst or admin of the run's tenant who cancels (recorded in the audit).",
        )
        parser.add_argument(
            "--wait",
            type=float,
            default=5.0,
            help="Seconds to wait for the run to stop (0: do not wait). Default 5.",
        )

    def handle(self, *args, run_id: int, user: str, wait: float, **options) -> None:
        require_migrated_database()
        if wait < 0:
            raise CommandError("--wait must be 0 or more seconds.")
        run = Run.objects.select_related("tenant").filter(pk=run_id).first()
        if run is None:
            raise CommandError(f"There is no run {run_id}.")
        actor = get_user_model().objects.filter(username=user).first()
        if actor is None:
            raise CommandError(f"There is no user {user!r}.")
        membership = getattr(actor, "membership", None)
        if membership is None or membership.tenant_id != run.tenant_id:
            raise CommandError(f"{user} is not a member of {run.tenant}, which owns run {run_id}.")
        if not has_role(actor, *CANCEL_ROLES):
            raise CommandError(f"{user} is a {membership.role}; only an analyst or admin cancels.")
        if run.is_terminal:
            self.stdout.write(f"Run {run_id} had already ended: {run.status}.")
            return

        try:
            run = do_request_cancel(
                run, actor, reviewer_decides=True, reason="Cancelled from the command line"
            )
        except CancelRefused as refused:
            raise CommandError(refused.message) from None
        deadline = time.monotonic() + wait
        while not run.is_terminal and time.monotonic() < deadline:
            time.sleep(0.1)
            run.refresh_from_db()
        if run.is_terminal:
            self.stdout.write(
                f"Run {run_id}: {run.status} ({run.termination_reason or '-'}). {run.user_status}"
            )
        else:
            self.stdout.write(
                f"Run {run_id}: cancel requested; still {run.status} after {wait:g}s "
                "(its worker stops it at the next check; is a worker running?)."
            )
