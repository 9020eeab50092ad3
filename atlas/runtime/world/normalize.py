"""Name normalization for fuzzy matching: transliteration, accents, legal suffixes."""

from __future__ import annotations

import functools
import hashlib
import re

from anyascii import anyascii

_CYRILLIC = {
    "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh",
    "з": "z", "и": "i", "й": "y", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o",
    "п": "p", "р": "r", "с": "s", "т": "t", "у": "u", "ф": "f", "х": "kh", "ц": "ts",
    "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "", "ы": "y", "ь": "", "э": "e", "ю": "yu",
    "я": "ya", "і": "i", "ї": "yi", "є": "ye", "ґ": "g",
}  # fmt: skip
_CYRILLIC_LETTERS = str.maketrans(_CYRILLIC)

LEGAL_SUFFIXES = frozenset(
    [
        "ltd",
        "limited",
        "llc",
        "inc",
        "incorporated",
        "plc",
        "pte",
        "pty",
        "pvt",
        "jsc",
        "gmbh",
        "ag",
        "bv",
        "sa",
        "spa",
        "kk",
        "fze",
        "uab",
        "as",
        "lp",
        "corp",
        "corporation",
        "co",
        "company",
        "oao",
        "ooo",
        "ao",
    ]
)


# Legal forms written out, as their abbreviations: "Limited" is Ltd.
LEGAL_FORM_SPELLINGS = {
    "limited": "ltd",
    "incorporated": "inc",
    "corporation": "corp",
    "company": "co",
}


# Titles a source may put before a person's name: "Dr. Jane Doe" is Jane Doe.
HONORIFICS = frozenset(
    ["mr", "mrs", "ms", "miss", "mx", "dr", "prof", "professor", "sir", "dame", "lord", "lady"]
)


def transliterate(text: str) -> str:
    """ASCII letters for any script: Cyrillic by the table above (the spellings the lists
    use), everything else by anyascii (ø, ß, ł, þ and the like, which no accent-stripping
    turns into letters)."""
    return anyascii(text.lower().translate(_CYRILLIC_LETTERS)).lower()


def normalize_text(text: str) -> str:
    """Lowercase, transliterated, accent-free, punctuation-free, single-spaced (anyascii
    leaves no accent behind: "é" is "e")."""
    # Names and queries come back every step; a document's text is normalized once.
    if len(text) <= REMEMBERED_LENGTH:
        return _normalized_remembered(text)
    return _normalized(text)


# Texts up to this long (names, queries, titles) are remembered once normalized.
REMEMBERED_LENGTH = 300


def _normalized(text: str) -> str:
    text = transliterate(text)
    text = re.sub(r"[^a-z0-9]+", " ", text)
    return " ".join(text.split())


_normalized_remembered = functools.lru_cache(maxsize=8192)(_normalized)


def normalize_name(name: str) -> str:
    """normalize_text without legal-form words (Ltd, LLC, JSC, ...) or titles before it."""
    tokens = [t for t in normalize_text(name).split() if t not in LEGAL_SUFFIXES]
    return " ".join(_without_titles(tokens)) or normalize_text(name)


def legal_form_word(word: str) -> str:
    """A word as a legal form would be named: "Limited" is "ltd"."""
    word = normalize_text(word)
    return LEGAL_FORM_SPELLINGS.get(word, word)


def legal_forms(name: str) -> frozenset[str]:
    """The legal form of a company's name, however it is spelled: "Acme Analytics
    Limited" and "Acme Analytics Ltd" both have Ltd."""
    words = map(legal_form_word, normalize_text(name).split())
    return frozenset(word for word in words if word in LEGAL_SUFFIXES)


def normalize_person(name: str) -> str:
    """normalize_text without the titles before the name."""
    return " ".join(_without_titles(normalize_text(name).split()))


def _without_titles(tokens: list[str]) -> list[str]:
    while len(tokens) > 1 and tokens[0] in HONORIFICS:
        tokens = tokens[1:]
    return tokens


def normalize_registration_number(number: str) -> str:
    """A registration number as registries mean it, however it was written: "DE-7731002"
    is DE7731002, and "6677889" is 06677889 (a number of digits alone, without the zeros
    that pad it to its registry's length)."""
    text = re.sub(r"[^a-z0-9]", "", normalize_text(number))
    return (text.lstrip("0") or text) if text.isdigit() else text


