from django.db import migrations, models


def mark_closed_runs(apps, schema_editor):
    """Runs closed before the column existed say so in their state's packet."""
    Run = apps.get_model("runs", "Run")
    closed = [
        run.pk
        for run in Run.objects.filter(termination_reason="packet_approved").only("state").iterator()
        if ((run.state or {}).get("proposed_packet") or {}).get("closed_by_reviewer")
    ]
    Run.objects.filter(pk__in=closed).update(closed_by_reviewer=True)


class Migration(migrations.Migration):
    dependencies = [("runs", "0005_index_diet")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="closed_by_reviewer",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(mark_closed_runs, migrations.RunPython.noop),
    ]
