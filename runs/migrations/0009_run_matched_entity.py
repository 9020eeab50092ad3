from django.db import migrations, models


def fill_matched_entity(apps, schema_editor):
    """Runs from before the column: the entity their state says the subject matched."""
    Run = apps.get_model("runs", "Run")
    for run in Run.objects.exclude(state={}).only("state").iterator():
        entity = (run.state or {}).get("selected_entity")
        if entity:
            label = f"{entity.get('name', '')} ({entity.get('jurisdiction', '')})"[:300]
            Run.objects.filter(pk=run.pk).update(matched_entity=label)


class Migration(migrations.Migration):
    dependencies = [("runs", "0008_document_personal_data")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="matched_entity",
            field=models.CharField(blank=True, max_length=300),
        ),
        migrations.RunPython(fill_matched_entity, migrations.RunPython.noop),
    ]
