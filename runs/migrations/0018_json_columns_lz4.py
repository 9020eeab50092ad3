# A run's state is rewritten whole at every step's two commits; PostgreSQL compresses a
# value that large on each write, and lz4 does it several times faster than the default
# pglz. The other columns hold results and documents' text, written once but read often.

from django.db import migrations

COMPRESSED_COLUMNS = (
    ("runs_run", "state"),
    ("runs_toolcall", "result"),
    ("runs_observation", "data"),
    ("runs_traceevent", "data"),
)


def lz4_available(cursor) -> bool:
    """PostgreSQL 14 or later, built with lz4 (most packaged builds are)."""
    cursor.execute(
        "SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'"
    )
    row = cursor.fetchone()
    return bool(row and row[0])


def set_compression(method: str):
    def apply(apps, schema_editor):
        connection = schema_editor.connection
        if connection.vendor != "postgresql":
            return
        quote = connection.ops.quote_name
        with connection.cursor() as cursor:
            if not lz4_available(cursor):
                return
            for table, column in COMPRESSED_COLUMNS:
                cursor.execute(
                    f"ALTER TABLE {quote(table)} ALTER COLUMN {quote(column)} "
                    f"SET COMPRESSION {method}"
                )

    return apply


class Migration(migrations.Migration):
    dependencies = [("runs", "0017_pending_upload")]

    operations = [
        migrations.RunPython(set_compression("lz4"), set_compression("default")),
    ]
