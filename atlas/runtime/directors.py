"""The directors of the subject company, and which of them are researched: each is
screened against the sanctions lists and searched for adverse media by name, as steps of
their own. A company run by someone under investigation is exposed to it."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable

from atlas.runtime.state import AtlasState
from atlas.runtime.tools.schemas import NAME_MAX_LENGTH, QUERY_MAX_LENGTH, QUERY_MIN_LENGTH
from atlas.runtime.world.normalize import normalize_person, phonetic_skeleton

# How a directors fact's display value joins the names a source gives.
SEPARATOR = ", "


def director_key(name: str) -> str:
    """One director however a source spells the name: "Dmitri Volkov" in a document is the
    registry's "Dmitry Volkov", to screen once and to raise no conflict over."""
    return phonetic_skeleton(normalize_person(name))


def director_step(name: str) -> str:
    """The completed step for screening one director. A hash, not the name: names come
    from tools, and steps are shown to the model outside the untrusted-data fence."""
    return named_step("screen_director", name)


def director_media_step(name: str) -> str:
    """The completed step for searching adverse media on one director."""
    return named_step("search_director", name)


def named_step(kind: str, name: str) -> str:
    """A completed step about one named person (`kind` says what was done): a hash of the
    name, which comes from a tool."""
    return f"{kind}:{hashlib.sha256(normalize_person(name).encode()).hexdigest()[:10]}"


def directors(state: AtlasState) -> list[str]:
    """The people any source names as directors of the selected company, each once. Once a
    reviewer settles a conflict over them, only the value they chose counts."""
    selected = state.selected_entity
    if selected is None or selected.entity_type != "company":
        return []
    facts = [f for f in state.facts if f.fact == "directors" and f.entity_id == selected.entity_id]
    for conflict in state.conflicts:
        chosen = conflict.resolution.value if conflict.resolution else None
        if chosen and conflict.fact == "directors" and conflict.entity_id == selected.entity_id:
            facts = [f for f in facts if f.display_value == chosen]
    # A source naming the subject among its own directors adds nothing to screen: the
    # subject's screening covers that name.
    subject_names = {director_key(state.brief.subject), director_key(selected.name)}
    names: dict[str, str] = {}
    for fact in facts:
        for name in fact.display_value.split(SEPARATOR):
            names.setdefault(director_key(name), name.strip())
    return [name for key, name in names.items() if key and key not in subject_names]


def screenable(name: str) -> bool:
    """Whether the screening tool takes the name (a source may give one it refuses)."""
    return 0 < len(name) <= NAME_MAX_LENGTH


def searchable(name: str) -> bool:
    """Whether the media search takes the name as its query."""
    return QUERY_MIN_LENGTH <= len(name) <= QUERY_MAX_LENGTH


def unscreened_directors(state: AtlasState) -> list[str]:
    return not_done(state, directors(state), director_step)


def unsearched_directors(state: AtlasState) -> list[str]:
    return not_done(state, directors(state), director_media_step)


def not_done(state: AtlasState, names: list[str], step: Callable[[str], str]) -> list[str]:
    """The people of `names` whose `step` (director_step, ...) is not done yet."""
    done = set(state.completed_steps)
    return [name for name in names if step(name) not in done]


def screened_director(state: AtlasState, arguments: dict) -> str | None:
    """The director a screen by name alone is for; None when the screen is of the subject
    itself (by entity id, or by a name no director has, such as the subject's own)."""
    return named_in(directors(state), arguments, "name")


def searched_director(state: AtlasState, arguments: dict) -> str | None:
    """The director a media search by query alone is for, as `screened_director` reads a
    screen."""
    return named_in(directors(state), arguments, "query")


def named_in(names: list[str], arguments: dict, field: str) -> str | None:
    """The one of `names` a call by name alone (`field` of `arguments`) is for, however it
    is spelled; None for a call by entity id or by another name."""
    name = arguments.get(field)
    if not name or arguments.get("entity_id") or not names:
        return None
    key = director_key(name)
    return next((named for named in names if director_key(named) == key), None)


# How a person screened or searched as a director is named in the evidence ("director
# James Whitfield"), once only a value a reviewer set aside names them so, and while only
# some of the values of a conflict nobody settled yet name them so.
AS_DIRECTOR = "director "
SET_ASIDE = "named a director only by a source the reviewer set aside"
DISPUTED = "named a director only by some of the sources, which disagree"


def set_aside(values: Iterable[str], chosen: str) -> set[str]:
    """The directors (by director_key) the values of a settled directors conflict name
    that the value the reviewer chose does not."""
    kept = {director_key(name) for name in chosen.split(SEPARATOR)}
    named = {director_key(name) for value in values for name in value.split(SEPARATOR)}
    return named - kept


def disputed(values: Iterable[str]) -> set[str]:
    """The directors (by director_key) some values of an open directors conflict name and
    others do not."""
    named_by_each = [{director_key(name) for name in value.split(SEPARATOR)} for value in values]
    if not named_by_each:
        return set()
    return set.union(*named_by_each) - set.intersection(*named_by_each)


def as_settled_in(state: dict) -> Callable[[str], str]:
    """`as_settled_by` for a run's stored state."""
    conflicts = (
        (
            [str(v.get("value", "")) for v in c.get("values") or []],
            (c.get("resolution") or {}).get("value"),
            c.get("status"),
        )
        for c in state.get("conflicts") or []
        if c.get("fact") == "directors"
    )
    abouts = [str(e.get("about") or "") for e in state.get("evidence") or []]
    return as_settled_by(conflicts, abouts)


def as_settled_by(
    conflicts: Iterable[tuple[list[str], str | None, str | None]], abouts: Iterable[str]
) -> Callable[[str], str]:
    """`as_settled` for directors `conflicts`, each its values, the value a reviewer chose
    (None for none) and its status: the directors named only by the values a reviewer set
    aside, and for every conflict still open, those only some of its values name."""
    keys_set_aside: set[str] = set()
    keys_disputed: set[str] = set()
    for values, chosen, status in conflicts:
        if chosen:
            keys_set_aside |= set_aside(values, chosen)
        elif status != "resolved":
            keys_disputed |= disputed(values)
    return as_settled(abouts, keys_set_aside, keys_disputed)


def as_settled(
    abouts: Iterable[str], keys_set_aside: set[str], keys_disputed: Iterable[str] = ()
) -> Callable[[str], str]:
    """Rewrites a text naming one of `abouts` (evidence items' `about`) as a director,
    when the reviewer set that director aside: "director James Whitfield" becomes
    "James Whitfield (named a director only by a source the reviewer set aside)"; and when
    only some values of a conflict still open name them (DISPUTED)."""
    keys_disputed = set(keys_disputed) - keys_set_aside
    named: dict[str, str] = {}
    for about in abouts:
        if not about.startswith(AS_DIRECTOR):
            continue
        key = director_key(about.removeprefix(AS_DIRECTOR))
        if key in keys_set_aside:
            named[about] = SET_ASIDE
        elif key in keys_disputed:
            named[about] = DISPUTED

    def settled(text: str) -> str:
        for about, why in named.items():
            name = about.removeprefix(AS_DIRECTOR)
            # Already in brackets ("2 adverse articles (on director X)"): none inside them.
            text = text.replace(f"{about})", f"{name}, {why})")
            text = text.replace(about, f"{name} ({why})")
        return text

    return settled
