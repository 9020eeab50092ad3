"""The four due-diligence tools, running over the synthetic world."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from decimal import Decimal
from typing import TypeVar

from pypdf.errors import LimitReachedError

from atlas.runtime.countries import country_code, nationality_codes
from atlas.runtime.ports import DocumentUnreadable
from atlas.runtime.redaction import personal_data_found, redact
from atlas.runtime.redaction_mrz import misread_birth_dates, mrz_holders
from atlas.runtime.tools.base import DocumentUnavailable, ToolContext, ToolNotFound, ToolSpec
from atlas.runtime.tools.document_birth_years import (
    birth_year_entry,
    birth_years_labelled,
    birth_years_listed,
    written_year,
)
from atlas.runtime.tools.document_declarations import DECLARATION_LABEL, declarations
from atlas.runtime.tools.document_directors import (
    BoardRow,
    board_table_rows,
    director_block_lines,
    directors_in_blocks,
    directors_in_prose,
    names_listed,
)
from atlas.runtime.tools.document_nationalities import (
    NATIONALITY_WORD,
    nationalities_listed,
    nationality_entry,
)
from atlas.runtime.tools.document_owners import (
    OWNERS_LABEL,
    owner_birth_years,
    owner_nationalities,
    owner_residences,
    owner_shares,
    owners_named,
    share_entry,
)
from atlas.runtime.tools.document_residences import (
    RESIDENCE_WORD,
    prose_sentences,
    residence_entry,
    residences_listed,
    said_beside_names,
    sentences_naming,
)
from atlas.runtime.tools.document_tables import CELL_BREAK
from atlas.runtime.tools.schemas import (
    Article,
    Candidate,
    DirectorListing,
    ExtractDocumentArgs,
    ExtractDocumentResult,
    ListedEntity,
    PepMatch,
    RegistryRecord,
    ResolveEntityArgs,
    ResolveEntityResult,
    SanctionsHit,
    ScreenSanctionsArgs,
    ScreenSanctionsResult,
    SearchAdverseMediaArgs,
    SearchAdverseMediaResult,
    other_entity_type,
)
from atlas.runtime.wording import counted
from atlas.runtime.world import (
    HALF_A_NAME_PENALTY,
    INITIAL_PENALTY,
    LACKING_WORD_PENALTY,
    NAMED_IN_THE_TEXT,
    SPELLED_AS_ITS_NAME,
    SPELLING_PENALTY,
    World,
)
from atlas.runtime.world.normalize import is_registration_number

CANDIDATE_THRESHOLD = 80.0
STRONG_MATCH = 90.0
AMBIGUITY_MARGIN = 5.0
SANCTIONS_THRESHOLD = 90.0
MEDIA_THRESHOLD = 60.0
MAX_OTHER_TYPE_MATCHES = 3
MAX_DIRECTORSHIPS_BY_NAME = 10
# The same name, or the name spelled apart but read alike (which loses SPELLING_PENALTY).
SAME_NAME = 100 - SPELLING_PENALTY
# How name_score treats initials and names found inside longer ones, as results say it.
NAME_RULES = (
    f"an initial stands for a name it starts, {INITIAL_PENALTY} points less; a name found "
    f"inside a longer one loses {LACKING_WORD_PENALTY} points for each word it lacks, and "
    f"{HALF_A_NAME_PENALTY} more when it has no more than half of them; names spelled apart "
    f"but read alike (Wolkow and Volkov, Joukov and Zhukov) lose {SPELLING_PENALTY}, "
    "German, French, Polish, Czech, Spanish, Italian and Ukrainian spellings of Russian names "
    "(Jelzin, Eltsine, Jelcyn for Yeltsin; Chruščov, Jrushchov for Khrushchev) included, and "
    "the Ukrainian, Belarusian and Polish forms of Russian given names (Mykola, Mikołaj for "
    "Nikolai; Ihor Hirkin for Igor Girkin; Hienadz Tsimchanka for Gennady Timchenko)"
)


def _record(entity: dict, world: World) -> RegistryRecord:
    fields = {k: entity.get(k) for k in RegistryRecord.model_fields if k in entity}
    fields["directorships"] = [
        {
            "entity_id": company["entity_id"],
            "name": company["name"],
            "jurisdiction": company["jurisdiction"],
        }
        for company in map(world.entities_by_id.get, entity.get("directorships", []))
        if company is not None
    ]
    return RegistryRecord.model_validate(fields)


def _is_its_number(query: str, entity: dict) -> bool:
    """Whether the query is the entity's registration number, however it is written: an
    analyst may give a company by its number."""
    return is_registration_number(query, entity.get("registration_number"))


def _named_as_director(name: str, world: World) -> list[DirectorListing]:
    """Companies, in any country, whose records list a director of that very name, or the
    name in another spelling (Petraitytė, Dmitry Wolkow): a director's country is not
    their company's. A similar name (Luisa for Luis) is someone else."""
    listings = []
    for entity in world.entities:
        if entity["entity_type"] != "company":
            continue
        score, listed_as = world.best_name_match(name, entity.get("directors") or [])
        if score >= SAME_NAME:
            listings.append(
                DirectorListing(
                    entity_id=entity["entity_id"],
                    name=entity["name"],
                    jurisdiction=entity["jurisdiction"],
                    listed_as=listed_as,
                    score=score,
                    record=_record(entity, world),
                )
            )
    listings.sort(key=lambda listing: (-listing.score, listing.entity_id))
    return listings[:MAX_DIRECTORSHIPS_BY_NAME]


