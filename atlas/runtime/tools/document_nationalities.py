"""What the people a document lists are nationals of, as it says beside their names or in
a sentence about them: "Farhad Rahimi (Iranian national)", "Jane Roe, a citizen of Iran and
the UK", "Omar Li (nationality: Singaporean/British)", "Farhad Rahimi is an Iranian
national", "Jane Roe holds Iranian citizenship", "Omar Li holds Singaporean and British
passports", "the Iranian national Farhad Rahimi"; and by adjectives alone, right after a
name: "Farhad Rahimi is Iranian and British." (to the clause's end), "Farhad Rahimi
(Iranian)".

Countries are given by ISO code. A list of them is read for as long as its words name one
country after another, joined by "and", "/" or "&": "a citizen of Iran since 2010" is
Iran, and "senior citizen" or "Iranian-born" name none. A nationality word followed by
another word that is not a listed name, or by more than the clause's ending, says nothing
of anyone ("the Iranian National Oil Company", "national security"), and neither does a
nationality someone no longer holds ("a former Iranian national")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from atlas.runtime.countries import country_code, nationality_code
from atlas.runtime.tools.document_directors import after_surname, places_named

# How far from a nationality word its list of countries is looked for, and the most words
# one country's name takes ("Saint Kitts and Nevis").
WINDOW = 120
MAX_COUNTRY_WORDS = 4

# "a citizen of ...", "nationals of ...", "nationality: ...".
_LIST_FOLLOWS = re.compile(
    r"(?i)\b(?:nationals?|citizens?)[ \t]+of[ \t]+"
    r"|\b(?:nationalit(?:y|ies)|citizenships?)[ \t]*:[ \t]*"
)
# "... national", "... citizenship", "... passports": the countries come before the word.
_LIST_PRECEDES = re.compile(
    r"(?i)(?<=[ \t])(?:nationals?|citizens?|citizenships?|passports?(?:[ \t]+holder)?)\b"
    r"(?![ \t]+of\b|[ \t]*:)"
)
# What may follow such a word: the clause's end, or words that go on about the person.
_GOES_ON = re.compile(
    r"(?i)[ \t]*(?:$|[),.;/\n]|(?:and|who|with|since|living|residing|resident|based|born|"
    r"by|from|in|at|holding|until|no|number|nr)\b)"
)
# A sentence that may say what someone is a national of.
NATIONALITY_WORD = re.compile(r"(?i)national|citizen|passport|\b(?:is|are)\b")
# A nationality someone had is not one they hold: "a former Iranian national", "renounced
# his Iranian citizenship", "formerly a citizen of Iran".
_NO_LONGER = re.compile(
    r"(?i)\b(?:former|formerly|previously|once|ex|renounced|gave[ \t]+up|lost)"
    r"(?:[ \t]+(?:his|her|their|an?))?[ \t-]*$"
)
_WORD = re.compile(r"/|&|[A-Za-z][A-Za-z.'-]*")
_JOINS = frozenset({"/", "&", "and"})
_OPENING = frozenset({"a", "an", "the", "dual", "both", "of"})
_CLAUSE_MARK = re.compile(r"[()\[\];:,\n\d]")
# A name's verb, when their adjectives follow ("Farhad Rahimi is Iranian").
_IS = re.compile(r"(?i)[ \t]+(?:is|are)[ \t]+(?:also[ \t]+)?")
_CLAUSE_END = re.compile(r"[ \t]*(?:$|[.,;)])")
# Brackets right after a name, and what parts their first item from the rest.
_BRACKETED = re.compile(r"[ \t]*\(([^()\n]{1,80})\)")
_ASIDE = re.compile(r"[,;:]")
# What joins adjectives ("British/Iranian", "British and Iranian"), and may open them.
_JOINED = re.compile(r"(?i)[ \t]*(?:/|&|\band\b)[ \t]*")
_DUAL = re.compile(r"(?i)^dual[ \t]+")


def nationalities_listed(line: str, names: list[str]) -> dict[str, list[str]]:
    """The countries each of `names`, the names `line` lists, is said to be a national of,
    in the order the line gives them."""
    placed = places_named(line, names)
    found: dict[str, list[str]] = _said_to_be(line, placed)
    for start, codes, end in _lists_of_countries(line):
        whose = _named_right_after(line, end, placed)
        if whose is None and _a_word_follows(line, end) and not _GOES_ON.match(line, end):
            continue  # "the Iranian National Oil Company"
        whose = whose or next((name for at, name in reversed(placed) if at < start), None)
        if whose:
            held = found.setdefault(whose, [])
            held += [code for code in codes if code not in held]
    return found


def _said_to_be(line: str, placed: list[tuple[int, str]]) -> dict[str, list[str]]:
    """The countries a name is said to be of by their adjectives alone, right after it: in
    brackets (_in_brackets), or to the clause's end: "Farhad Rahimi is Iranian.", "Jane Roe
    is British and Iranian, and ...". Not where anything else follows ("is British-born", "is Iranian by birth",
    "is British Petroleum's CFO") or stands between ("is not British", "was Iranian")."""
    found: dict[str, list[str]] = {}
    for start, name in placed:
        after = after_surname(start, name)
        if codes := _in_brackets(line, after):
            found[name] = codes
            continue
        said = _IS.match(line, after)
        if said is None:
            continue
        mark = _CLAUSE_MARK.search(line, said.end(), said.end() + WINDOW)
        stop = mark.start() if mark else min(len(line), said.end() + WINDOW)
        codes, _, end = _countries(list(_WORD.finditer(line, said.end(), stop)))
        if codes and _CLAUSE_END.match(line, end):
            found[name] = codes
    return found


def _in_brackets(line: str, after: int) -> list[str]:
    """The countries whose adjectives open the brackets right after a name: "Farhad
    Rahimi (Iranian)", "Jane Roe (British/Iranian, CEO)". A country's name there may be
    where they live as well ("Farhad Rahimi (Iran)"): it says nothing of a nationality."""
    bracketed = _BRACKETED.match(line, after)
    if bracketed is None:
        return []
    opening = _DUAL.sub("", _ASIDE.split(bracketed.group(1), maxsplit=1)[0].strip())
    adjectives = [word for word in _JOINED.split(opening) if word]
    codes = [nationality_code(word) for word in adjectives]
    if not codes or None in codes or any(country_code(word) for word in adjectives):
        return []
    return codes


def _lists_of_countries(line: str) -> Iterator[tuple[int, list[str], int]]:
    """(where the phrase starts, the countries, where a word standing before a name would
    end) for each list of countries `line` gives. A list after "citizen of" or
    "nationality:" stands before no name, so its end is the line's."""
    for word in _LIST_FOLLOWS.finditer(line):
        mark = _CLAUSE_MARK.search(line, word.end(), word.end() + WINDOW)
        end = mark.start() if mark else min(len(line), word.end() + WINDOW)
        codes, _, _ = _countries(list(_WORD.finditer(line, word.end(), end)))
        if codes and not _no_longer(line, word.start()):
            yield word.start(), codes, len(line)
    for word in _LIST_PRECEDES.finditer(line):
        if not _GOES_ON.match(line, word.end()) and not _a_word_follows(line, word.end()):
            continue
        begin = max(0, word.start() - WINDOW)
        marks = list(_CLAUSE_MARK.finditer(line, begin, word.start()))
        words = list(_WORD.finditer(line, marks[-1].end() if marks else begin, word.start()))
        codes, start, _ = _countries(words[::-1], backwards=True)
        if codes and not _no_longer(line, start):
            yield start, codes[::-1], word.end()


