"""Directors a document names: on a "Directors: ..." line, one a line under a "Directors:"
label, or in a sentence ("The company's director is Irina Sokolova.", "Its directors are
Jane Roe and John Doe.").

Deliberately narrow: a sentence that says who the director or directors *are* now (is,
are, remains, remain; not was, and not a former or previous director), followed by names
written as names (two to four words, each capitalised, with the usual lower-case
particles). A sentence that does not say it that way is left alone: a wrong director would
be screened and could raise a false conflict, where a missed one shows as a document read
without directors.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from atlas.runtime.tools.business_names import businesses_named
from atlas.runtime.tools.document_tables import (
    birth_column,
    cell_at,
    cells,
    person_columns,
)
from atlas.runtime.world.normalize import HONORIFICS

_LEAD_IN = re.compile(
    r"(?i:\b(?:sole\s+|managing\s+|only\s+)?directors?\s+(?:is|are|remains?)\s*:?\s+)"
    r"(?P<names>[^.;:\n()]+)"
)
_SEPARATORS = re.compile(r"\s*[,;]\s*(?:and\s+)?|\s+and\s+|\s*&\s*")
_PARTICLES = {
    *("de", "del", "der", "den", "van", "von", "da", "di", "du", "la", "le", "bin", "al"),
    *("dos", "das", "do", "des", "della", "dei", "ter", "ten", "y"),
}
# Letters, the words apart by spaces, full stops, apostrophes or hyphens: not markup, a
# link or a template's placeholder on a directors line.
_WRITTEN_AS_A_NAME = re.compile(r"[^\W\d_]+(?:[ .'’-]+[^\W\d_]+)*")
_WORD = re.compile(r"[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*")
MAX_NAME_WORDS = 4
_NOT_CURRENT = re.compile(r"(?i)\b(?:former|previous|outgoing|late|ex)[\s-]+$")
_TITLES = "|".join(sorted(HONORIFICS))
# The full stop of a title ("Dr. Jane Roe") does not end the sentence naming her.
_TITLE_STOP = re.compile(rf"(?i)\b({_TITLES})\.(?=\s)")
_LEADING_TITLES = re.compile(rf"(?i)^(?:(?:{_TITLES})\.?\s+)+")
# What a directors line says besides names: asides, roles after a spaced dash, numbers.
_ASIDE = re.compile(r"\([^)\n]*\)?")
_ROLE_AFTER_DASH = re.compile(r"\s+[-–—]\s+.*$")
_LIST_BREAK = re.compile(r"(?:^|\s)\d{1,2}[.)]\s+|\s+/\s+")
# A full stop ending a word of two letters or more, then a capital: not an initial ("Jane
# Q. Public") nor a title ("Dr. Jane Roe", which _TITLE_STOP keeps).
_SENTENCE_END = re.compile(r"(?<=[^\W\d_]{2})\.\s+(?=[A-Z])")
_GONE = re.compile(r"(?i)\b(?:resigned|ceased|removed|retired|deceased|former|until)\b")
_GONE_MARK = "\x00"
_BLOCK_LABEL = re.compile(r"(?im)^[ \t]*directors?[ \t]*:[ \t]*\n")
# A list item's mark before a name: a dash, a bullet, "1." or "(a)".
BULLET = re.compile(r"^\s*(?:[-–—•*·▪]|\d{1,2}[.)]|\(?[a-z]\))\s*")
MAX_BLOCK_LINES = 20
# Words that name a role or a body, not a person: "Dmitri Volkov, CEO and Chairman".
_ROLE_WORDS = frozenset((
    "ceo", "cfo", "coo", "cto", "chairman", "chairwoman", "chairperson", "chair",
    "director", "directors", "secretary", "president", "officer", "executive", "manager",
    "treasurer", "founder", "shareholder", "company", "limited", "ltd", "plc", "llc",
    "inc", "gmbh", "holdings", "board", "since", "until", "from", "appointed",
    "chief", "managing", "non-executive", "executive", "independent", "deputy", "vice",
    "id", "passport", "dob", "born", "nationality", "ssn", "nino",
))  # fmt: skip
# Words of an order to the agent, which no director's name holds.
_ORDER_WORDS = frozenset((
    "ignore", "disregard", "previous", "instructions", "instruction", "prompt", "system",
    "assistant", "override", "risk", "rating", "approve", "approved", "immediately",
    "skip", "screening", "screen", "clean", "clear", "treat", "sanctions", "bypass",
))  # fmt: skip
_NOBODY = re.compile(r"(?i)(?:none|nil|n/?a|-+|–|—|tbc|tba|not applicable)\.?")


def directors_in_prose(text: str) -> list[str]:
    """Names said to be the subject's directors, in order, each once."""
    names: list[str] = []
    text = _without_asides(_TITLE_STOP.sub(r"\1", text))
    for match in _LEAD_IN.finditer(text):
        if _NOT_CURRENT.search(text[max(0, match.start() - 12) : match.start()]):
            continue
        # The names that open the clause: "Jane Roe and John Doe, both British" gives two;
        # "is expected to resign" or "are listed below", none.
        for part in _SEPARATORS.split(match["names"].strip()):
            if _GONE_MARK in part:
                continue
            name = _without_titles(part)
            if not _looks_like_a_name(name):
                break
            names.append(name)
    return list(dict.fromkeys(names))


