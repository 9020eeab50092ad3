from django.db import migrations, models


def fill_subject(apps, schema_editor):
    """Runs from before the columns: the subject their brief says they researched, else
    the case's (no correction existed before these columns)."""
    Run = apps.get_model("runs", "Run")
    for run in Run.objects.select_related("case").iterator():
        brief = (run.state or {}).get("brief")
        if brief and brief.get("subject"):
            # A brief without a jurisdiction researched none, whatever the case says now.
            subject = (brief["subject"], brief.get("subject_type"), brief.get("jurisdiction"))
        else:
            subject = (run.case.subject_name, run.case.subject_type, run.case.jurisdiction)
        name, subject_type, jurisdiction = subject
        Run.objects.filter(pk=run.pk).update(
            subject_name=name[:300],
            subject_type=(subject_type or run.case.subject_type)[:16],
            jurisdiction=(jurisdiction or "")[:2],
        )


class Migration(migrations.Migration):
    dependencies = [("runs", "0011_case_edit")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="subject_name",
            field=models.CharField(blank=True, max_length=300),
        ),
        migrations.AddField(
            model_name="run",
            name="subject_type",
            field=models.CharField(blank=True, max_length=16),
        ),
        migrations.AddField(
            model_name="run",
            name="jurisdiction",
            field=models.CharField(blank=True, max_length=2),
        ),
        migrations.RunPython(fill_subject, migrations.RunPython.noop),
    ]
