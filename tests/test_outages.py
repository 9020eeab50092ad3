"""A dependency that keeps failing fills the log with one line per failure after the first."""

from __future__ import annotations

import logging

from runs.outages import Outage


def test_a_streak_of_failures_is_logged_in_full_once_then_a_line_each(caplog):
    caplog.set_level(logging.INFO, logger="atlas.test.outage")
    outage = Outage(logging.getLogger("atlas.test.outage"), "Receiving on atlas-runs")
    for _ in range(3):
        try:
            raise ConnectionError("Connection refused")
        except ConnectionError as error:
            outage.failed(error)
    outage.succeeded()
    outage.succeeded()
    records = [(r.levelname, r.getMessage(), bool(r.exc_info)) for r in caplog.records]
    assert records == [
        ("ERROR", "Receiving on atlas-runs failed", True),
        (
            "WARNING",
            "Receiving on atlas-runs failed again (2 in a row): ConnectionError('Connection refused')",
            False,
        ),
        (
            "WARNING",
            "Receiving on atlas-runs failed again (3 in a row): ConnectionError('Connection refused')",
            False,
        ),
        ("INFO", "Receiving on atlas-runs works again after 3 failures", False),
    ]