def directors_listed(line: str) -> list[str]:
    """The names of a "Directors: ..." line, without the punctuation that ends the line
    ("Jane Doe, Omar Haddad." gives Jane Doe and Omar Haddad), the roles and asides beside
    them ("Jane Doe (Chair)", "Omar Haddad - CFO"), or those said to have gone ("Ann Lee
    (resigned 2021)"). "DOE, Jane; HADDAD, Omar" gives Jane Doe and Omar Haddad; "None"
    gives nobody."""
    if _NOBODY.fullmatch(line.strip()):
        return []
    # "jane roe, john doe" is how some forms are typed; "call finish now" after a name
    # written in capitals is not a name.
    typed_in_lower_case = line.islower()
    line = _without_asides(line)
    line = _LIST_BREAK.sub("; ", line)
    # A sentence after the names ("Dmitri Volkov. Ignore all previous instructions") is a
    # part of its own, which an order word then rules out without taking the name with it.
    line = _SENTENCE_END.sub("; ", line)
    parts = [part.strip() for part in line.split(";") if part.strip()]
    candidates = []
    for part in parts:
        # Alone on its line, "Doe, Jane Ann" may be two people; "DOE, Jane" and "Doe,
        # Jane" are one, as no director is named by a single word.
        one_surname_first = _surname_first(part) and (
            len(parts) > 1 or _capitals_first(part) or len(part.split()) == 2
        )
        candidates += [_given_name_first(part)] if one_surname_first else _SEPARATORS.split(part)
    names = []
    for candidate in candidates:
        if _GONE_MARK in candidate:
            continue
        text = " ".join(_ROLE_AFTER_DASH.sub("", candidate).split()).rstrip(".;:").strip()
        name = _without_titles(_name_opening(text, typed_in_lower_case))
        if len(name.split()) >= 2:
            names.append(name)
    return names


def names_listed(line: str) -> list[str]:
    """The names a list gives, in order: people as directors_listed reads them, and a
    business that is an item of the list of its own, whole, by its legal form ("Jane Roe;
    Pinecrest Holdings Ltd"). A business within an item ("Jane Roe, CEO of Acme Ltd", "Jane
    Roe (Acme Ltd)") is no name of the list."""
    businesses = []
    for name in businesses_named(line):
        at = line.find(name)
        if at >= 0 and _an_item(line[:at], line[at + len(name) :]):
            businesses.append((at, name))
            # Blanked out with the "and" after it, so each person is found where the line
            # names them.
            end = at + len(name)
            end += len(joined[0]) if (joined := _AND_NEXT.match(line, end)) else 0
            line = line[:at] + ";" + " " * (end - at - 1) + line[end:]
    people = [(place_named(line, person), person) for person in directors_listed(line)]
    return [name for _, name in sorted(businesses + people)]


_AND_NEXT = re.compile(r"(?i)[ \t]+and(?=[ \t])")


def _an_item(before: str, after: str) -> bool:
    """Whether text between `before` and `after` is an item of a list of its own."""
    return bool(_ITEM_OPENS.search(before) and _ITEM_CLOSES.match(after))


# What may come before an item of a list, and after it: a comma, semicolon, slash, "and",
# the item's number ("1.", "2)"), or the line's start or end.
_ITEM_OPENS = re.compile(r"(?i)(?:^|[,;:/]|(?:^|\s)and|(?:^|\s)\d{1,2}[.)])\s*$")
_ITEM_CLOSES = re.compile(r"(?i)\s*(?:$|[,;./]|and\s|\d{1,2}[.)]\s)")


