"""The matched entity's registration number gets a column of its own, so the lists can
search by it; runs that matched one before it existed get theirs from their state."""

import re

from django.db import migrations, models


def registration_key(number: str) -> str:
    """As runs/search_text.py had it when this migration was written."""
    return re.sub(r"[\s./-]+", "", number).upper()


def fill_matched_registration(apps, schema_editor):
    Run = apps.get_model("runs", "Run")
    for run in Run.objects.exclude(matched_entity="").only("pk", "state").iterator():
        entity = (run.state or {}).get("selected_entity") or {}
        if number := registration_key(entity.get("registration_number") or "")[:64]:
            Run.objects.filter(pk=run.pk).update(matched_registration=number)


class Migration(migrations.Migration):
    dependencies = [("runs", "0019_run_loop_memory")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="matched_registration",
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.RunPython(fill_matched_registration, migrations.RunPython.noop),
    ]
