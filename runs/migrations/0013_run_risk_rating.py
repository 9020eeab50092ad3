from django.db import migrations, models


def fill_risk_rating(apps, schema_editor):
    """Runs from before the column: the rating of the packet their state says they proposed."""
    Run = apps.get_model("runs", "Run")
    for run in Run.objects.exclude(state={}).only("state").iterator():
        packet = (run.state or {}).get("proposed_packet") or {}
        if packet.get("risk_rating"):
            Run.objects.filter(pk=run.pk).update(risk_rating=str(packet["risk_rating"])[:8])


class Migration(migrations.Migration):
    dependencies = [("runs", "0012_run_subject")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="risk_rating",
            field=models.CharField(blank=True, max_length=8),
        ),
        migrations.RunPython(fill_risk_rating, migrations.RunPython.noop),
    ]
