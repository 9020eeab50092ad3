"""A dependency that keeps failing (the channel layer while Redis restarts) is logged as
people read logs: the first failure of a streak in full, each repeat in one line, and
the end of the streak."""

from __future__ import annotations

import logging


class Outage:
    def __init__(self, logger: logging.Logger, what: str) -> None:
        self.logger = logger
        self.what = what
        self.failures = 0

    def failed(self, error: BaseException, about: str = "") -> None:
        """`about`: what this failure was for, such as a run's number."""
        self.failures += 1
        what = f"{self.what} ({about})" if about else self.what
        if self.failures == 1:
            self.logger.error("%s failed", what, exc_info=error)
        else:
            self.logger.warning("%s failed again (%s in a row): %r", what, self.failures, error)

    def succeeded(self) -> None:
        if self.failures:
            self.logger.info("%s works again after %s failures", self.what, self.failures)
        self.failures = 0
