"""Commands that read or write runs refuse a database that is not migrated, saying what to
do, instead of failing later with a missing table or column."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.migrations.executor import MigrationExecutor

from atlas.runtime.wording import counted


def require_migrated_database() -> None:
    try:
        executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
        pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except DatabaseError as error:
        raise CommandError(f"Cannot read the database: {error}".strip()) from None
    if pending:
        first = pending[0][0]
        raise CommandError(
            f"The database is missing {counted(len(pending), 'migration')}, starting with "
            f"{first.app_label}.{first.name}: run `python manage.py migrate`, then try again."
        )
