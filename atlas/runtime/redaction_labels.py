"""Personal data a label names: "Passport No. K7654321", "Kontonummer: 12345678".

Patterns run on the text in lower case (`folded`, one character for each of the text's),
without IGNORECASE: each starts with its label's literal word, which the regex engine finds
as fast as a plain string search, where a case-insensitive alternation tries every position.
"""

from __future__ import annotations

import bisect
import functools
import re
from typing import NamedTuple


class Found(NamedTuple):
    start: int
    end: int
    field: str


# "No.", "Nr", "numbers", "n°" or "#" after a label, or glued to it ("Kontonummer"), or
# joined to it as a file name joins words ("passport_no", "account.number"). Atomic, as is
# the gap after it: whitespace that could be split between two quantifiers in many ways
# made a long run of spaces after a label cost quadratic time. The word must end inside the
# group, so "no" keeps from "passport.no.K7654321" only what leaves it a word.
A_NUMBER_WORD = (
    r"(?>(?:[\s_-]*|\.)(?:numbers?|nummer|num[ée]ro|n[úu]mero|n[úu]m\.?|nos?\.?|nr\.?|n[°º.]\.?"
    r"|#|№|code|номер|č\.)(?![^\W\d_]))"
)
NUMBER_WORD = rf"{A_NUMBER_WORD}?"
# What a form may put in brackets after a label: "Passport (UK):", "Date of birth
# (DD/MM/YYYY):", "Passport (issued 2010):"; words, not the number's own "(555)".
_BRACKETED = r"(?:(?>[ \t]*)\((?=[^()\n]{0,23}[^\W\d_])[^()\n]{1,24}\))?"
# Between a label and its value: spaces or line breaks, a colon, "=" or a dash, a table's
# bars ("| Passport | K7654321 |"), a file name's underscores ("passport_K7654321.pdf"),
# "is" or "was" in a sentence ("my passport number is K7654321"), the quotation marks of a
# key and its value written out as JSON ('"passport_no": "K7654321"'), and a bracket before
# the value ("passport (K7654321)"), not a telephone's area code ("(020) 7946 0958"); or a full stop with the value right after it
# ("passport.K7654321"), not a sentence's end.
LABEL_GAP = (
    r"""(?>\.(?=[^\W_])|["'”’]?[\s_|]*(?:(?:is|was)\s+(?:the\s+)?)?(?:[:#=–—-][\s_|]*)?"""
    r"""(?:["'“‘«]|\((?![0-9+ ]{1,6}\)))?)"""
)
# After a value: no letter or digit, though a file name's "_" may follow ("K7654321_John").
VALUE_END = r"(?![^\W_])"
# Between the groups of a number: a space or a dash, or a line break where it was wrapped.
GROUP_GAP = r"(?:[ -]|[ \t]*\r?\n[ \t]*)"
# At least six characters in groups, each after an optional letter prefix holding a digit:
# "K7654321", "K 765 4321", "QQ 12 34 56", not "see page 2" nor the words after a number.
GROUPED_NUMBER = rf"(?=[a-z0-9\s-]{{6}})(?:[a-z]{{1,3}}{GROUP_GAP}?)?[0-9][a-z0-9]*(?:{GROUP_GAP}[0-9][a-z0-9]*){{0,5}}"
# A national number may run to more groups (France's NIR is "1 85 05 78 006 084 36"), and
# be grouped by full stops (Brazil's CPF is "123.456.789-09") or split by a slash (the
# Czech rodné číslo is "750314/1234").
NATIONAL_ID_NUMBER = (
    rf"(?=[a-z0-9\s.-]{{6}})(?:[a-z]{{1,3}}{GROUP_GAP}?)?[0-9][a-z0-9]*"
    rf"(?:(?:{GROUP_GAP}|[./](?=[0-9]))[0-9][a-z0-9]*){{0,7}}"
)
# A telephone number of at least seven digits: "+44 7700 900123", "(020) 7946-0958",
# "06.12.34.56.78". Each run of digits is taken whole, so a number followed by letters
# fails at once instead of being split every way.
# A narrow column may wrap it after its first group ("+44\n7700 900123"), never later: a
# number on the next line is another line's.
PHONE_NUMBER = (
    r"(?=(?:[ \t\r\n().+/-]{0,4}[0-9]){7})\+?(?>\(?[0-9]+\)?)"
    r"(?:[ \t]*\r?\n[ \t]*(?=\(?[0-9]))?(?>(?:[ ./-]|\) ?)?\(?[0-9]+\)?){0,7}"
)
# Italy's codice fiscale: six letters of the name, then the birth date and place coded.
_CODICE_FISCALE = r"[a-z]{6}[0-9]{2}[a-z][0-9]{2}[a-z][0-9]{3}[a-z](?![^\W_])"
# Between the numbers of a list ("K7654321, P1234567", "12345678 and 87654321").
_LIST_SEPARATOR = r"(?:\s*(?:[,;&]|\b(?:and|or|und|et|y|e|en|и)\b)\s*|\s+/\s+)"
# The same, to split a list found: faster, as it need not find where the list ends.
_BETWEEN_LISTED = re.compile(r"\s*[,;&]\s*|\s+(?:and|or|und|et|y|e|en|и|/)\s+", re.IGNORECASE)
# A further number in a list has at least five digits, so "K7654321, 2 copies" ends at
# the first.
_ANOTHER_NUMBER = r"(?=(?:[a-z -]{0,4}[0-9]){5})"
ACCOUNT_NUMBER = r"[0-9](?:[0-9 -]|\r?\n(?=[ ]*[0-9])){5,34}[0-9](?:/[0-9]{4})?"
_CARD_NUMBER = rf"[0-9](?:{GROUP_GAP}?[0-9]){{12,18}}"
# A date, its parts apart as a file name may join them too: "1970_01_02", "12_March_1968",
# "3rd of May 1981";
# or all together, year first, as forms and exports write it: "19700102".
_DATE = (
    r"[0-9]{1,4}[-/._][0-9]{1,2}[-/._][0-9]{1,4}"
    r"|[0-9]{1,2}(?:st|nd|rd|th)?\.?[ _-](?:(?:de|of)[ _])?[^\W\d_]+\.?,?[ _-](?:de[ _])?[0-9]{4}"
    r"|[^\W\d_]{3,9}\.?[ _-][0-9]{1,2}(?:st|nd|rd|th)?,?[ _-][0-9]{4}"
    r"|[0-9]{1,2}\. [0-9]{1,2}\. [0-9]{4}"
    r"|(?:19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])(?![0-9])"
)


