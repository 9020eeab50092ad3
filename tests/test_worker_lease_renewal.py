"""Renewing leases: a run that ends while its lease is being renewed was let go of, not
lost; a run still driven whose lease is gone is lost, and says so."""

from __future__ import annotations

import asyncio
import logging

from runs.worker import DrivenRun, RunWorker


def _renewal(worker: RunWorker, run_ends_meanwhile: bool, holds: bool = True) -> DrivenRun:
    driven = DrivenRun(run_id=12, lease_seconds=15, holds=holds)
    worker.driven[12] = driven

    async def renew_leases(function, owner, run_ids):
        if run_ends_meanwhile:
            del worker.driven[12]  # the run finished and released its lease
        return []

    worker.db = renew_leases
    asyncio.run(worker._renew())
    return driven


def test_a_run_that_ends_while_its_lease_is_renewed_is_not_reported_lost(caplog):
    worker = RunWorker(sweeping=False)
    with caplog.at_level(logging.WARNING, logger="runs.worker"):
        driven = _renewal(worker, run_ends_meanwhile=True)
    assert not driven.lost.is_set()
    assert "lost the lease" not in caplog.text


def test_a_run_still_driven_whose_lease_is_gone_is_lost(caplog):
    worker = RunWorker(sweeping=False)
    with caplog.at_level(logging.WARNING, logger="runs.worker"):
        driven = _renewal(worker, run_ends_meanwhile=False)
    assert driven.lost.is_set()
    assert "lost the lease on run 12" in caplog.text


def test_a_run_whose_claim_is_still_being_tried_is_not_reported_lost(caplog):
    """Woken for a run, the worker registers it before its claim: another worker's sweep
    may hold it, and then this worker never had a lease to lose."""
    worker = RunWorker(sweeping=False)
    with caplog.at_level(logging.WARNING, logger="runs.worker"):
        driven = _renewal(worker, run_ends_meanwhile=False, holds=False)
    assert not driven.lost.is_set()
    assert "lost the lease" not in caplog.text
