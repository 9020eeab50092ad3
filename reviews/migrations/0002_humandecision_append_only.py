"""Human decisions are an audit record: on PostgreSQL the database itself refuses to change
or delete one, so a queryset `.update()`/`.delete()` or hand-written SQL cannot either.

SQLite gets no trigger: Django empties tables with DELETE there between transactional
tests, and SQLite is the development default, not where an audit trail lives.
"""

from django.db import migrations

CREATE = """
CREATE FUNCTION reviews_humandecision_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'Human decisions are append-only: % refused on decision %', TG_OP, OLD.id
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER reviews_humandecision_append_only
    BEFORE UPDATE OR DELETE ON reviews_humandecision
    FOR EACH ROW EXECUTE FUNCTION reviews_humandecision_append_only();
"""
DROP = """
DROP TRIGGER IF EXISTS reviews_humandecision_append_only ON reviews_humandecision;
DROP FUNCTION IF EXISTS reviews_humandecision_append_only();
"""


def on_postgresql(sql: str):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)  # no placeholders: % is PL/pgSQL's

    return run


class Migration(migrations.Migration):
    dependencies = [("reviews", "0001_initial")]

    operations = [migrations.RunPython(on_postgresql(CREATE), on_postgresql(DROP))]