def _countries(words: list[re.Match], *, backwards: bool = False) -> tuple[list[str], int, int]:
    """The countries named one after another from the first of `words` (read from the
    last back, `backwards`), and where the earliest of them starts and the latest ends in
    the line."""
    codes: list[str] = []
    start = end = -1
    at = 0
    while at < len(words):
        # "both Iran and of the United Kingdom": words that open a country, not name one
        while not backwards and at < len(words) and words[at].group(0).lower() in _OPENING:
            at += 1
        for size in range(min(MAX_COUNTRY_WORDS, len(words) - at), 0, -1):
            taken = words[at : at + size]
            in_order = taken[::-1] if backwards else taken
            if code := nationality_code(" ".join(match.group(0) for match in in_order)):
                break
        else:
            break
        codes.append(code)
        start = min(match.start() for match in taken)
        end = max(end, *(match.end() for match in taken))
        at += size
        if at < len(words) and words[at].group(0).lower() in _JOINS:
            at += 1
        else:
            break
    return list(dict.fromkeys(codes)), start, end


def _no_longer(line: str, start: int) -> bool:
    return bool(_NO_LONGER.search(line, max(0, start - 30), start))


def _named_right_after(line: str, end: int, placed: list[tuple[int, str]]) -> str | None:
    """The listed name a phrase ending at `end` stands before: "the Iranian national Farhad
    Rahimi" (placed by surname)."""
    for start, name in placed:
        gap = line[end:start]
        named = end <= start < len(line)  # place_named gives len(line) for a name not there
        if named and len(gap) <= len(name) + 1 and not _CLAUSE_MARK.search(gap):
            return name
    return None


def _a_word_follows(line: str, end: int) -> bool:
    return bool(re.match(r"[ \t]+[A-Z]", line[end : end + 3]))


def nationality_entry(name: str, codes: list[str]) -> str:
    """The countries a person is a national of, as the extraction tool lists them:
    "Farhad Rahimi: IR, GB"."""
    return f"{name}: {', '.join(codes)}"


def read_nationality_entry(entry: str) -> tuple[str, list[str]]:
    """(name, codes) of a nationality_entry."""
    name, _, codes = entry.rpartition(": ")
    return name.strip(), [code.strip() for code in codes.split(",") if code.strip()]
