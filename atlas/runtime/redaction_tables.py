"""Personal data in a table's columns: the label heads the column, not the number.

Four layouts:
- bars: "| Name | Passport No. | IBAN |", rows the same (Markdown, and text exports);
- aligned: cells apart by tabs or two spaces or more, as a plain-text table is typed;
- separated values: cells apart by commas or semicolons (a CSV export), quoted or not;
- single spaces: what PDF text extraction makes of a table, each row one line with its
  cells one space apart. The columns cannot be told apart there, so in the rows under a
  header naming a kind of personal data, the words shaped like it are redacted; when the
  header also names other numbers (a company's, an amount), the numbers of a row are
  matched to the header's number columns in order, and its dates to its date columns
  ("Date of birth", "Date of issue") likewise. PDF text may run a header's cells into
  one another ("Company numberIBAN"): a label's word starts a column there too.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from functools import cache

from atlas.runtime.redaction_labels import (
    IDENTIFYING_FIELDS,
    LABEL_WORDS,
    VALUE_PATTERNS,
    Found,
    field_named_by,
    label_word_pattern,
    starts_a_word,
)

# A longer line is prose, or a run of text with no line breaks, not a table's header.
MAX_HEADER_CHARS = 400
_LABEL_WORDS = {**LABEL_WORDS, "ibans": ("iban",)}
_FIELD_OF_WORD = {word: field for field, words in _LABEL_WORDS.items() for word in words}
# Longest first, so "passport" is not read as "pass"; "date_of_birth" as "date of birth".
_ANY_LABEL_WORD = re.compile(
    "|".join(label_word_pattern(word) for word in sorted(_FIELD_OF_WORD, key=len, reverse=True))
)
_JOINED_WORDS = re.compile(r"(?<=[^\W\d_])[_.-](?=[^\W\d_])")


def _field_of(word: str) -> str:
    """The kind of personal data a label's word found in a header names."""
    return _FIELD_OF_WORD.get(word) or _FIELD_OF_WORD[_JOINED_WORDS.sub(" ", word)]