def resolve_entity(args: ResolveEntityArgs, ctx: ToolContext) -> ResolveEntityResult:
    world = ctx.world
    scored: list[Candidate] = []
    other_type: list[str] = []
    for entity in world.entities:
        score, matched = world.best_name_match(args.name, world.entity_names(entity))
        if _is_its_number(args.name, entity):
            score, matched = 100.0, entity["registration_number"]
        if score < CANDIDATE_THRESHOLD:
            continue
        if args.entity_type and entity["entity_type"] != args.entity_type:
            in_reach = not args.jurisdiction or entity["jurisdiction"] == args.jurisdiction
            if score >= STRONG_MATCH and in_reach:
                other_type.append(f"{entity['name']} ({entity['jurisdiction']})")
            continue
        scored.append(
            Candidate(
                entity_id=entity["entity_id"],
                name=entity["name"],
                entity_type=entity["entity_type"],
                jurisdiction=entity["jurisdiction"],
                registration_number=entity.get("registration_number"),
                score=score,
                matched_on=matched,
                record=_record(entity, world),
            )
        )
    named_as_director = _named_as_director(args.name, world) if args.entity_type == "person" else []
    excluded = 0
    if args.jurisdiction:
        in_jurisdiction = [c for c in scored if c.jurisdiction == args.jurisdiction]
        excluded = len(scored) - len(in_jurisdiction)
        scored = in_jurisdiction
    scored.sort(key=lambda c: (-c.score, c.entity_id))
    return ResolveEntityResult(
        query=args.name,
        candidates=scored[:5],
        named_as_director=named_as_director,
        excluded_by_jurisdiction=excluded,
        other_type_matches=other_type[:MAX_OTHER_TYPE_MATCHES],
        other_type=other_entity_type(args.entity_type) if other_type else None,
        thresholds={
            "candidate": CANDIDATE_THRESHOLD,
            "strong_match": STRONG_MATCH,
            "ambiguity_margin": AMBIGUITY_MARGIN,
        },
        explanation=(
            f"Names are compared after transliteration and dropping legal forms and titles "
            f"({NAME_RULES}); a registration number matches its entity at 100, however it is "
            f"spaced or padded; candidates score at least {CANDIDATE_THRESHOLD:g}/100. A match "
            f"is unambiguous when the best scores {STRONG_MATCH:g} or more and leads the next by "
            f"{AMBIGUITY_MARGIN:g} or more."
            + (
                f" For a person, named_as_director lists the companies, in any country, whose "
                f"records list a director of the same name, or of the name in another spelling "
                f"(scoring {SAME_NAME:g} or more)."
                if args.entity_type == "person"
                else ""
            )
            + (
                f" {counted(excluded, 'candidate')} outside {args.jurisdiction}"
                f" {'was' if excluded == 1 else 'were'} excluded."
                if excluded
                else ""
            )
        ),
    )