# What an analyst may type before a company's number: "No. ", "Company number ", "CRN: ".
_NUMBER_LABEL = re.compile(
    r"^\s*(?:(?:company|registration|registered|reg\.?)\s+)*(?:number|no\.?|nr\.?|crn|#)\s*:?\s*",
    re.IGNORECASE,
)


def is_registration_number(typed: str, number: str | None) -> bool:
    """Whether `typed` gives the registration number `number`, however it is written: "0881
    2345", "8812345", "No. 08812345", "CRN: 0881 2345" are all 08812345."""
    if not number or not any(ch.isdigit() for ch in typed):
        return False
    bare = normalize_registration_number(_NUMBER_LABEL.sub("", typed))
    return bare == normalize_registration_number(number)


# Given names transliterated from Arabic in many spellings, each with one of them: the
# letters that differ are vowels, which the skeleton cannot ignore without taking Anna
# and Anne Lee for one person.
GIVEN_NAME_SPELLINGS = {
    spelling: name
    for name, spellings in {
        "muhammad": "mohammed mohamed mohammad mohamad muhammed muhamed mohammod",
        "ahmad": "ahmed ahmet",
        "mahmoud": "mahmud mahmood",
        "husayn": "hussein hussain husain hossein husein",
        "yusuf": "youssef yousef yousuf yusef",
        "usama": "osama",
        "umar": "omar",
        "abd": "abdul abdel abdal",
    }.items()
    for spelling in spellings.split()
}


# Letters written for one sound in the English, French and German spellings of Russian
# names, first the longest: Zhukov is Joukov, Tchaikovsky Tschaikowski, Dzhabarov Djabarov.
SOUND_SPELLINGS = (
    ("shch", "sh"), ("tsch", "ch"), ("tch", "ch"), ("sch", "sh"), ("dzh", "j"), ("zh", "j"),
    ("dj", "j"), ("ou", "u"), ("kh", "h"), ("ff", "v"), ("w", "v"), ("iy", "i"), ("ij", "i"),
    ("y", "i"), ("ph", "f"), ("ck", "k"), ("x", "ks"),
)  # fmt: skip


@functools.lru_cache(maxsize=8192)
def phonetic_skeleton(name: str) -> str:
    """A coarse spelling-insensitive form: Wolkow/Volkov, Dmitriy/Dmitri, Volkoff/Volkov,
    Mohamed/Muhammad, Alexei/Aleksey, Zhukov/Joukov."""
    return _skeleton_of(normalize_name(name))


def _skeleton_of(normalized: str) -> str:
    text = " ".join(GIVEN_NAME_SPELLINGS.get(word, word) for word in normalized.split())
    for old, new in SOUND_SPELLINGS:
        text = text.replace(old, new)
    return re.sub(r"(.)\1+", r"\1", text)


# How German and French spell the sounds of Russian names, rewritten as English spells them
# before the skeleton is made: Jelzin and Eltsine are Yeltsin, Chruschtschow and
# Khrouchtchev Khrushchev, Jewgeni and Evgueni Yevgeny. In order; "\0" holds a sound while
# the letters it is written with are rewritten for another.
GERMAN_SPELLINGS = (
    ("tsch", "\0"), ("sch", "\1"), ("ch", "kh"), ("\0", "ch"),
    ("z", "ts"), ("j", "y"), ("ow", "ov"), ("ew", "ev"),
)  # fmt: skip
# German writes both sh and zh as "sch": Schukow is Zhukov, Prigoschin Prigozhin.
GERMAN_SCH = ("sh", "zh")
FRENCH_SPELLINGS = (
    ("tch", "\0"), ("ch", "sh"), ("\0", "ch"), ("gue", "ge"), ("gui", "gi"), ("ss", "s"),
    ("j", "zh"), ("ou", "u"),
)  # fmt: skip
# A name's first e in these spellings may be written with a y before it in English.
_INITIAL_YE = re.compile(r"\b[yi]e")
# French writes a final e after the n of -in, -ine: Essénine, Prigojine.
_FRENCH_FINAL_INE = re.compile(r"ine\b")