# A header cell naming a passport but heading something else about it: its expiry date,
# the country that issued it.
_ABOUT_ANOTHER_THING = re.compile(
    r"expir|issu|date|valid|country|nationalit|type|place|holder|name|bank|balance|currency"
    r"|status|open|clos|stand|ausstell|gültig|délivr|expedi|scaden|rilasc|datum|дата|выдан"
    r"|wydan|ważn|vydán|platn"
)
_CELL_GAP = re.compile(r"\t| {2,}")
_TWO_SPACES_BETWEEN_WORDS = re.compile(r"\S {2,}\S")
# Lines with a bar in them, one after another.
_BAR_LINES = re.compile(r"(?:[^\n]*\|[^\n]*(?:\n|\Z))*")
_RULE_LINE = re.compile(r"[\s|:+=_-]*")
_DATE = re.compile(r"[0-9]{1,4}([-/.])[0-9]{1,2}\1[0-9]{1,4}")
_WORD_SHAPES = {
    "passport_numbers": re.compile(r"[a-z]{0,3}[0-9][a-z0-9]{4,11}"),
    "national_id_numbers": re.compile(r"[a-z]{0,3}[0-9][a-z0-9]{4,11}"),
    # Britain's begins with five letters of the surname: "morga753116sm9ij".
    "driving_licence_numbers": re.compile(r"[a-z]{0,5}[0-9][a-z0-9]{4,15}"),
    "account_numbers": re.compile(r"[0-9][0-9-]{4,32}[0-9]"),
    "card_numbers": re.compile(r"[0-9]{13,19}"),
    "ibans": re.compile(r"[a-z]{2}[0-9]{2}[a-z0-9]{11,30}"),
}
_NUMBER_SHAPE = re.compile(r"[a-z]{0,3}[0-9][a-z0-9-]{4,32}")
# A telephone number in a row, in groups one space apart, as dialled from abroad or at
# home ("+44 7700 900123", "0170 1234567"): seven digits or more.
_ROW_PHONE = re.compile(
    r"(?<![\w+])(?=(?:[ ()+]{0,2}[0-9]){7})(?:\+|\(?0)[0-9]{0,4}\)?(?: [0-9]{2,8}){1,4}(?![\w/.-])"
)
# An IBAN written in groups, which the words of a row split.
_GROUPED_IBAN = re.compile(
    r"(?<![a-z0-9])[a-z]{2}[0-9]{2}(?: [a-z0-9]{4}){2,7}(?: [a-z0-9]{1,3})?(?![a-z0-9])"
)
# A date in a row: "1970-01-02", "02/01/1970", "12 March 1968", "March 12, 1968".
_ROW_DATE = re.compile(
    r"(?<![\w/.-])(?:[0-9]{1,4}([-/.])[0-9]{1,2}\1[0-9]{1,4}"
    r"|[0-9]{1,2}\.? (?P<month>[^\W\d_]{3,9})\.? [0-9]{4}"
    r"|(?P<month_first>[^\W\d_]{3,9})\.? [0-9]{1,2},? [0-9]{4})(?![\w/-])"
)
# The first three letters of months' names in the languages documents come in.
_MONTH_STARTS = frozenset(
    {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
    | {"fév", "fev", "avr", "mai", "jui", "aoû", "aou", "déc", "mär", "mrz", "okt", "dez"}
    | {"ene", "abr", "ago", "dic", "gen", "mag", "giu", "lug", "set", "ott", "mrt", "mei"}
)
# Columns of dates other than a date of birth.
_OTHER_DATE_LABEL = re.compile(
    r"(?:dated?|dates|datum|fecha|issued?|founded|formed|ceased|notified|signed)(?![^\W\d_])"
    r"|incorporat|expir|appoint|resign|effective"
)
_DATE_WORD = re.compile(r"dated?|dates|datum|fecha")
# A header's word that a cell run into it may follow: "Company numberIBAN", "NAMEPASSPORT".
_HEADER_WORD_BEFORE = re.compile(r"(?:number|no\.?|nr\.?|name|date|code)\Z")
# Where PDF text runs one header cell into the next: "numberIBAN", "numberAccount".
_GLUED_WORDS = re.compile(r"(?<=[a-z])(?=[A-Z])")
# Columns of other numbers a row may hold: a company's number, an amount, a telephone.
_OTHER_NUMBER_LABEL = re.compile(
    r"company (?:number|no\b)|regist|\breg\b|\bcrn\b|siren|siret|\bkvk\b|\bhrb\b|\bvat\b"
    r"|tax id|ust-id|handelsregister|\blei\b|amount|shares|balance|total|value|\bsum\b|betrag"
    r"|montant|importe|importo|bedrag|сумма|price|salary|capital|phone|\btel\b"
)
# Words a title-case header keeps in lower case.
_SMALL_WORD = re.compile(
    r"of|de|du|des|di|del|la|le|el|and|&|no\.?|nr\.?|n°|number|num|van|der|en|y|e|et|und|von"
)
_WORD = re.compile(r"\S+")
_DIGIT = re.compile(r"[0-9]")
_DIGIT_OR_COLON = re.compile(r"[0-9:]")
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
_LETTER = re.compile(r"[^\W\d_]")
_TRIM = " \t.,;:()[]\"'"


def table_columns(
    text: str, folded: str, bare_labels: list[int], known: list[Found]
) -> list[Found]:
    """The values in the columns headed by the labels at `bare_labels`. `known` is what
    was found by its own form, sorted: an IBAN written in groups is one cell, not four."""
    found: list[Found] = []
    searched_to = 0
    for at in sorted(bare_labels):
        if at < searched_to:
            continue
        start = folded.rfind("\n", 0, at) + 1
        end = searched_to = _line_end(folded, at)
        layout = _layout(folded[start:end]) if end - start <= MAX_HEADER_CHARS else None
        if layout is None:
            cells = []
        elif layout != "single spaces":
            cells, searched_to = _column_rows(folded, start, end, layout)
        elif _DIGIT.search(folded, end, _line_end(folded, end + 1)) and _title_case(
            text[start:end]
        ):
            cells, searched_to = _single_space_rows(text, folded, start, end, known)
        else:
            cells = []
        found += cells
    return found


def stacked_columns(folded: str, bare_labels: list[int]) -> list[Found]:
    """Labels one a line, then their values one a line in the same order: what PDF text
    makes of a form whose labels and values stand in two columns. The first label of such
    a stack has no value after it (it is among `bare_labels`)."""
    found: list[Found] = []
    searched_to = 0
    for at in sorted(bare_labels):
        if at < searched_to:
            continue
        # A label line is short: a label further into a line than that is in prose, and
        # its line is not searched for its start (a long line would be, label after label).
        newline = folded.rfind("\n", max(0, at - MAX_LABEL_LINE), at)
        if newline == -1 and at > MAX_LABEL_LINE:
            continue
        start = newline + 1
        if folded[start:at].strip():
            continue
        fields: list[str] = []
        end = start
        for line_start, line_end in _short_lines(folded, start):
            field = _label_line_field(folded[line_start:line_end])
            if field is None:
                break
            fields.append(field)
            end = searched_to = line_end
        if len(fields) < 2:
            continue
        values: list[tuple[int, int]] = []
        # Fewer lines than labels may follow: the stack is then left unpaired.
        lines = _short_lines(folded, end + 1)
        for (line_start, line_end), field in zip(lines, fields, strict=False):
            searched_to = line_end
            line = folded[line_start:line_end]
            left = line_start + len(line) - len(line.lstrip(_TRIM))
            right = line_end - (len(line) - len(line.rstrip(_TRIM)))
            # Each value alone on its line, as its label would have it: "Company number:
            # 01234567" is a line of its own kind, and ends the stack unpaired.
            if left >= right or not _STACKED_VALUE[field].fullmatch(folded, left, right):
                break
            values.append((left, right))
        if len(values) == len(fields):
            found += [
                Found(left, right, field)
                for (left, right), field in zip(values, fields, strict=True)
            ]
    return found


# Longer than this, a line is not a label alone, nor a value alone.
MAX_LABEL_LINE = 60
# A stacked value as its label would take it (redaction_labels), the whole line.
_STACKED_VALUE = {field: re.compile(value) for field, value in VALUE_PATTERNS.items()} | {
    "ibans": re.compile(r"[a-z]{2}[0-9]{2}(?:[ ]?[a-z0-9]{1,4}){3,8}")
}


def _short_lines(folded: str, start: int) -> Iterator[tuple[int, int]]:
    """The lines from `start` while each is short (a label's or a value's)."""
    while start < len(folded):
        end = folded.find("\n", start, start + MAX_LABEL_LINE + 1)
        if end == -1:
            if len(folded) - start > MAX_LABEL_LINE:
                return
            end = len(folded)
        yield start, end
        start = end + 1


def _label_line_field(line: str) -> str | None:
    """The kind of personal data a line that is nothing but a label names ("Passport
    No.", "Kontonummer:"), if it is one."""
    cell = line.strip(" \t:")
    if not cell or len(cell) > 40 or _DIGIT.search(cell):
        return None
    if _BARE_PHONE_HEADER.fullmatch(cell.rstrip(".")):
        return "phone_numbers"
    return field_named_by(cell)


def _line_end(folded: str, at: int) -> int:
    end = folded.find("\n", at)
    return len(folded) if end == -1 else end


def _layout(line: str) -> str:
    if "|" in line:
        return "bars"
    if "\t" in line or _TWO_SPACES_BETWEEN_WORDS.search(line):
        return "aligned"
    return _delimiter(line) or "single spaces"


# A header cell of separated values is a few words: "date_of_birth", "Passport No.".
_MAX_HEADER_CELL_WORDS = 4


def _delimiter(line: str) -> str | None:
    """The comma or semicolon a header of separated values ("name,passport_no,dob") puts
    between its cells, if `line` is one: every cell a few words, no digit."""
    delimiter = ";" if line.count(";") > line.count(",") else ","
    cells = [cell.strip(' \t"') for cell in line.split(delimiter)]
    while cells and not cells[-1]:
        cells.pop()  # "name,passport_no,dob," ends in a delimiter
    if len(cells) < 2:
        return None
    # Each a few words with a letter ("address_line_1"), none a value ("2024").
    if all(
        0 < len(cell.split()) <= _MAX_HEADER_CELL_WORDS and _LETTER.search(cell) for cell in cells
    ):
        return delimiter
    return None


_SEPARATED_CELL = {
    delimiter: re.compile(
        rf'[ \t]*(?:"(?P<quoted>(?:[^"\n]|"")*)"'
        rf'|(?P<bare>(?:[^{delimiter}"\n \t]|[ \t]+(?=[^{delimiter}"\n \t]))*))[ \t]*'
        rf"(?P<end>{delimiter}|$)"
    )
    for delimiter in ",;"
}


def _separated_cells(folded: str, start: int, end: int, delimiter: str) -> list[tuple[int, int]]:
    """Each cell's span in a line of separated values, inside its quotation marks if it
    has them ('"Becker, Tom"' is one cell); no cells for a line that is not such a row."""
    cells = []
    at = start
    while True:
        cell = _SEPARATED_CELL[delimiter].match(folded, at, end)
        if cell is None:
            return []
        group = "quoted" if cell["quoted"] is not None else "bare"
        cells.append(cell.span(group))
        if not cell["end"]:
            return cells
        at = cell.end()


def _lines(folded: str, start: int) -> Iterator[tuple[int, int]]:
    while start < len(folded):
        end = _line_end(folded, start)
        yield start, end
        start = end + 1


def _cells(folded: str, start: int, end: int, layout: str) -> list[tuple[int, int]]:
    """Each cell's span, without the spaces around it."""
    if layout in _SEPARATED_CELL:
        return _separated_cells(folded, start, end, layout)
    if layout == "bars":
        parts, gaps = folded[start:end].split("|"), [1] * folded.count("|", start, end)
    else:
        parts = _CELL_GAP.split(folded[start:end])
        gaps = [len(gap) for gap in _CELL_GAP.findall(folded, start, end)]
    cells = []
    for part, gap in zip(parts, [*gaps, 0], strict=True):
        left = start + len(part) - len(part.lstrip())
        cells.append((left, max(left, start + len(part.rstrip()))))
        start += len(part) + gap
    return cells


def column_field(cell: str) -> str | None:
    """The kind of personal data a header cell names, if it does."""
    if len(cell) > 40:
        return None
    for word in _ANY_LABEL_WORD.finditer(cell):
        if starts_a_word(cell, word.start()):
            field = _field_of(word[0])
            about_another = _ABOUT_ANOTHER_THING.search(cell)
            return None if about_another and field != "dates_of_birth" else field
    return None


def _column_rows(folded: str, start: int, end: int, layout: str) -> tuple[list[Found], int]:
    header = _cells(folded, start, end, layout)
    fields = _phone_columns_beside_identity(
        [folded[left:right] for left, right in header],
        [column_field(folded[left:right]) for left, right in header],
    )
    if len(header) < 2 or not any(fields):
        return [], end
    if layout == "bars":
        # A bar before the first cell, or none: rows are read either way.
        if folded[start:end].lstrip().startswith("|"):
            fields = fields[1:]
        return _bar_rows(folded, end + 1, fields)
    found: list[Found] = []
    searched_to = end
    for row_start, row_end in _lines(folded, end + 1):
        line = folded[row_start:row_end]
        if not line.strip():
            break
        searched_to = row_end
        if _RULE_LINE.fullmatch(line):
            continue
        cells = _cells(folded, row_start, row_end, layout)
        if layout in _SEPARATED_CELL:
            if layout not in line:
                break  # a line of prose after the table
            if len(cells) != len(header):
                continue  # a cell with a comma of its own, unquoted: its columns are unknown
        elif len(cells) < 2:
            break
        for column, (left, right) in _placed(cells, header, row_start, start):
            field = fields[column]
            if field and _is_value(folded[left:right], field):
                found.append(Found(left, right, field))
    return found, searched_to


# A bare telephone header: a company's switchboard in a filing, a person's own line in a
# table that also identifies them (redaction_labels.phones_beside_a_person).
_BARE_PHONE_HEADER = re.compile(
    r"(?:phone|telephone|tel\.?|telefon|téléphone|teléfono|telefono)(?:\s*(?:no\.?|number|nr\.?))?"
)


def _phone_columns_beside_identity(cells: list[str], fields: list[str | None]) -> list[str | None]:
    """`fields`, with a bare telephone column read as personal when another column of the
    header holds a passport number, national ID or date of birth."""
    if not IDENTIFYING_FIELDS.intersection(fields):
        return fields
    return [
        "phone_numbers"
        if field is None and _BARE_PHONE_HEADER.fullmatch(cell.strip(_TRIM))
        else field
        for cell, field in zip(cells, fields, strict=True)
    ]


def _bar_rows(folded: str, start: int, fields: list[str | None]) -> tuple[list[Found], int]:
    """The rows are the lines with a bar in them; a column's cells are read by one regex,
    as a long table is read row by row at the regex engine's speed."""
    end = _BAR_LINES.match(folded, start).end()
    found: list[Found] = []
    for column, field in enumerate(fields):
        if field is None:
            continue
        for cell in _bar_column(column).finditer(folded, start, end):
            left, right = cell.span("cell")
            if _is_value(folded[left:right], field):
                found.append(Found(left, right, field))
    return found, end


@cache
def _bar_column(column: int) -> re.Pattern[str]:
    """The cell of a row in `column`, counted from 0 after any bar before the first cell,
    without the spaces around it; only a cell with a digit, as any other holds nothing to
    hide."""
    return re.compile(
        rf"^(?>[^\S\n]*\|?)(?:[^|\n]*\|){{{column}}}(?>[^\S\n]*)(?P<cell>[^|\n]*?[0-9](?:[^|\n]*[^|\s])?)",
        re.MULTILINE,
    )


def _placed(
    cells: list[tuple[int, int]],
    header: list[tuple[int, int]],
    row_start: int,
    header_start: int,
) -> Iterator[tuple[int, tuple[int, int]]]:
    """Each cell of a row with the header column it is in: by order when the row has as
    many cells as the header, else by where it stands on the line (a row may leave a cell
    empty)."""
    if len(cells) == len(header):
        yield from enumerate(cells)
        return
    starts = [left - header_start for left, _ in header]
    bounds = [*starts[1:], 10**9]
    for left, right in cells:
        a, b = left - row_start, right - row_start
        overlaps = [
            min(b, bound) - max(a, begin) for begin, bound in zip(starts, bounds, strict=True)
        ]
        yield max(range(len(header)), key=overlaps.__getitem__), (left, right)


def _is_value(value: str, field: str) -> bool:
    """A cell holding a number, not words about one, nor a date in a number's column."""
    digits = len(_DIGIT.findall(value))
    if not digits or len(value) > 42 or digits * 3 < len(_LETTER_OR_DIGIT.findall(value)):
        return False
    return field == "dates_of_birth" or not _DATE.fullmatch(value)


def _single_space_rows(
    text: str, folded: str, start: int, end: int, known: list[Found]
) -> tuple[list[Found], int]:
    number_columns = _number_columns(text[start:end], folded[start:end])
    date_columns = _date_columns(text[start:end], folded[start:end])
    personal = list(dict.fromkeys(field for field in number_columns if field))
    births = "dates_of_birth" in date_columns
    if not personal and not births:
        return [], end
    found: list[Found] = []
    searched_to = end
    for row_start, row_end in _lines(folded, end + 1):
        dates = _row_dates(folded, row_start, row_end) if births else []
        words = _row_numbers(folded, row_start, row_end, known, personal, number_columns, dates)
        personal_words = [word for word in words if word.field in personal]
        births_in_row = _dates_of_birth(dates, date_columns, text, row_start, row_end)
        if not personal_words and not births_in_row:
            break
        searched_to = row_end
        if len(words) == len(number_columns):
            personal_words = [
                word._replace(field=field)
                for word, field in zip(words, number_columns, strict=True)
                if field is not None
            ]
        found += personal_words + births_in_row
    return found, searched_to


def _row_numbers(
    folded: str,
    start: int,
    end: int,
    known: list[Found],
    personal: list[str],
    number_columns: list[str | None],
    dates: list[Found],
) -> list[Found]:
    """The row's numbers in order, each with the kind its form says it is; its `dates`
    are none of them."""
    in_row = [
        span
        for span in known[bisect_left(known, (start,)) : bisect_left(known, (end,))]
        if span.field in _WORD_SHAPES
    ]
    if "ibans" in personal:
        grouped = (iban.span() for iban in _GROUPED_IBAN.finditer(folded, start, end))
        in_row = sorted(
            in_row + [Found(*span, "ibans") for span in _not_overlapping(grouped, in_row)]
        )
    if "phone_numbers" in personal:
        # A telephone number's groups are one cell, not numbers of other columns.
        phones = (phone.span() for phone in _ROW_PHONE.finditer(folded, start, end))
        in_row = sorted(
            in_row + [Found(*span, "phone_numbers") for span in _not_overlapping(phones, in_row)]
        )
    numbers = list(in_row)
    for left, right in _not_overlapping(_words(folded, start, end), sorted(in_row + dates)):
        if kind := _number_kind(folded[left:right], personal, number_columns):
            numbers.append(Found(left, right, kind))
    return sorted(numbers)


def _not_overlapping(
    spans: Iterable[tuple[int, int]], taken: list[Found]
) -> Iterator[tuple[int, int]]:
    """The `spans`, in order, that overlap none of `taken` (sorted): each read once, as a
    row may be a long line."""
    at = 0
    for left, right in spans:
        while at < len(taken) and taken[at].end <= left:
            at += 1
        if at == len(taken) or taken[at].start >= right:
            yield left, right


def _row_dates(folded: str, start: int, end: int) -> list[Found]:
    return [
        Found(*date.span(), "dates_of_birth")
        for date in _ROW_DATE.finditer(folded, start, end)
        if (month := date["month"] or date["month_first"]) is None or month[:3] in _MONTH_STARTS
    ]


def _dates_of_birth(
    dates: list[Found], date_columns: list[str | None], text: str, row_start: int, row_end: int
) -> list[Found]:
    """The row's dates in its date-of-birth columns: matched to the header's date columns
    in order, or, when there are more or fewer of them, every one, as which is a date of
    birth cannot be told. A sentence under a table is no row of it."""
    if not dates or _reads_as_prose(text[row_start:row_end]):
        return []
    if any(_after_a_lower_case_word(text, row_start, date.start) for date in dates):
        return []  # "incorporated 5 April 2001", "on 2019-05-01": a sentence's date
    if len(dates) != len(date_columns):
        return dates
    return [date for date, field in zip(dates, date_columns, strict=True) if field]


def _after_a_lower_case_word(text: str, row_start: int, at: int) -> bool:
    words = text[max(row_start, at - 40) : at].split()
    return bool(words) and words[-1].isalpha() and words[-1].islower()


def _reads_as_prose(line: str) -> bool:
    """Three words in a row in lower case ("was incorporated on"), as no row of names,
    numbers and dates has; a name's "de la" or "of" are not counted."""
    in_a_row = 0
    for word in line.split():
        if word.isalpha() and word.islower() and not _SMALL_WORD.fullmatch(word):
            in_a_row += 1
            if in_a_row == 3:
                return True
        else:
            in_a_row = 0
    return False


def _title_case(line: str) -> bool:
    """A table's header as PDF text gives it, not a sentence: no digits, no colon, no full
    stop but an abbreviation's, and most of its words capitalised ("Date of issue")."""
    if _DIGIT_OR_COLON.search(line):
        return False
    line = _GLUED_WORDS.sub(" ", line)
    words = [word for word in line.split() if not _SMALL_WORD.fullmatch(word.lower())]
    if len(words) < 2:
        return False
    if line.rstrip()[-1] in ".,;!?" and not _SMALL_WORD.fullmatch(line.split()[-1].lower()):
        return False
    return sum(word[:1].isupper() for word in words) * 2 >= len(words)


def _number_columns(header: str, folded: str) -> list[str | None]:
    """The header's columns of numbers in order: a kind of personal data, or None for
    another number."""
    columns = [(m.start(), None) for m in _OTHER_NUMBER_LABEL.finditer(folded)]
    for word in _ANY_LABEL_WORD.finditer(folded):
        field = _field_of(word[0])
        numbered = field in _WORD_SHAPES or field == "phone_numbers"
        if numbered and _starts_a_cell(header, folded, word.start()):
            columns.append((word.start(), field))
    return [field for _, field in sorted(columns, key=lambda column: column[0])]


def _date_columns(header: str, folded: str) -> list[str | None]:
    """The header's columns of dates in order: "dates_of_birth", or None for another date
    ("Date of issue", "Incorporated")."""
    columns: list[tuple[int, int, str | None]] = [
        (word.start(), word.end(), "dates_of_birth")
        for word in _ANY_LABEL_WORD.finditer(folded)
        if _field_of(word[0]) == "dates_of_birth" and _starts_a_cell(header, folded, word.start())
    ]
    for word in _OTHER_DATE_LABEL.finditer(folded):
        inside_another = any(left <= word.start() < right for left, right, _ in columns)
        if not inside_another and _starts_a_cell(header, folded, word.start()):
            columns.append((word.start(), word.end(), None))
    merged: list[tuple[int, int, str | None]] = []
    for column in sorted(columns):
        # "Date of issue", "Expiry date": two words naming one column.
        if merged and _one_date_column(folded, merged[-1], column):
            merged[-1] = (merged[-1][0], column[1], None)
        else:
            merged.append(column)
    return [field for _, _, field in merged]


def _one_date_column(
    folded: str, before: tuple[int, int, str | None], after: tuple[int, int, str | None]
) -> bool:
    if before[2] or after[2]:  # "Date of birth" names its column whole
        return False
    between = folded[before[1] : after[0]].split()
    words = (folded[before[0] : before[1]], folded[after[0] : after[1]])
    return any(_DATE_WORD.fullmatch(word) for word in words) and all(
        _SMALL_WORD.fullmatch(word) for word in between
    )


def _starts_a_cell(header: str, folded: str, at: int) -> bool:
    """A word that starts at `at`, or a cell's first word run into the cell before it, as
    PDF text runs a column's header into the next ("Company numberIBAN")."""
    if starts_a_word(folded, at):
        return True
    camel_case = header[at - 1].islower() and header[at].isupper()
    return camel_case or bool(_HEADER_WORD_BEFORE.search(folded, max(0, at - 7), at))


def _words(folded: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    for word in _WORD.finditer(folded, start, end):
        text = word[0]
        left = word.start() + len(text) - len(text.lstrip(_TRIM))
        right = word.end() - (len(text) - len(text.rstrip(_TRIM)))
        if left < right:
            yield left, right


def _number_kind(word: str, personal: list[str], number_columns: list[str | None]) -> str | None:
    if _DATE.fullmatch(word):
        return None
    for field in personal:
        shape = _WORD_SHAPES.get(field)
        if shape is not None and shape.fullmatch(word):
            return field
    if None in number_columns and _NUMBER_SHAPE.fullmatch(word):
        return "other"
    return None