# A licence number may begin with up to five letters of a surname (Britain's
# "MORGA753116SM9IJ", or "MORGA 753116 SM9IJ"), and run to a few groups, each with a digit.
_DRIVING_LICENCE_NUMBER = (
    r"(?=[a-z0-9 -]{6})(?:[a-z]{1,5}[ -](?=[0-9]))?[a-z]{0,5}[0-9][a-z0-9]*"
    r"(?:[ -](?=[a-z]{0,5}[0-9])[a-z0-9]+){0,4}"
)


def _listed(number: str) -> str:
    """`number`, or a list of such numbers."""
    return rf"{number}(?:{_LIST_SEPARATOR}{_ANOTHER_NUMBER}{number})*"


# The words that name each kind of personal data, in the languages documents come in, as
# written in lower case. A word that is also a common syllable ("conto" in "sconto", "card"
# in "discard") is only a label at the start of a word: those are listed in `WHOLE_WORDS`.
LABEL_WORDS: dict[str, tuple[str, ...]] = {
    "passport_numbers": (
        "passport",
        "reisepass",
        "passnummer",
        "pass-nr",
        "passeport",
        "pasaporte",
        "passaporto",
        "passaporte",
        "paspoort",
        "паспорт",
        "paszport",
        "paszportu",
        "cestovní pas",
        "cestovního pasu",
        "pasu",
    ),
    "account_numbers": (
        "account",
        "acct",
        "a/c",
        "konto",
        "compte",
        "cuenta",
        "conto",
        "rekening",
        "счёт",
        "счет",
        "konta",
        "rachunek",
        "rachunku",
        "účet",
        "účtu",
        "acc",
    ),
    "card_numbers": ("card", "karte", "kreditkarte", "carte", "tarjeta", "carta"),
    "national_id_numbers": (
        "ssn",
        "nino",
        "social security",
        "national insurance",
        "national id",
        "personal id",
        "id card",
        "identity card",
        "identity document",
        "personalausweis",
        "ausweis",
        "steuer-id",
        "steueridentifikationsnummer",
        "sozialversicherungsnummer",
        "carte d'identité",
        "sécurité sociale",
        "documento nacional de identidad",
        "dni",
        "codice fiscale",
        "carta d'identità",
        "bsn",
        "burgerservicenummer",
        "pesel",
        "cpf",
        "aadhaar",
        "dowód osobisty",
        "dowodu osobistego",
        "občanský průkaz",
        "občanského průkazu",
        "rodné číslo",
        "asmens kodas",
        "personal code",
        "personal tax id",
        "personal tax number",
        "individual tax id",
        "individual taxpayer id",
        "individual taxpayer identification number",
        "itin",
        "id",
        "ni",
        "identification",
        "document",
    ),
    "driving_licence_numbers": (
        "driving licence",
        "driving license",
        "driver's license",
        "driver’s license",
        "drivers license",
        "driver license",
        "driver's licence",
        "driver’s licence",
        "drivers licence",
        "driver licence",
        "drivers' licence",
        "drivers’ licence",
        "driver's lic",
        "driver’s lic",
        "driving lic",
        "dl",
        "driving permit",
        "führerschein",
        "permis de conduire",
        "licencia de conducir",
        "carnet de conducir",
        "patente di guida",
        "rijbewijs",
        "prawo jazdy",
        "водительское удостоверение",
    ),
    "dates_of_birth": (
        "date of birth",
        "birth date",
        "birthdate",
        "dob",
        "d.o.b",
        "born",
        "geburtsdatum",
        "geboren",
        "geb.",
        "date de naissance",
        "né le",
        "née le",
        "fecha de nacimiento",
        "data di nascita",
        "data de nascimento",
        "geboortedatum",
        "дата рождения",
        "data urodzenia",
        "urodzony",
        "urodzona",
        "ur.",
        "datum narození",
        "narozen",
        "narozena",
        "nar.",
    ),
    # A person's own line; a bare "phone" or "tel." is as often a company's switchboard
    # in a filing, which stays (see phones_beside_a_person for when it is not).
    "phone_numbers": (
        "mobile",
        "mob",
        "whatsapp",
        "telephone (mobile)",
        "phone (mobile)",
        "portable",
        "mobile phone",
        "mobile telephone",
        "cell",
        "cell phone",
        "cellphone",
        "home phone",
        "home telephone",
        "personal phone",
        "private phone",
        "handy",
        "mobil",
        "mobiltelefon",
        "téléphone portable",
        "tél. portable",
        "tel. portable",
        "móvil",
        "teléfono móvil",
        "celular",
        "cellulare",
        "telefono cellulare",
        "mobiel",
        "gsm",
        "мобильный",
        "мобильный телефон",
        "сотовый",
        "telefon komórkowy",
        "tel. kom.",
        "komórka",
        "mobilní telefon",
        "mobilní",
    ),
}
WHOLE_WORDS = frozenset(
    {"acct", "a/c", "conto", "compte", "card", "karte", "carte", "carta", "ssn", "nino"}
    | {"dob", "born", "pass-nr", "passnummer", "счет", "счёт", "cuenta"}
    | {"geboren", "geb.", "né le", "née le"}
    | {"id card", "ausweis", "dni", "bsn", "pesel", "cpf", "itin"}
    | {"mobile", "mobil", "móvil", "cell", "handy", "gsm"}
    | {"pasu", "konta", "ur.", "nar.", "urodzony", "urodzona", "narozen", "narozena"}
    | {"acc", "id", "ni", "document", "d.o.b", "mob", "portable", "dl"}
)
# Words that name personal data only with a number word after them: "ID No.", "NI number",
# "Document number", "Acc No", "DL#", not "ID card" (a label of its own), "NI" (Northern
# Ireland) or "the document".
NEEDS_A_NUMBER_WORD = frozenset({"acc", "id", "ni", "identification", "document", "dl"})
# A company has those numbers too: "USt-IdNr.", "VAT identification number", "Company ID
# No.", "Companies House NI number" (Northern Ireland's) are a company's, which research
# needs: the line before the word says whose.
_A_COMPANY_BEFORE = re.compile(
    r"\b(?:company|companies|vat|ust|business|corporate|registration"
    r"|registered|reg|employer|firm|entity|filing|isin|tax|irs|sec|customs)\b[^\n]{0,30}\Z"
)
# A "Document number" is an identity document's only where the form names one just before
# ("Document type: Passport"): elsewhere it is a filing's or a shipment's reference.
_AN_IDENTITY_DOCUMENT_BEFORE = re.compile(
    r"passport|identity|id card|driving|licen[cs]e|ausweis|pasaporte|passeport|dni"
)
# An identity number of digits alone holds this many at least: "document no. 45" is an item
# of a list, "Passport issued in 2019" a year, "Passport: number 5 of 7" a page.
MIN_ID_DIGITS = 5
_COUNTED_DIGITS = frozenset({"passport_numbers", "national_id_numbers", "driving_licence_numbers"})
# "passport verified 2020-01-01" gives the day it was checked, not its number.
_A_DAY = re.compile(
    r"[0-9]{4}([-/.])[0-9]{1,2}\1[0-9]{1,2}|[0-9]{1,2}([-/.])[0-9]{1,2}\2(?:[0-9]{2}){1,2}"
)