# Polish and Czech, and the scholarly romanization, write the sounds of Russian names with
# letters that lose their marks once transliterated (Chruščov would read "chruscov"), and
# Czech and Polish write kh as "ch": both are read before the name is transliterated.
# The soft sign's apostrophe (El'cin, Naval'nyj) is left out rather than split the word.
_WEST_SLAVIC_LETTERS = str.maketrans(
    {"č": "ch", "ć": "ch", "š": "sh", "ś": "sh", "ž": "zh", "ż": "zh", "ź": "zh"}
    | dict.fromkeys("'’ʹʼ", "")
)
# Then, in order: Chruszczow is Khrushchov, Jelcyn Yeltsyn, Wołkow Volkov, Siergiej Sergey.
WEST_SLAVIC_SPELLINGS = (
    (re.compile("szcz"), "shch"), (re.compile("sz"), "sh"), (re.compile("cz"), "ch"),
    (re.compile("rz"), "zh"), (re.compile("c(?!h)"), "ts"), (re.compile("w"), "v"),
    (re.compile("j"), "y"), (re.compile("(?<=[^aeiouy ])ie"), "e"),
)  # fmt: skip
# Spanish writes kh as "j" (Jrushchov, Mijaíl); Italian and Romanian write ch as "ci" and
# sh as "sci" before a vowel (Gorbaciov, Krusciov).
ROMANCE_SPELLINGS = (
    (re.compile("j"), "kh"), (re.compile("sci(?=[aou])"), "sh"), (re.compile("ci(?=[aou])"), "ch"),
)  # fmt: skip
# Ukrainian writes as h the g of the Russian spelling (Horbachov is Gorbachev, Hryhoriy
# Grigory, Ihor Igor), read so only in words a Slavic ending or name marks as such: Hill
# and Gill stay two names. kh, ch, sh and zh keep their h.
_UKRAINIAN_WORD = re.compile(
    r"\b(?:\w*(?:iy|yi|ii|ov|ev|ko|ych|uk|ska|sky|skyi)|ihor|oleh|serhiy|serhii)\b"
)
_UKRAINIAN_H = re.compile(r"(?<![kcsz])h")
# The Ukrainian and Belarusian forms of the given names Russian names carry, and the Polish
# ones, each under the English spelling of the Russian form: one name, which no spelling
# rule turns into the other (Mykola and Mikołaj are Nikolai, Volodymyr Vladimir).
EAST_SLAVIC_GIVEN_NAMES = {
    "aleksandr": "oleksandr oleksander aliaksandr alyaksandr alaksandr",
    "aleksei": "oleksiy oleksii oleksij aliaksei alyaksei",
    "anatoly": "anatoliy anatolii anatol",
    "andrei": "andriy andrii",
    "bogdan": "bohdan bahdan",
    "denis": "denys dzianis",
    "dmitri": "dmytro dzmitry dzmitryi zmitser",
    "fyodor": "fedir fiodar",
    "gennady": "hennadiy hennadii hienadz henadz",
    "gleb": "hlib hleb",
    "georgy": "heorhiy heorhii",
    "grigory": "hryhoriy hryhorii ryhor",
    "igor": "ihor ihar",
    "ilya": "illia",
    "kirill": "kyrylo kiryl",
    "konstantin": "kostiantyn kostyantyn kanstantsin",
    "leonid": "leanid",
    "matvei": "matviy matvii",
    "mikhail": "mykhailo mykhaylo mikhas",
    "nikolai": "mykola mikalai mikalay",
    "oleg": "oleh aleh",
    "pavel": "pavlo paval",
    "pyotr": "petro piatro",
    "roman": "raman",
    "semyon": "semen siamion",
    "sergei": "serhiy serhii siarhei siarhey",
    "stanislav": "stanislau",
    "valentin": "valentyn valiantsin",
    "vasily": "vasyl vasil",
    "viktor": "viktar",
    "vladimir": "volodymyr uladzimir",
    "vladislav": "vladyslav uladzislau",
    "yakov": "yakiv",
    "yaroslav": "yaroslau",
    "yevgeny": "yevhen yevhenii yevheniy yauhen yauheni",
    "galina": "halyna",
    "nadezhda": "nadiya nadzeya",
    "natalya": "nataliya natallia",
    "olga": "olha volha",
    "svetlana": "svitlana sviatlana",
    "tatyana": "tetiana tetyana tatsiana",
    "yekaterina": "kateryna katsiaryna",
    "yelena": "olena alena",
    "lyudmila": "liudmyla lyudmyla",
}
POLISH_CZECH_GIVEN_NAMES = {
    "aleksandr": "aleksander",
    "arkady": "arkadiusz",
    "dmitri": "dymitr",
    "fyodor": "fiodor",
    "galina": "halina",
    "grigory": "grzegorz",
    "konstantin": "konstanty",
    "nikolai": "mikolaj",
    "pyotr": "piotr petr",
    "vladimir": "wlodzimierz",
}
_EAST_SLAVIC_FORMS = {
    form: name for name, forms in EAST_SLAVIC_GIVEN_NAMES.items() for form in forms.split()
}
SLAVIC_GIVEN_NAMES = _EAST_SLAVIC_FORMS | {
    form: name for name, forms in POLISH_CZECH_GIVEN_NAMES.items() for form in forms.split()
}
# A name with a Ukrainian or Belarusian given name is read so in every word: h for g
# (Ihor Hirkin is Igor Girkin), and Belarusian -ou, -au, -you and -enka for -ov, -ev and
# -enko (Siarhei Lavrou is Sergei Lavrov, Uladzislau Kavalyou Vladislav Kavalev,
# Aliaksandr Lukashenka Aleksandr Lukashenko).
_BELARUSIAN_ENDINGS = (
    (re.compile(r"(?<=[^aeiouy ])[ao]u\b"), "ov"),
    (re.compile(r"(?<=[^aeiouy ])[iy]ou\b"), "ev"),
    (re.compile(r"enka\b"), "enko"),
    # -anka after ch, sh or zh: Tsimchanka is Timchenko.
    (re.compile(r"(?<=ch|sh|zh)anka\b"), "enko"),
    # u for the v of -ov- before a consonant: Halouchanka is Golovchenko.
    (re.compile(r"(?<=[ao])u(?=[bcdfgjklmnpqrstvxz])"), "v"),
    # ts and dz for a word's first t or d before a soft vowel: Tsikhanouskaya is Tikhanovskaya.
    (re.compile(r"\bts(?=i)"), "t"),
    (re.compile(r"\bdz(?=i)"), "d"),
)
# After ch, sh and zh, English writes the ending -ёв as -ev and every other language as
# -ov, -ow or -iov: Gorbachev is Gorbachov, Gorbatschow, Gorbaczow and Gorbaciov.
_SIBILANT_ENDING = re.compile(r"(?<=ch|sh|zh)i?o[vw]\b")


