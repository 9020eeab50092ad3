"""Where the people a document lists live, as it says beside their names or in a sentence
about them: "Farhad Rahimi (resident in Iran)", "Jane Roe, residing in the UK", "Omar Li
(country of residence: Singapore)", "Ana Ruiz (Chile resident)", "Farhad Rahimi has lived in
Tehran, Iran since 2010". A country is the one of the name it follows, given by its ISO
code; one that names no single country is not read. (What they are nationals of is read by
document_nationalities.)"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from atlas.runtime.countries import country_code
from atlas.runtime.tools.document_directors import place_named, places_named

T = TypeVar("T")

_COUNTRY = r"([A-Za-z][A-Za-z .'-]{1,50}?)"
_ENDS = r"(?=[ \t]*(?:[),;/]|\.(?:\s|$)|\d|$|(?:and|since|from|until)\b))"
_LIVES_IN = re.compile(
    rf"(?i)\b(?:resident|residing|living|lives|(?:has|have)[ \t]+lived|based)[ \t]+(?:in|of)[ \t]+"
    rf"{_COUNTRY}{_ENDS}"
    rf"|\b(?:country[ \t]+of[ \t]+)?residence[ \t]*:[ \t]*{_COUNTRY}{_ENDS}"
    rf"|\([ \t]*{_COUNTRY}[ \t]+resident[ \t]*\)"
)
# Where someone lived once is not where they live: "was resident in Iran until 2019",
# "formerly based in Iran".
_BEFORE_NOW = re.compile(r"(?i)\b(?:previously|formerly|once|used[ \t]+to|was|were|had)[ \t]+$")
_UNTIL = re.compile(r"(?i)[ \t]*(?:until|till)\b")
# The country after a town: "lives in Tehran, Iran".
_THEN_COUNTRY = re.compile(rf",[ \t]*{_COUNTRY}{_ENDS}")
# A sentence that may say where someone lives.
RESIDENCE_WORD = re.compile(r"(?i)residen|living|lives|lived|based")
# Prose is read a sentence at a time; a "sentence" longer than this is no prose.
MAX_SENTENCE_CHARS = 1_000
_SENTENCE_END = re.compile(r"(?<=[a-z)])\.\s+")
# A line that stands on its own: a label's ("Directors: ...") or a bullet's.
_LINE_OF_ITS_OWN = re.compile(r"[ \t]*(?:[-*\u2022]|[A-Z][\w ]{0,40}:)")


def said_beside_names(
    lines: Iterable[tuple[str, list[str]]], read: Callable[[str, list[str]], dict[str, T]]
) -> dict[str, T]:
    """What `read` (residences_listed, nationalities_listed) finds beside the names of each
    line, by name, the first line's word on a name kept."""
    found: dict[str, T] = {}
    for line, names in lines:
        for name, said in read(line, names).items():
            found.setdefault(name, said)
    return found


def residences_listed(line: str, names: list[str]) -> dict[str, str]:
    """The country code of each of `names`, the names `line` lists, that it says lives
    somewhere."""
    placed = places_named(line, names)
    found: dict[str, str] = {}
    for phrase in _LIVES_IN.finditer(line):
        if _BEFORE_NOW.search(line, max(0, phrase.start() - 20), phrase.start()):
            continue
        code = country_code(next(group for group in phrase.groups() if group))
        end = phrase.end()
        if code is None and (country := _THEN_COUNTRY.match(line, end)):
            code, end = country_code(country.group(1)), country.end()
        if _UNTIL.match(line, end):
            continue
        whose = next((name for at, name in reversed(placed) if at < phrase.start()), None)
        if code and whose:
            found.setdefault(whose, code)
    return found


def sentences_naming(
    sentences: list[str], names: list[str], mentions: re.Pattern
) -> Iterator[tuple[str, list[str]]]:
    """Each of `sentences` (prose_sentences) that `mentions` matches (RESIDENCE_WORD,
    NATIONALITY_WORD) and that names some of `names`, with those it names: "Farhad Rahimi,
    appointed in 2021, lives in Iran."."""
    for sentence in sentences:
        if not mentions.search(sentence):
            continue
        if named := [name for name in names if place_named(sentence, name) < len(sentence)]:
            yield sentence, named


def prose_sentences(text: str) -> Iterator[str]:
    """The sentences of `text`, each on one line: a paragraph's lines are joined, as a
    line break inside one is where the text wrapped (as a PDF's text does); a blank line,
    a label's line or a bullet's ends one. One longer than MAX_SENTENCE_CHARS is no prose
    and is left out."""
    paragraph: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.strip() and not _LINE_OF_ITS_OWN.match(line):
            paragraph.append(line)
            continue
        for lines in (paragraph, [line]):
            for sentence in _SENTENCE_END.split(" ".join(lines)):
                if len(sentence) <= MAX_SENTENCE_CHARS and (sentence := " ".join(sentence.split())):
                    yield sentence
        paragraph = []


def residence_entry(name: str, code: str) -> str:
    """A residence as the extraction tool lists it: "Farhad Rahimi: IR"."""
    return f"{name}: {code}"


def read_residence_entry(entry: str) -> tuple[str, str]:
    """(name, code) of a residence_entry."""
    name, _, code = entry.rpartition(": ")
    return name.strip(), code.strip()