def screen_sanctions(args: ScreenSanctionsArgs, ctx: ToolContext) -> ScreenSanctionsResult:
    world = ctx.world
    names: list[str] = []
    if args.entity_id:
        entity = world.entities_by_id.get(args.entity_id)
        if entity is None:
            raise ToolNotFound(f"Unknown entity id: {args.entity_id}")
        names.extend(world.entity_names(entity))
    if args.name:
        names.append(args.name)
    hits: list[SanctionsHit] = []
    for entry in world.sanctions:
        listed = [entry["name"], *entry.get("aliases", [])]
        best = (0.0, "", "")
        matched_aliases: list[str] = []
        for query in names:
            for listed_name in listed:
                score = world.best_name_match(query, [listed_name])[0]
                if (
                    score >= SANCTIONS_THRESHOLD
                    and listed_name != entry["name"]
                    and listed_name not in matched_aliases
                ):
                    matched_aliases.append(listed_name)
                if score > best[0]:
                    best = (score, query, listed_name)
        if best[0] >= SANCTIONS_THRESHOLD:
            hits.append(
                SanctionsHit(
                    entry_id=entry["entry_id"],
                    list=entry["list"],
                    listed_name=entry["name"],
                    score=best[0],
                    aliases_matched=matched_aliases,
                    matched_query=best[1],
                    programs=entry.get("programs", []),
                    listed_on=entry.get("listed_on", ""),
                    linked_entity=_linked_entity(world, entry.get("entity_id")),
                    born_years=entry.get("born_years") or [],
                    nationalities=entry.get("nationalities") or [],
                )
            )
    hits.sort(key=lambda h: (-h.score, h.entry_id))
    lists = sorted({entry["list"] for entry in world.sanctions})
    return ScreenSanctionsResult(
        entity_id=args.entity_id,
        screened_names=names,
        lists_checked=lists,
        hits=hits,
        pep_matches=_pep_matches(world, names),
        threshold=SANCTIONS_THRESHOLD,
        explanation=(
            f"Every screened name and alias is compared with every listed name and alias "
            f"(transliterated, without titles; {NAME_RULES}); {SANCTIONS_THRESHOLD:g}/100 or "
            "more is a hit. The names are also compared, the same way, with the register of "
            "politically exposed persons: a match there is not a sanctions hit. A hit whose "
            "list entry is linked to a registry entity names it (linked_entity)."
        ),
    )


def _linked_entity(world: World, entity_id: str | None) -> ListedEntity | None:
    entity = world.entities_by_id.get(entity_id) if entity_id else None
    if entity is None:
        return None
    return ListedEntity(
        entity_id=entity["entity_id"],
        name=entity["name"],
        entity_type=entity["entity_type"],
        jurisdiction=entity["jurisdiction"],
        registration_number=entity.get("registration_number"),
        born_year=entity.get("born_year"),
        directs=entity.get("directorships") or [],
    )


def _pep_matches(world: World, names: list[str]) -> list[PepMatch]:
    matches = []
    for person in world.politically_exposed:
        score, query = max(
            (world.best_name_match(query, world.entity_names(person))[0], query) for query in names
        )
        if score >= SANCTIONS_THRESHOLD:
            matches.append(
                PepMatch(
                    entity_id=person["entity_id"],
                    name=person["name"],
                    jurisdiction=person["jurisdiction"],
                    role=person.get("role") or "public office",
                    score=score,
                    matched_query=query,
                    born_year=person.get("born_year"),
                    relation=person.get("pep_relation"),
                )
            )
    return sorted(matches, key=lambda m: (-m.score, m.entity_id))


