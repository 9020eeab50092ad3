"""The businesses a declared source of wealth or of funds names ("dividends from Kestrel
Foods Ltd"): each is screened against the sanctions lists and searched for in the news by
name, as a beneficial owner is. Money from a listed or notorious business is the
subject's exposure to it, however the document describes it; the document's word that
the money comes from there is not checked by anything else."""

from __future__ import annotations

from atlas.runtime.directors import directors, named_in, named_step, not_done
from atlas.runtime.directorships import directorships
from atlas.runtime.owners import owners
from atlas.runtime.state import AtlasState
from atlas.runtime.tools.document_declarations import SOURCE_OF_FUNDS, SOURCE_OF_WEALTH
from atlas.runtime.world.normalize import normalize_name

# How a business screened or searched for this is named in the evidence, by the first
# declaration that names it.
AS_SOURCE = {
    SOURCE_OF_WEALTH: "source-of-wealth business ",
    SOURCE_OF_FUNDS: "source-of-funds business ",
}
# Each is two steps: more would let one form spend the research budget.
MAX_RESEARCHED = 3


def business_step(name: str) -> str:
    """The completed step for screening one declared business."""
    return named_step("screen_declared", name)


def business_media_step(name: str) -> str:
    """The completed step for searching adverse media on one declared business."""
    return named_step("search_declared", name)


def named_businesses(state: AtlasState) -> dict[str, str]:
    """name -> the declared field first naming it, for every business the declarations
    read in the run name, each once, but the subject itself, the companies it is known to
    direct (researched as such, by their registry records), and the subject company's
    directors and owners (researched as such)."""
    named: dict[str, tuple[str, str]] = {}
    for item in state.evidence:
        for name in item.businesses if item.declares else ():
            named.setdefault(normalize_name(name), (name, item.declares))
    if not named:
        return {}
    covered = {normalize_name(state.brief.subject)}
    if state.selected_entity is not None:
        covered.add(normalize_name(state.selected_entity.name))
    covered |= {normalize_name(company.name) for company in directorships(state)}
    covered |= {normalize_name(name) for name in [*directors(state), *owners(state)]}
    named = {key: value for key, value in named.items() if key not in covered}
    return dict(named.values())


def declared_businesses(state: AtlasState) -> list[str]:
    """The declared businesses to research: the first MAX_RESEARCHED named."""
    return list(named_businesses(state))[:MAX_RESEARCHED]


def businesses_beyond_the_limit(state: AtlasState) -> list[str]:
    return list(named_businesses(state))[MAX_RESEARCHED:]


def as_declared_business(state: AtlasState, name: str) -> str:
    """`name` as the evidence about it names it: "source-of-wealth business Kestrel Foods
    Ltd"."""
    field = named_businesses(state).get(name, SOURCE_OF_WEALTH)
    return f"{AS_SOURCE[field]}{name}"


def unscreened_businesses(state: AtlasState) -> list[str]:
    return not_done(state, declared_businesses(state), business_step)


def unsearched_businesses(state: AtlasState) -> list[str]:
    return not_done(state, declared_businesses(state), business_media_step)


def screened_business(state: AtlasState, arguments: dict) -> str | None:
    """The declared business a screen by name alone is for, if any."""
    return named_in(declared_businesses(state), arguments, "name")


def searched_business(state: AtlasState, arguments: dict) -> str | None:
    """The declared business a media search by query alone is for, if any."""
    return named_in(declared_businesses(state), arguments, "query")