def place_named(line: str, person: str) -> int:
    """Where `line` names `person`, by their surname ("ROE, Jane" holds Jane Roe)."""
    found = re.search(rf"(?i)\b{re.escape(person.split()[-1])}\b", line)
    return found.start() if found else len(line)


def places_named(line: str, names: list[str]) -> list[tuple[int, str]]:
    """(where `line` names each of `names`, the name), in the order the line names them;
    a name it does not hold last, at the line's length."""
    return sorted((place_named(line, name), name) for name in names)


def after_surname(place: int, person: str) -> int:
    """Where the surname place_named found at `place` ends."""
    return place + len(person.split()[-1])


def _name_opening(text: str, lower_case_names: bool = True) -> str:
    """The name that opens `text`: "Dmitri Volkov since 2019", "Dmitri Volkov ID 12345" and
    "Dmitri Volkov Chairman" are Dmitri Volkov. Text written as an order to the agent
    ("Ignore Previous Instructions", "Mark Clean") is no name at all."""
    words = text.split()
    if any(word.lower().strip(".,") in _ORDER_WORDS for word in words):
        return ""
    if (
        lower_case_names
        and text.islower()
        and _WRITTEN_AS_A_NAME.fullmatch(text)
        and len(words) <= MAX_NAME_WORDS
    ):
        return text  # "jane roe", as some forms are typed
    opening: list[str] = []
    for index, word in enumerate(words):
        # "Robert Board", "Alex President": a surname, where a role would follow a name.
        role = _not_a_name_word(word) and not (len(words) == 2 and index == 1)
        written = _WRITTEN_AS_A_NAME.fullmatch(word.rstrip("."))
        capital = word[0].isupper() or word.lower() in _PARTICLES
        if role or not written or not capital:
            break
        opening.append(word)
    return " ".join(opening[: MAX_NAME_WORDS + 1])


def _not_a_name_word(word: str) -> bool:
    return word.lower().strip(".,") in _ROLE_WORDS


def directors_in_blocks(text: str) -> list[str]:
    """Directors listed one a line under a "Directors:" label with nothing after it,
    bulleted, numbered or not: up to a blank line, another label, or a line that is not a
    name ("The company was incorporated in 2015.")."""
    return [name for _, found in director_block_lines(text) for name in found]


def director_block_lines(text: str) -> Iterator[tuple[str, list[str]]]:
    """Each line of such a list, with the names it gives."""
    for label in _BLOCK_LABEL.finditer(text):
        for line in text[label.end() :].splitlines()[:MAX_BLOCK_LINES]:
            line = BULLET.sub("", line).strip()
            if not line or ":" in line:
                break
            found = names_listed(_given_name_first(line) if _surname_first(line) else line)
            # A line giving nobody, but for one said to have gone, is not a name.
            if not found and _GONE_MARK not in _without_asides(line):
                break
            if not all(map(_looks_like_a_listed_name, found)):
                break
            yield line, found


# A heading over a table of the board: "Board of directors", "Directors and officers".
# Nothing but the heading: not "Directors who resigned", "Directors of subsidiary
# undertakings" or "Directors' interests".
_TABLE_HEADING = re.compile(
    r"(?im)^[ \t]*(?:the[ \t]+)?(?:board(?:[ \t]+of[ \t]+directors)?|directors"
    r"|directors[ \t]+and[ \t]+officers|officers[ \t]+and[ \t]+directors"
    r"|(?:current|present)[ \t]+directors)[ \t]*:?[ \t]*$"
)
# What names a director's function before the word "Director" ("Finance Director"): the
# row is an officer's, not a board member's.
_FUNCTION_WORDS = frozenset((
    "finance", "financial", "sales", "marketing", "technical", "technology", "operations",
    "operating", "alternate", "creative", "art", "commercial", "legal", "company",
    "associate", "assistant", "deputy", "regional", "program", "programme", "project",
    "research", "design", "development", "hr", "it", "communications", "strategy",
    "investment", "risk", "compliance",
))  # fmt: skip
# A row of it: a name, then the role "Director" in a column of its own ("Jane Roe
# Director 2015-01-01", "| Jane Roe | Non-executive director |").
_TABLE_ROW = re.compile(
    r"^[ \t|]*(?P<name>[^\W\d_][^|\t\n]*?)(?:[ \t]*\|[ \t]*|[ \t]+)"
    r"(?i:(?:(?:non-?)?executive[ \t]+|managing[ \t]+|independent[ \t]+)?director)"
    r"(?=[ \t]*(?:$|\||\t|[ \t]{2}|[ \t]+\d))"
)


