"""Create the demo tenants and personas. Safe to run again: it only fills in what is missing."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from runs.management.migrated import require_migrated_database
from runs.models import Membership, Tenant

DEMO_PASSWORD = "atlas-demo-2026"

PERSONAS = [
    # username, full name, tenant slug, role
    ("analyst", "Ana Lyst", "demo-bank", Membership.Role.ANALYST),
    ("reviewer", "Rita View", "demo-bank", Membership.Role.REVIEWER),
    ("reviewer2", "Sam Second", "demo-bank", Membership.Role.REVIEWER),
    ("admin", "Ada Admin", "demo-bank", Membership.Role.ADMIN),
    ("outsider", "Otto Side", "harbor-credit", Membership.Role.ANALYST),
]
TENANTS = {"demo-bank": "Demo Bank", "harbor-credit": "Harbor Credit"}


class Command(BaseCommand):
    help = "Create the demo tenants and users (idempotent) and print their logins."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--allow-production",
            action="store_true",
            help="create the demo accounts even with DEBUG off",
        )

    def handle(self, *args, **options) -> None:
        if not settings.DEBUG and not options["allow_production"]:
            raise CommandError(
                "DEBUG is off, so this looks like a production site: the demo accounts (an "
                "admin among them) share a password printed in the README. Create real "
                "accounts with createsuperuser and the Django admin, or pass "
                "--allow-production to create the demo accounts anyway."
            )
        require_migrated_database()  # before the transaction: it reads migration files
        self._seed()

    @transaction.atomic
    def _seed(self) -> None:
        tenants = {
            slug: Tenant.objects.get_or_create(slug=slug, defaults={"name": name})[0]
            for slug, name in TENANTS.items()
        }
        admins = self._admin_group()
        user_model = get_user_model()
        for username, full_name, slug, role in PERSONAS:
            first, last = full_name.split(" ", 1)
            user, created = user_model.objects.get_or_create(
                username=username, defaults={"first_name": first, "last_name": last}
            )
            if created:
                user.set_password(DEMO_PASSWORD)
            user.is_staff = role == Membership.Role.ADMIN
            user.save()
            if user.is_staff:
                user.groups.add(admins)
            Membership.objects.update_or_create(
                user=user, defaults={"tenant": tenants[slug], "role": role}
            )

        self.stdout.write(f"Demo logins (password for all: {DEMO_PASSWORD})")
        for username, full_name, slug, role in PERSONAS:
            self.stdout.write(f"  {username:<10} {role:<9} {TENANTS[slug]}  ({full_name})")

    def _admin_group(self) -> Group:
        """Viewing Atlas's records; which rows, and that nothing is changed, the admin
        classes decide. No account permissions: only a superuser manages users."""
        group, _ = Group.objects.get_or_create(name="Atlas admins")
        group.permissions.set(
            Permission.objects.filter(
                content_type__app_label__in=["runs", "reviews"], codename__startswith="view_"
            )
        )
        return group
