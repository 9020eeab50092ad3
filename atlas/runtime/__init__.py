"""Atlas agent runtime core: plain Python + pydantic, no ORM.

The host (Django's ``runs`` app, or a headless script) builds a :class:`Runtime` with
:func:`atlas.runtime.engine.build_runtime` and drives it; storage, clock, cancellation
and uploaded documents are reached through the small interfaces in ``ports``.
"""