def search_adverse_media(
    args: SearchAdverseMediaArgs, ctx: ToolContext
) -> SearchAdverseMediaResult:
    world = ctx.world
    if args.entity_id and args.entity_id not in world.entities_by_id:
        raise ToolNotFound(f"Unknown entity id: {args.entity_id}")
    found: list[Article] = []
    for article in world.articles:
        if args.entity_id:
            if args.entity_id not in article.get("entity_ids", []):
                continue
            score = 100.0
        else:
            score = world.article_matches_query(article, args.query)
            if score < MEDIA_THRESHOLD:
                continue
        found.append(
            Article(
                article_id=article["article_id"],
                url=article["url"],
                title=article["title"],
                outlet=article["outlet"],
                date=article["date"],
                snippet=article["text"][:240],
                text=article["text"],
                entity_ids=article.get("entity_ids", []),
                entities={
                    entity_id: f"{entity['name']} ({entity['jurisdiction']})"
                    for entity_id in article.get("entity_ids", [])
                    if (entity := world.entities_by_id.get(entity_id))
                },
                signals=article.get("signals", []),
                facts=article.get("facts", {}),
                score=score,
            )
        )
    found.sort(key=lambda a: (-a.score, a.date, a.article_id))
    return SearchAdverseMediaResult(
        query=args.query,
        entity_id=args.entity_id,
        articles=found[:10],
        explanation=(
            "With entity_id, every article linked to that entity is returned; otherwise "
            "articles whose subject's name appears in the query, or which the query names "
            f"in another spelling (scoring {SPELLED_AS_ITS_NAME:g} or more as names are "
            "compared for sanctions), or whose title or text gives the query word for word "
            f"as a name of two words or more (scoring {NAMED_IN_THE_TEXT:g}, whoever the "
            "article is linked to)."
        ),
    )


# Shorter than this, "registration number 12" is a form's item number, not a company's.
MIN_NUMBER_LENGTH = 5
# Fields other than personal data, which is found as redaction finds it.
_FIELD_PATTERNS = {
    # A number may be written in groups ("0881 2345", "SC 123456"): each group after an
    # optional letter prefix holds a digit, so the words after the number are not read.
    "registration_numbers": re.compile(
        r"(?i:(?:company\s+)?(?:registration|registered|reg\.?)|company)\s*(?i:number|no\.?)"
        r"\s*:?\s*"
        r"(?P<value>(?:[A-Z]{1,3}[ -]?)?\d[\dA-Z-]*(?:[ ]\d[\dA-Z-]*)*)"
    ),
    # Labels that name a company only ("Legal name" may be a person's), the name on the
    # label's line or, in a form, the next.
    "company_names": re.compile(
        r"(?im)^[ \t]*(?:(?:registered[ \t]+)?company(?:'s)?(?:[ \t]+name)?"
        r"|name[ \t]+of[ \t]+(?:the[ \t]+)?company)[ \t]*:[ \t]*(?:\n[ \t]*)?"
        r"(?P<value>[^\s:][^:\n]*?)[ \t]*$"
    ),
    "directors": re.compile(r"(?im)^[ \t]*directors?[ \t]*:[ \t]*(?P<value>\S.*?)[ \t]*$"),
    # Where the person a form is about lives: a country, or an address ending in one.
    "residence": re.compile(
        r"(?im)^[ \t]*(?:country[ \t]+of[ \t]+residence|residence(?:[ \t]+country)?"
        r"|(?:residential|home|permanent)[ \t]+address)[ \t]*:[ \t]*(?P<value>\S.*?)[ \t]*$"
    ),
    # The countries the person a form is about is a national of ("Nationality: Iranian"),
    # in a passport's words too ("Nationality / Nationalité: BRITISH CITIZEN").
    "nationality": re.compile(
        r"(?im)^[ \t]*(?:nationalit(?:y|ies)|citizenships?)(?:[ \t]*/[ \t]*[^\W\d_]+)?[ \t]*:"
        r"[ \t]*(?P<value>\S.*?)[ \t]*$"
    ),
    # Whom a person's form is about: its name label's value (person_name_given trims it).
    "person_names": re.compile(
        r"(?im)^[ \t]*(?:(?:full|client(?:'s)?|applicant(?:'s)?|declarant(?:'s)?)[ \t]+name"
        r"|name[ \t]+of[ \t]+(?:the[ \t]+)?(?:client|applicant|declarant)|declarant|name)"
        r"[ \t]*:[ \t]*(?P<value>\S[^\n]*)$"
    ),
}

