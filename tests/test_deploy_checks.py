"""What `manage.py check` says of a deployment that is not ready."""

from __future__ import annotations

from runs.checks import static_files_collected


def test_uncollected_static_files_are_flagged_only_in_production(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path
    settings.DEBUG = True
    assert static_files_collected(None) == []
    settings.DEBUG = False
    [warning] = static_files_collected(None)
    assert warning.id == "atlas.W001" and "collectstatic" in warning.hint
    (tmp_path / "staticfiles.json").write_text("{}")
    assert static_files_collected(None) == []
