"""Fewer indexes written with every step: the foreign keys of runs, trace events,
observations and tool calls that lead a composite index lose their own index, and the
idempotency key's uniqueness moves to a named constraint, without the pattern-matching
index PostgreSQL adds for unique=True (no query matches keys by prefix).

Only indexes are dropped: altering the fields through the schema editor would also drop
and re-add each foreign key, which validates every existing row under a lock. The new
constraint is in place before the old one goes, so keys are unique throughout."""

import django.db.models.deletion
from django.db import migrations, models

# Created by 0001_initial, named as Django names them on every backend.
FOREIGN_KEY_INDEXES = {
    "runs_run_tenant_id_45914888": ("runs_run", "tenant_id"),
    "runs_run_case_id_ec4452db": ("runs_run", "case_id"),
    "runs_observation_run_id_78bd4d3e": ("runs_observation", "run_id"),
    "runs_toolcall_run_id_d2fbb3a3": ("runs_toolcall", "run_id"),
    "runs_traceevent_run_id_4f38e101": ("runs_traceevent", "run_id"),
}
OLD_KEY_CONSTRAINT = "runs_toolcall_idempotency_key_key"
OLD_KEY_PATTERN_INDEX = "runs_toolcall_idempotency_key_a181459c_like"


def drop_indexes(apps, schema_editor):
    for name in FOREIGN_KEY_INDEXES:
        schema_editor.execute(f'DROP INDEX IF EXISTS "{name}"')
    # On SQLite the old key's uniqueness is part of the table's definition and stays
    # until the table is next rebuilt; it duplicates the new constraint, nothing more.
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f'ALTER TABLE "runs_toolcall" DROP CONSTRAINT "{OLD_KEY_CONSTRAINT}"')
        schema_editor.execute(f'DROP INDEX IF EXISTS "{OLD_KEY_PATTERN_INDEX}"')


def restore_indexes(apps, schema_editor):
    for name, (table, column) in FOREIGN_KEY_INDEXES.items():
        schema_editor.execute(f'CREATE INDEX IF NOT EXISTS "{name}" ON "{table}" ("{column}")')
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            f'ALTER TABLE "runs_toolcall" ADD CONSTRAINT "{OLD_KEY_CONSTRAINT}" '
            'UNIQUE ("idempotency_key")'
        )
        schema_editor.execute(
            f'CREATE INDEX "{OLD_KEY_PATTERN_INDEX}" ON "runs_toolcall" '
            '("idempotency_key" varchar_pattern_ops)'
        )


class Migration(migrations.Migration):
    dependencies = [
        ("runs", "0004_run_state_lz4"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="toolcall",
            constraint=models.UniqueConstraint(
                fields=("idempotency_key",), name="runs_toolcall_idempotency_key_unique"
            ),
        ),
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="observation",
                    name="run",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="observations",
                        to="runs.run",
                    ),
                ),
                migrations.AlterField(
                    model_name="run",
                    name="case",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="runs",
                        to="runs.case",
                    ),
                ),
                migrations.AlterField(
                    model_name="run",
                    name="tenant",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="runs",
                        to="runs.tenant",
                    ),
                ),
                migrations.AlterField(
                    model_name="toolcall",
                    name="idempotency_key",
                    field=models.CharField(max_length=128),
                ),
                migrations.AlterField(
                    model_name="toolcall",
                    name="run",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tool_calls",
                        to="runs.run",
                    ),
                ),
                migrations.AlterField(
                    model_name="traceevent",
                    name="run",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="events",
                        to="runs.run",
                    ),
                ),
            ],
            database_operations=[
                migrations.RunPython(drop_indexes, restore_indexes),
            ],
        ),
    ]
