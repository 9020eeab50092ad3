"""Logging that an operator can read: a refused request (403, 404) is one line, not a
traceback. Django logs those with the exception attached; it says nothing a line does not."""

from __future__ import annotations

import logging


class NoTracebackForClientErrors(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if 400 <= getattr(record, "status_code", 500) < 500:
            record.exc_info = None
            record.exc_text = None
        return True