# What may follow a label's word before its number word: a plural, a case ending
# ("паспорта", "счёта"), or a qualifier ("cuenta corriente", "conto corrente").
_ENDINGS = {
    "passport_numbers": r"(?:s|[а-яё]+)?(?:\s+серия)?",
    "account_numbers": (
        r"(?:s|[а-яё]+|\.)?(?>[\s_-]+(?:corriente|corrente|courant|bancaria|bancario|bancaire))?"
    ),
    "card_numbers": r"s?",
    "driving_licence_numbers": r"(?:s|\.)?",
    "national_id_numbers": r"(?:entification|entity)?(?:[ _.-]card)?",
    "dates_of_birth": r"(?:\.| on(?: the)?| the| am)?",
    "phone_numbers": r"\.?",
}
VALUE_PATTERNS = {
    # Or a Russian passport's series, then its number: "4510 № 123456".
    "passport_numbers": rf"(?:[0-9]{{2}} ?[0-9]{{2}}\s*№\s*[0-9]{{6}}|{_listed(GROUPED_NUMBER)})"
    + VALUE_END,
    "account_numbers": _listed(ACCOUNT_NUMBER) + VALUE_END,
    "card_numbers": _CARD_NUMBER + VALUE_END,
    "national_id_numbers": rf"(?:{_CODICE_FISCALE}|{NATIONAL_ID_NUMBER}(?: [a-d]{VALUE_END})?)",
    "driving_licence_numbers": _DRIVING_LICENCE_NUMBER + VALUE_END,
    "dates_of_birth": _DATE,
    # Each telephone number of a list has seven digits by itself.
    "phone_numbers": rf"{PHONE_NUMBER}(?:{_LIST_SEPARATOR}{PHONE_NUMBER})*{VALUE_END}",
}
# The number word must end the label: "passports" is a label, "passporting" is not.
_WORD_END = r"(?![^\W\d_])"