# A person's name as a form gives it: words of letters, with initials, titles, hyphens,
# apostrophes and a comma ("LINDEN, Sarah"), six at most.
_PERSON_NAME = re.compile(r"[^\W\d_][\w'’.-]*(?:,?[ ][^\W\d_][\w'’.-]*){0,5}")


def person_name_given(value: str) -> str | None:
    """The name a form's name label gives: up to a column gap ("Sarah Linden   Nationality:
    British"), the next label's word ("Sarah Linden Nationality: British") or a comma
    after a whole name ("Sarah Linden, Director"); None for a value that is not a name
    ("(in capitals)", "________")."""
    value = CELL_BREAK.split(value, maxsplit=1)[0].strip()
    if ":" in value:
        before_label = value.split(":", 1)[0]
        value = before_label.rsplit(" ", 1)[0] if " " in before_label else ""
    name, comma, _ = value.partition(",")
    if comma and " " in name.strip():
        value = name  # "Sarah Linden, Director"; not "LINDEN, Sarah"
    value = value.strip(" ,;")
    return value if _PERSON_NAME.fullmatch(value) else None


# A form's labels side by side on one line, as a PDF's columns come out of it: "Company:
# Harrow Bay Freight Ltd   Directors: Colin Marsh   UBO: Dmitri Volkov". A run of spaces, a
# tab or a bar before a label of the fields above, of the beneficial owners, or of where
# the money comes from starts a line of its own.
_LABEL_BESIDE_ANOTHER = re.compile(
    r"(?i)(?:[ \t]{2,}|\t|[ \t]*\|[ \t]*)(?=(?:(?:registered[ \t]+)?company(?:'s)?(?:[ \t]+name)?"
    r"|name[ \t]+of[ \t]+(?:the[ \t]+)?company|directors?|(?:company[ \t]+)?registration"
    r"[ \t]+(?:number|no\.?)|country[ \t]+of[ \t]+residence|nationality|citizenship"
    rf"|{OWNERS_LABEL}|{DECLARATION_LABEL})"
    r"[ \t]*:)"
)


def _drop_misread_birth_dates(fields: dict[str, list[str]], text: str) -> None:
    """A zone's date of birth whose check digit fails is redacted, but is not listed among
    the dates of birth whose year counts: its year may be the misread digit."""
    if misread := set(misread_birth_dates(text)):
        dates = fields.pop("dates_of_birth", [])
        if kept := [date for date in dates if date.replace(" ", "") not in misread]:
            fields["dates_of_birth"] = kept


def _one_label_a_line(text: str) -> str:
    return _LABEL_BESIDE_ANOTHER.sub("\n", text)


def document_text(content: bytes, content_type: str) -> tuple[str, int]:
    """A stored document's text and page count."""
    # The type was decided from the bytes at upload; the file's name is only what the
    # uploader called it.
    if content_type == "application/pdf":
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(content))
        return "\n".join(page.extract_text() or "" for page in reader.pages), len(reader.pages)
    # "utf-8-sig": a byte order mark (Windows Notepad writes one) is no part of the first line.
    return content.decode("utf-8-sig", errors="replace"), 1


def residence_line(text: str) -> str:
    """The line of a person's form that says where they live, as extraction reads it (its
    first residence label whose value names a country), with personal data redacted; ""
    when none does."""
    for match in _FIELD_PATTERNS["residence"].finditer(_one_label_a_line(text)):
        if _country_ending(match["value"].strip()):
            return " ".join(redact(match.group(0)).split())
    return ""


