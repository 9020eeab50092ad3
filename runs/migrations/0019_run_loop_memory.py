"""The loop's bookkeeping moves out of the run's jsonb state into a text column (see
runs/run_state.py), compressed with lz4 where the server has it, as the state is."""

from django.db import migrations, models

USE_LZ4 = """
DO $$
BEGIN
    ALTER TABLE runs_run ALTER COLUMN loop_memory SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'lz4 is not available: the loop memory is compressed with pglz';
END $$;
"""


def use_lz4(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(USE_LZ4)


class Migration(migrations.Migration):
    dependencies = [("runs", "0018_json_columns_lz4")]

    operations = [
        migrations.AddField(
            model_name="run",
            name="loop_memory",
            field=models.TextField(blank=True, default="", editable=False),
        ),
        migrations.RunPython(use_lz4, migrations.RunPython.noop, elidable=True),
    ]