def label_word_pattern(word: str) -> str:
    """`word` as a regex, its words apart by a space, a line break where the text was
    wrapped, or joined as a file name joins them ("date_of_birth", "national-id")."""
    return r"(?:[ _.-]|[ \t]*\r?\n[ \t]*)".join(re.escape(part) for part in word.split(" "))


def _label_head(field: str, word: str) -> str:
    """`word` as a label of `field`: with its endings, and a number word but for a date."""
    if field == "dates_of_birth":
        number_word = ""
    else:
        number_word = A_NUMBER_WORD if word in NEEDS_A_NUMBER_WORD else NUMBER_WORD
    return rf"{label_word_pattern(word)}{_ENDINGS.get(field, '')}{number_word}"


# Another name for the same field after a slash: "SSN/Tax ID:", "Passport / ID card no.:";
# not a company's ("Passport/Company Registration No.", "SSN/EIN"), whose number stays.
# Its words hold no "_", which the gap after them may hold: shared, they cost quadratic time.
# ("Registration" alone is as often a person's: a resident registration number.)
_A_COMPANYS_WORD = (
    r"(?:company|companies|vat|ein|crn|business|corporate|incorporation|firm|entity"
    r"|organi[sz]ation|trade|commercial|įmonės|įmonių)(?![^\W\d_])"
)
_ALSO_CALLED_WORD = rf"(?!{_A_COMPANYS_WORD})(?>[^\W\d_]+)\.?"
_ALSO_CALLED = rf"(?:[ \t]*/[ \t]*{_ALSO_CALLED_WORD}(?:[ \t]+{_ALSO_CALLED_WORD}){{0,3}})?"
# What a sentence or a form may say of the document before its number: "Passport held:",
# "Passport issued 2020, number 533401882".
_AS_HELD = (
    r"(?:[ \t]+(?:held|on file|sighted|verified|issued(?:[ \t]+in)?(?:[ \t]+[0-9]{4})?)"
    r"(?![^\W\d_]),?)?"
)
# The number word after the gap: "Passport: number K7654321", "her passport, no. K7654321",
# "her passport (number K7654321)".
_NUMBER_WORD_AFTER = rf"(?:[,(]?{A_NUMBER_WORD}{LABEL_GAP})?"