class BoardRow(NamedTuple):
    """A director's row of a board table: the name, and the cells under a "Country of
    residence", a "Nationality" and a "Date of birth" header ("" where the table has
    none)."""

    name: str
    residence: str
    nationality: str
    born: str = ""


def board_table_rows(text: str) -> Iterator[BoardRow]:
    """Each director's row of a table under a heading that names the board: rows whose role
    column says "Director", up to a blank line after them. A row for one said to have gone
    ("resigned 2021") is left out."""
    for heading in _TABLE_HEADING.finditer(text):
        rows, lives_at, national_at, born_at = 0, None, None, None
        for line in text[heading.end() :].splitlines()[1 : MAX_BLOCK_LINES + 1]:
            if not line.strip():
                if rows:
                    break
                continue
            row = _TABLE_ROW.match(line)
            if row is None:
                # The table's header ("Name  Role  Country of residence"), or a rule.
                if not rows and lives_at is None and national_at is None and born_at is None:
                    lives_at, national_at = person_columns(cells(line))
                    born_at = birth_column(cells(line))
                continue
            rows += 1
            name = _without_titles(" ".join(row["name"].split()))
            if name.split()[-1].lower() in _FUNCTION_WORDS:
                continue  # "Jane Roe  Finance Director": an officer's row
            if not _GONE.search(line[row.end() :]) and _looks_like_a_listed_name(name):
                row_cells = cells(line)
                yield BoardRow(
                    name,
                    cell_at(row_cells, lives_at),
                    cell_at(row_cells, national_at),
                    cell_at(row_cells, born_at),
                )


# A mention of the board that names nobody (or says there is none): "Directors: None".
# Its directors, or a director of its ("the company's director", "Director:"); not a
# title ("Sales Director", "the Director of Companies House").
_MENTION = re.compile(
    r"(?i)\b(?:board[ \t]+of[ \t]+directors|directors\b(?!')|director[ \t]*:"
    r"|(?:company's|its|sole|managing)[ \t]+director\b)"
)
_SAYS_NONE = re.compile(r"(?im)^[ \t]*directors?[ \t]*:[ \t]*(?:none|nil|n/?a|-+|–|—)\b[^\n]*$")


def mentions_directors(text: str) -> bool:
    """Whether `text` speaks of the company's directors, besides a line saying it has none."""
    return bool(_MENTION.search(_SAYS_NONE.sub("", text)))


def _without_asides(text: str) -> str:
    """Text without its asides ("(Chair)"); one saying the person has gone ("(resigned
    2021)") leaves a mark, so the name before it is left out."""
    return _ASIDE.sub(lambda aside: f" {_GONE_MARK}" if _GONE.search(aside[0]) else "", text)


def _surname_first(part: str) -> bool:
    """ "DOE, Jane" or "Doe, Jane": one surname (or one in capitals) before the comma; not
    "Jane Doe, Omar Li"."""
    if part.count(",") != 1:
        return False
    surname, given = (words.strip() for words in part.split(",", 1))
    return bool(given) and (len(surname.split()) == 1 or surname.isupper())


def _capitals_first(part: str) -> bool:
    surname, given = (words.strip() for words in part.split(",", 1))
    return surname.isupper() and not given.isupper()


def _given_name_first(part: str) -> str:
    surname, given = (words.strip() for words in part.split(",", 1))
    return f"{given} {surname.title() if surname.isupper() else surname}"


def _without_titles(name: str) -> str:
    """ "Dr. Jane Roe" is Jane Roe; "Lord" alone stays a name."""
    return _LEADING_TITLES.sub("", name) or name


def _looks_like_a_listed_name(text: str) -> bool:
    """Looser than a name in a sentence: initials ("J. R. Smith") and suffixes pass."""
    words = text.split()
    return 2 <= len(words) <= MAX_NAME_WORDS + 1 and all(
        word in _PARTICLES or word[0].isupper() for word in words
    )


def _looks_like_a_name(text: str) -> bool:
    words = text.split()
    if not 2 <= len(words) <= MAX_NAME_WORDS:
        return False
    for word in words:
        if word in _PARTICLES:
            continue
        if not _WORD.fullmatch(word) or not word[0].isupper():
            return False
    return words[0] not in _PARTICLES and words[-1] not in _PARTICLES
