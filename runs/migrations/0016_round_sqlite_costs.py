"""Costs written to SQLite before they were rounded on the way in: SQLite kept them as
given (1.5e-06), so sorting and sums disagreed with what pages read back (0.000002).
PostgreSQL rounded them on insert; there is nothing to do there."""

from django.db import migrations


def round_costs(apps, schema_editor):
    if schema_editor.connection.vendor != "sqlite":
        return
    for model_name in ("Run", "ToolCall"):
        model = apps.get_model("runs", model_name)
        # Read back through the field, which rounds; written back through it, which stores
        # the rounded value.
        rows = [
            model(pk=pk, cost_usd=cost) for pk, cost in model.objects.values_list("pk", "cost_usd")
        ]
        model.objects.bulk_update(rows, ["cost_usd"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("runs", "0015_run_previous_lease_owner")]

    operations = [migrations.RunPython(round_costs, migrations.RunPython.noop)]