@functools.lru_cache(maxsize=8192)
def phonetic_readings(name: str) -> frozenset[str]:
    """The name's phonetic skeleton, and its skeletons read as a German, French, Polish,
    Czech, Spanish, Italian, Ukrainian or Belarusian spelling of a Russian name, its
    Slavic given names read as the Russian ones: two names sound alike when any reading of
    one is a reading of the other."""
    words = normalize_name(name).split()
    east_slavic_name = any(word in _EAST_SLAVIC_FORMS for word in words)
    normalized = _given_names_read(words)
    german, french = normalized, _FRENCH_FINAL_INE.sub("in", normalized)
    for old, new in GERMAN_SPELLINGS:
        german = german.replace(old, new)
    for old, new in FRENCH_SPELLINGS:
        french = french.replace(old, new)
    west_slavic = _given_names_read(
        normalize_name(name.lower().replace("ch", "kh").translate(_WEST_SLAVIC_LETTERS)).split()
    )
    romance = normalized
    for pattern, sound in WEST_SLAVIC_SPELLINGS:
        west_slavic = pattern.sub(sound, west_slavic)
    for pattern, sound in ROMANCE_SPELLINGS:
        romance = pattern.sub(sound, romance)
    if east_slavic_name:
        ukrainian = _UKRAINIAN_H.sub("g", normalized)
        for pattern, ending in _BELARUSIAN_ENDINGS:
            ukrainian = pattern.sub(ending, ukrainian)
    else:
        ukrainian = _UKRAINIAN_WORD.sub(lambda word: _UKRAINIAN_H.sub("g", word[0]), normalized)
    spellings = [
        normalized,
        french,
        west_slavic,
        romance,
        ukrainian,
        *(german.replace("\1", sound) for sound in GERMAN_SCH),
    ]
    skeletons = {_skeleton_of(_SIBILANT_ENDING.sub("ev", spelled)) for spelled in spellings}
    return frozenset(skeletons | {_INITIAL_YE.sub("e", skeleton) for skeleton in skeletons})


def _given_names_read(words: list[str]) -> str:
    return " ".join(SLAVIC_GIVEN_NAMES.get(word, word) for word in words)


def fingerprint_text(text: str) -> str:
    """Content fingerprint that ignores case, spacing and punctuation."""
    return hashlib.sha256(normalize_text(text).encode()).hexdigest()[:20]
