# The run's state has been compressed with lz4 since 0004. These columns hold tool results
# and documents' text, large enough for PostgreSQL to compress: lz4 writes and reads them
# several times faster than the default pglz.

from django.db import migrations

COMPRESSED_COLUMNS = (
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