def _label_pattern(field: str, word: str) -> re.Pattern[str]:
    a_date = field == "dates_of_birth"
    return re.compile(
        rf"{_label_head(field, word)}{_WORD_END}{_ALSO_CALLED}{'' if a_date else _AS_HELD}"
        rf"{_BRACKETED}{LABEL_GAP}{'' if a_date else _NUMBER_WORD_AFTER}"
        rf"(?P<value>{VALUE_PATTERNS[field]})"
    )


# Per label word: its field, the word, its longest part (a plain substring every mention
# holds), the word's pattern and the pattern of the word with its value.
LABELLED: tuple[tuple[str, str, str, re.Pattern[str], re.Pattern[str]], ...] = tuple(
    (
        field,
        word,
        max(word.split(" "), key=len),
        # A word that names personal data only with a number word is looked for with it:
        # "id" is in most JSON ("entity_id"), "id no." in little.
        re.compile(
            label_word_pattern(word) + (A_NUMBER_WORD if word in NEEDS_A_NUMBER_WORD else "")
        ),
        _label_pattern(field, word),
    )
    for field, words in LABEL_WORDS.items()
    for word in words
)
# A word with a letter outside ASCII ("паспорт", "účtu") is in no text of ASCII alone, which
# most tool output is (its JSON escapes every other letter): such a text is not searched
# for those words.
LABELLED_IN_ASCII = tuple(entry for entry in LABELLED if entry[2].isascii())


# Keys of structured data that name what their values are, beside the label words.
_KEY_WORDS = {"emails": ("email", "e-mail", "mail address"), "ibans": ("iban",)}
_CAMEL_CASE_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@functools.lru_cache(maxsize=1024)
def field_named_by(key: str) -> str | None:
    """The kind of personal data a key of structured data names ("passport_no",
    "dateOfBirth", "id_card_number", "iban"), or None."""
    folded = _CAMEL_CASE_BOUNDARY.sub("_", key).lower()
    for field, pattern in _KEY_PATTERNS:
        if pattern.fullmatch(folded):
            return field
    return None


_KEY_PATTERNS = tuple(
    (field, re.compile(rf"{_label_head(field, word)}(?:[ _.-]?address)?"))
    for field, words in {**LABEL_WORDS, **_KEY_WORDS}.items()
    for word in words
)


def _digits(value: str) -> int:
    return sum(char.isdigit() for char in value)


def _an_identity_number(value: str, word: str) -> bool:
    """Whether `value` after `word` may be an identity number: a passport's may hold as
    many letters as digits ("NXC3PF2L8"), a bare number is a year or a count ("in 2019")."""
    if _a_day(value):
        return False
    enough_digits = _digits(value) >= MIN_ID_DIGITS
    if word in NEEDS_A_NUMBER_WORD:
        return enough_digits
    return enough_digits or _LETTER_BESIDE_A_DIGIT.search(value) is not None


_LETTER_BESIDE_A_DIGIT = re.compile(r"[^\W\d_][0-9]|[0-9][^\W\d_]")
# A short word before it ("on 2020-01-01", "in 2019") is read as a number's letters.
_WORD_BEFORE = re.compile(r"^[a-z]{1,3}[ ]+")
_YEARS = re.compile(r"(?:19|20)[0-9]{2}[ ]*[-–/][ ]*(?:19|20)[0-9]{2}")


def _a_day(value: str) -> bool:
    """Whether `value` is a day or a span of years ("2020-01-01", "on 2020-01-01",
    "2019-2029"), not a number."""
    bare = _WORD_BEFORE.sub("", value)
    return bool(_A_DAY.fullmatch(bare) or _YEARS.fullmatch(bare))


def listed_numbers(value: str) -> list[str]:
    """The numbers of a list found after a label."""
    return _BETWEEN_LISTED.split(value)


def starts_a_word(folded: str, at: int) -> bool:
    return at == 0 or not folded[at - 1].isalpha()


# A bare "phone" or "tel." gives a person's own line on a form that identifies a person:
# within PERSON_NEARBY characters of their passport number, national ID or date of birth.
BARE_PHONE_WORDS = (
    "phone",
    "telephone",
    "tel",
    "tel.",
    "tel/fax",
    "ph",
    "telefon",
    "téléphone",
    "teléfono",
    "telefono",
)
_BARE_PHONE_PATTERNS = tuple(_label_pattern("phone_numbers", word) for word in BARE_PHONE_WORDS)
IDENTIFYING_FIELDS = frozenset(
    {"passport_numbers", "national_id_numbers", "driving_licence_numbers", "dates_of_birth"}
)
PERSON_NEARBY = 300