def _country_ending(value: str) -> str | None:
    """The code of the country `value` names, or ends with, as an address does ("14 Palm
    Road, Tehran, Iran")."""
    return country_code(value) or country_code(value.rsplit(",", 1)[-1])


# A directors line, or a line of a list of them, with the names it lists.
NamedLine = tuple[str, list[str]]
T = TypeVar("T")


def _said_of_each_person(
    labelled: str, director_lines: list[NamedLine], board: list[BoardRow]
) -> tuple[dict[str, str], dict[str, list[str]], dict[str, int]]:
    """Where each director and owner lives, what they are a national of and the year they
    were born in, by name, as the document says beside their names or in its tables."""
    return (
        _said_of_people(
            director_lines,
            board,
            residences_listed,
            lambda row: country_code(row.residence),
            owner_residences(labelled),
        ),
        _said_of_people(
            director_lines,
            board,
            nationalities_listed,
            lambda row: nationality_codes(row.nationality) or None,
            owner_nationalities(labelled),
        ),
        _said_of_people(
            director_lines,
            board,
            birth_years_listed,
            lambda row: written_year(row.born),
            owner_birth_years(labelled),
        ),
    )


def _said_of_people(
    director_lines: list[NamedLine],
    board: list[BoardRow],
    read_line: Callable[[str, list[str]], dict[str, T]],
    read_row: Callable[[BoardRow], T | None],
    owners: dict[str, T],
) -> dict[str, T]:
    """What a document says of each director or owner, by name: what `read_line` finds
    beside a name on a directors line (document_residences), else what `read_row` reads in
    the person's row of a board table, else `owners` (what the owners lines and tables
    say); the first word on a name kept."""
    found = said_beside_names(director_lines, read_line)
    for row in board:
        if (said := read_row(row)) is not None:
            found.setdefault(row.name, said)
    for name, said in owners.items():
        found.setdefault(name, said)
    return found


def _add_what_prose_says(
    text: str,
    fields: dict[str, list[str]],
    lives_in: dict[str, str],
    nationals: dict[str, list[str]],
) -> None:
    """Where a director, an owner or the person a form is about lives, and what they are a
    national of, as a sentence about them says ("Farhad Rahimi, appointed in 2021, lives in
    Iran and is an Iranian national"), where nothing beside their name or in a table did.
    The form's person's countries join its "residence" and "nationality" fields."""
    people = [*fields.get("directors", []), *fields.get("beneficial_owners", [])]
    form_people = fields.get("person_names", [])
    named = [*people, *form_people]
    if not named:
        return
    sentences = list(prose_sentences(text))
    for read, mentions, by_name, field_name in (
        (residences_listed, RESIDENCE_WORD, lives_in, "residence"),
        (nationalities_listed, NATIONALITY_WORD, nationals, "nationality"),
    ):
        about = sentences_naming(sentences, named, mentions)
        for name, said in said_beside_names(about, read).items():
            if name in people:
                by_name.setdefault(name, said)
            if name in form_people:
                codes = [said] if isinstance(said, str) else said  # a residence is one country
                held = fields.setdefault(field_name, [])
                held += [code for code in codes if code not in held]


