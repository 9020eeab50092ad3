"""The synthetic world the stub tools run over (JSON fixtures shipped in the package)."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from atlas.runtime.ports import StoredDocument
from atlas.runtime.world.normalize import (
    HONORIFICS,
    normalize_name,
    normalize_text,
    phonetic_readings,
)

DATA_DIR = Path(__file__).parent / "data"
DOCUMENTS_DIR = Path(__file__).parent / "documents"


# What each initial costs a name that matches only once its initials are written out:
# "D. Volkov" is Dmitri Volkov at 97, "Volkov D.S." Dmitri Sergeyevich Volkov at 94.
INITIAL_PENALTY = 3
LACKING_WORD_PENALTY = 4
HALF_A_NAME_PENALTY = 8
# What a name costs that matches only once both are read aloud: Joukov is Zhukov at 98.
SPELLING_PENALTY = 2
# A media query the name scores this with names the article's subject (as a sanctions hit).
SPELLED_AS_ITS_NAME = 90
# A media query written word for word in an article's title or text, as a name.
NAMED_IN_THE_TEXT = 90.0


def name_score(query: str, candidate: str) -> float:
    """0-100 similarity of two names, robust to order, transliteration, spelling and
    initials."""
    a, b = normalize_name(query), normalize_name(candidate)
    if not a or not b:
        return 0.0
    direct = max(fuzz.ratio(a, b), fuzz.token_sort_ratio(a, b), _contained_score(a, b))
    skeleton = max(
        max(fuzz.token_sort_ratio(one, other), _contained_score(one, other))
        for one in phonetic_readings(query)
        for other in phonetic_readings(candidate)
    )
    return round(
        float(
            max(direct, skeleton - SPELLING_PENALTY, _initials_score(a, b), _initials_score(b, a))
        ),
        1,
    )


# A word of a name is the same as a word of another at this score or more ("Dmitry" and
# "Dmitri", "Solbergh" and "Solberg").
SAME_WORD = 85
# Words that tell no company or person from another: fillers, legal forms the normalized
# names keep (LEGAL_SUFFIXES holds the common ones), letters after honours.
NOT_TELLING = frozenset({
    "the", "and", "of", "a",
    "pjsc", "pao", "llp", "sarl", "srl", "sas", "sl", "nv", "se", "oy", "ab", "asa", "aps",
    "sociedad", "anonima", "kabushiki", "kaisha", "gesellschaft", "mbh", "public",
    "private", "free", "zone", "establishment", "teoranta", "sro", "kft", "zrt",
    "mbe", "obe", "cbe", "kbe", "dbe", "phd", "med", "esq",
})  # fmt: skip


def words_it_lacks(query: str, name: str) -> list[str]:
    """The words of `query` that `name` has nothing for (neither the word, a spelling of
    it, nor the word written joined or apart: "Silver Line" is "Silverline"), initials,
    legal forms, titles and fillers aside, as `query` writes them: "Acme Analytics
    Holdings" has "Holdings" that "Acme Analytics Ltd" lacks. Such a name matches the
    other at a high score (the other is contained in it), yet may well be another company
    or person."""
    words, theirs = normalize_name(query).split(), normalize_name(name).split()
    if "".join(words) == "".join(theirs):
        return []
    lacking = []
    for word in words:
        if len(word) <= 2 or word in NOT_TELLING or word in HONORIFICS:
            continue
        if any(_same_word(word, other) for other in theirs):
            continue
        lacking.append(_as_written(word, query))
    return list(dict.fromkeys(lacking))


def _same_word(word: str, other: str) -> bool:
    if word == other or name_score(word, other) >= SAME_WORD:
        return True
    # Written joined in one and apart in the other ("Fjordline", "Fjord line").
    return min(len(word), len(other)) >= 3 and (word in other or other in word)


def _as_written(word: str, text: str) -> str:
    for token in re.split(r"[^\w']+", text):
        if normalize_text(token) == word:
            return token
    return word


def _contained_score(query: str, candidate: str) -> float:
    """A name found inside a longer one, less LACKING_WORD_PENALTY for each word of the
    longer one it lacks, and HALF_A_NAME_PENALTY more when it has no more than half of
    them: "Dmitri Volkov" is still the listed "VOLKOV, Dmitri Sergeyevich" (93), while
    "Dmitri" is not Dmitri Volkov (85) nor "Volga" Volga Petrochem Export JSC (81)."""
    words, other = set(query.split()), set(candidate.split())
    lacking = len(other - words)
    penalty = 3 + LACKING_WORD_PENALTY * lacking
    if 2 * len(other & words) <= len(other):
        penalty += HALF_A_NAME_PENALTY
    return fuzz.token_set_ratio(query, candidate) - penalty


def _initials_score(short: str, full: str) -> float:
    """The score of `short` with each of its initials read as the word of `full` it starts
    (each word once), less INITIAL_PENALTY an initial; 0 when it has none to read."""
    tokens = short.split()
    spare = [w for w in full.split() if w not in tokens and len(w) > 1]
    written, initials = [], 0
    for token in tokens:
        word = next((w for w in spare if len(token) == 1 and w[0] == token), None)
        if word is None:
            written.append(token)
            continue
        spare.remove(word)
        written.append(word)
        initials += 1
    if not initials:
        return 0.0
    return fuzz.token_sort_ratio(" ".join(written), full) - INITIAL_PENALTY * initials


class World:
    def __init__(self, entities: list[dict], sanctions: list[dict], articles: list[dict]) -> None:
        self.entities = entities
        self.entities_by_id = {e["entity_id"]: e for e in entities}
        self.sanctions = sanctions
        self.articles = articles
        self.politically_exposed = [e for e in entities if e.get("pep")]
        # Each article's title and text as normalized words, " "-bounded, for the names
        # written in them (article_matches_query): made once, not again for every query.
        self._written = {
            a["article_id"]: f" {normalize_text(a['title'] + ' ' + a['text'])} " for a in articles
        }

    @classmethod
    def load(cls, data_dir: Path = DATA_DIR) -> World:
        def read(name: str, key: str) -> list[dict]:
            return json.loads((data_dir / name).read_text(encoding="utf-8"))[key]

        return cls(
            read("entities.json", "entities"),
            read("sanctions.json", "entries"),
            read("media.json", "articles"),
        )

    def entity_names(self, entity: dict) -> list[str]:
        return [entity["name"], *entity.get("aliases", [])]

    def best_name_match(self, query: str, names: list[str]) -> tuple[float, str]:
        """The best score of `query` among `names`, and the name it scored with: of names
        scoring alike, the one written most like the query (the Latin alias typed, not
        its Cyrillic twin)."""
        scored = [(name_score(query, name), name) for name in names]
        if not scored:
            return (0.0, "")
        typed = query.casefold()
        return max(scored, key=lambda pair: (pair[0], fuzz.ratio(typed, pair[1].casefold())))

    def articles_for_entity(self, entity_id: str) -> list[dict]:
        return [a for a in self.articles if entity_id in a.get("entity_ids", [])]

    def article_matches_query(self, article: dict, query: str) -> float:
        """How well a free-text query names one of the article's subjects, or a name the
        article writes (0-100); `article` is one of this world's."""
        query_tokens = normalize_text(query).split()
        best = 0.0
        for entity_id in article.get("entity_ids", []):
            entity = self.entities_by_id.get(entity_id)
            if entity is None:
                continue
            for name in self.entity_names(entity):
                name_tokens = normalize_name(name).split()
                if not name_tokens:
                    continue
                hits = sum(
                    1
                    for token in name_tokens
                    if any(fuzz.ratio(token, q) >= 85 for q in query_tokens)
                )
                first = any(fuzz.ratio(name_tokens[0], q) >= 85 for q in query_tokens)
                coverage = hits / len(name_tokens)
                if first and (coverage >= 0.6 or hits >= 2):
                    best = max(best, round(100 * coverage, 1))
                # A query that is the name in another spelling (Dmitrij Wolkow for Dmitri
                # Volkov), read as screening reads names.
                if best < 100 and (score := name_score(query, name)) >= SPELLED_AS_ITS_NAME:
                    best = max(best, score)
        title_score = fuzz.token_set_ratio(normalize_text(query), normalize_text(article["title"]))
        if title_score >= 90:
            best = max(best, float(title_score))
        # A name of two words or more written in the article ("chief executive Sarah Linden
        # said"), whoever the article is linked to, as a news search finds it.
        written = self._written[article["article_id"]]
        if len(query_tokens) >= 2 and f" {' '.join(query_tokens)} " in written:
            best = max(best, NAMED_IN_THE_TEXT)
        return best


@cache
def default_world() -> World:
    return World.load()


def sample_documents() -> list[StoredDocument]:
    """Uploaded-document samples for demos and tests (PDFs are generated in tests)."""
    return [
        StoredDocument(
            document_id="doc-meridian-kyc",
            name="meridian_kyc_form.txt",
            content_type="text/plain",
            content=(DOCUMENTS_DIR / "meridian_kyc_form.txt").read_bytes(),
        ),
        StoredDocument(
            document_id="doc-acme-onboarding",
            name="acme_onboarding_note.txt",
            content_type="text/plain",
            content=(DOCUMENTS_DIR / "acme_onboarding_note.txt").read_bytes(),
        ),
        StoredDocument(
            document_id="doc-harrow-ownership",
            name="harrow_ownership_declaration.txt",
            content_type="text/plain",
            content=(DOCUMENTS_DIR / "harrow_ownership_declaration.txt").read_bytes(),
        ),
    ]


def world_summary() -> dict[str, Any]:
    world = default_world()
    return {
        "entities": len(world.entities),
        "sanctions_entries": len(world.sanctions),
        "articles": len(world.articles),
    }