def phones_beside_a_person(folded: str, found: list[Found]) -> list[Found]:
    """Numbers under a bare phone label near what identifies a person in `found`."""
    anchors = sorted(span.start for span in found if span.field in IDENTIFYING_FIELDS)
    if not anchors or not any(word in folded for word in ("ph", "tel")):
        return []
    phones = []
    for pattern in _BARE_PHONE_PATTERNS:
        for hit in pattern.finditer(folded):
            if starts_a_word(folded, hit.start()) and _near(anchors, hit.start()):
                phones.append(Found(*hit.span("value"), "phone_numbers"))
    return phones


# A line listing people: a date right after a name on it is that person's birth date
# ("Directors: Richard Miles 14.03.1975"); one after other words ("appointed 2019-01-02",
# "Incorporated 12 March 2019") or opening a range ("2019-01-02 to 2021-03-04") is not.
_PEOPLE_LINE = re.compile(
    r"(?m)^[ \t]*(?:directors?|officers?|signator(?:y|ies)|shareholders?"
    r"|beneficial[ \t]+owners?|ubos?|persons?[ \t]+with[ \t]+significant[ \t]+control)"
    r"[ \t]*:[^\n]*"
)
# A month's name or its abbreviation, in lower case (as the text is folded).
MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DATE_BESIDE_A_NAME = re.compile(
    r"(?<![\w/.-])(?:[0-9]{1,2}([./-])[0-9]{1,2}\1(?:19|20)[0-9]{2}|(?:19|20)[0-9]{2}-[0-9]{2}-[0-9]{2}"
    rf"|[0-9]{{1,2}}(?:st|nd|rd|th)?[ ]+(?:of[ ]+)?{MONTH}\.?,?[ ]+(?:19|20)[0-9]{{2}})"
    r"(?![\w/-])(?!\s*(?:to|until|till|[–—-])\s*[0-9])"
)
# A name's word: capitalised, letters with an apostrophe or hyphen, or an initial ("J.").
_NAME_WORD = re.compile(r"[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*|[^\W\d_]\.")


def dates_beside_names(text: str, folded: str) -> list[Found]:
    """Birth dates on a line that lists people ("Directors: Richard Miles 14.03.1975")."""
    found = []
    for line in _PEOPLE_LINE.finditer(folded):
        for date in _DATE_BESIDE_A_NAME.finditer(folded, line.start(), line.end()):
            before = text[line.start() : date.start()].rstrip(" \t,")
            words = before.split()[-2:]
            if len(words) == 2 and all(
                _NAME_WORD.fullmatch(word) and word[0].isupper() for word in words
            ):
                found.append(Found(*date.span(), "dates_of_birth"))
    return found


def _near(anchors: list[int], at: int) -> bool:
    """Whether one of the sorted `anchors` is within PERSON_NEARBY characters of `at`."""
    index = bisect.bisect_left(anchors, at - PERSON_NEARBY)
    return index < len(anchors) and anchors[index] <= at + PERSON_NEARBY


def labelled(folded: str) -> tuple[list[Found], list[int]]:
    """Values after their labels, and where the labels with no value after them are (a
    table's header, perhaps)."""
    found: list[Found] = []
    bare_labels: list[int] = []
    for field, word, longest_part, word_pattern, pattern in (
        LABELLED_IN_ASCII if folded.isascii() else LABELLED
    ):
        # Most texts name few of the words: a substring test passes over the others faster
        # than a search can start.
        if longest_part not in folded:
            continue
        for hit in word_pattern.finditer(folded):
            at = hit.start()
            if word in WHOLE_WORDS and not starts_a_word(folded, at):
                continue
            if word in NEEDS_A_NUMBER_WORD and _A_COMPANY_BEFORE.search(
                folded, max(0, at - 40), at
            ):
                continue
            if word == "document" and not _AN_IDENTITY_DOCUMENT_BEFORE.search(
                folded, max(0, at - 80), at
            ):
                continue
            match = pattern.match(folded, at)
            if match and field in _COUNTED_DIGITS and not _an_identity_number(match["value"], word):
                continue
            if match and field == "account_numbers" and _a_day(match["value"]):
                continue  # "Last accounts: 2023-03-31" is a filing's date
            if match:
                found.append(Found(*match.span("value"), field))
            else:
                bare_labels.append(at)
    return found, bare_labels