def extract_uploaded_document(args: ExtractDocumentArgs, ctx: ToolContext) -> ExtractDocumentResult:
    if ctx.documents is None:
        raise ToolNotFound("No document store is configured.")
    try:
        document = ctx.documents.get(args.document_id)
    except KeyError:
        raise ToolNotFound(f"Unknown document: {args.document_id}") from None
    except DocumentUnreadable as error:
        raise DocumentUnavailable(str(error)) from None
    try:
        text, pages = document_text(document.content, document.content_type)
    except LimitReachedError:
        raise DocumentUnavailable(
            f"{document.name} expands, once decompressed, to more than a document may; it "
            "was not read."
        ) from None
    fields = {
        field: list(dict.fromkeys(values)) for field, values in personal_data_found(text).items()
    }
    _drop_misread_birth_dates(fields, text)
    labelled = _one_label_a_line(text)
    board = list(board_table_rows(text))
    holders = mrz_holders(text)  # a passport's or identity card's zone
    director_lines: list[NamedLine] = []
    for field_name, pattern in _FIELD_PATTERNS.items():
        values = [m["value"].strip() for m in pattern.finditer(labelled)]
        if field_name == "directors":
            listed = [(line, names_listed(line)) for line in values]
            director_lines = [*listed, *director_block_lines(labelled)]
            values = [name for _, names in listed for name in names]
            values += directors_in_blocks(labelled) + [row.name for row in board]
            values += directors_in_prose(text)
        if field_name == "registration_numbers":
            values = [v for v in values if len(re.sub(r"[\W_]", "", v)) >= MIN_NUMBER_LENGTH]
        if field_name == "residence":
            values = [code for value in values if (code := _country_ending(value))]
        if field_name == "nationality":
            values = [code for value in values for code in nationality_codes(value)]
            values += [code for holder in holders if (code := country_code(holder.nationality))]
        if field_name == "person_names":
            values = [name for value in values if (name := person_name_given(value))]
            given = {name.casefold() for name in values}
            values += [h.name for h in holders if h.name and h.name.casefold() not in given]
        if values:
            fields[field_name] = list(dict.fromkeys(values))
    if owners := owners_named(labelled):
        fields["beneficial_owners"] = owners
        if shares := owner_shares(labelled):
            fields["ownership_shares"] = [share_entry(*owned) for owned in shares.items()]
    lives_in, nationals, born_in = _said_of_each_person(labelled, director_lines, board)
    _add_what_prose_says(text, fields, lives_in, nationals)
    if lives_in:
        fields["residences"] = [residence_entry(*lived) for lived in lives_in.items()]
    if nationals:
        fields["nationalities"] = [nationality_entry(*held) for held in nationals.items()]
    people = [*fields.get("directors", []), *fields.get("beneficial_owners", [])]
    for name, year in birth_years_labelled(labelled, people).items():
        born_in.setdefault(name, year)
    if born_in:
        fields["birth_years"] = [birth_year_entry(*born) for born in born_in.items()]
    for field_name, declared in declarations(labelled).items():
        fields[field_name] = [declared]
    return ExtractDocumentResult(
        document_id=document.document_id,
        name=document.name,
        content_type=document.content_type,
        pages=pages,
        text=text,
        fields=fields,
    )


BUILTIN_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="resolve_entity",
        description="Find registry records matching a company or person name; returns candidates with match scores.",
        args_model=ResolveEntityArgs,
        result_model=ResolveEntityResult,
        handler=resolve_entity,
        price_usd=Decimal("0.01"),
        timeout_seconds=5.0,
        evidence_class="registry",
        runs_inline=True,
    ),
    ToolSpec(
        name="screen_sanctions",
        description="Screen an entity (by id, with its aliases) or a name against sanctions lists.",
        args_model=ScreenSanctionsArgs,
        result_model=ScreenSanctionsResult,
        handler=screen_sanctions,
        price_usd=Decimal("0.05"),
        timeout_seconds=5.0,
        evidence_class="sanctions",
        runs_inline=True,
    ),
    ToolSpec(
        name="search_adverse_media",
        description="Search news for adverse media about the subject.",
        args_model=SearchAdverseMediaArgs,
        result_model=SearchAdverseMediaResult,
        handler=search_adverse_media,
        price_usd=Decimal("0.02"),
        timeout_seconds=5.0,
        evidence_class="adverse_media",
        runs_inline=True,
    ),
    ToolSpec(
        name="extract_uploaded_document",
        description="Extract text and fields from a document attached to this case.",
        args_model=ExtractDocumentArgs,
        result_model=ExtractDocumentResult,
        handler=extract_uploaded_document,
        price_usd=Decimal("0.03"),
        timeout_seconds=10.0,
        evidence_class="document",
    ),
)
