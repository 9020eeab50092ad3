"""Pydantic argument and result schemas of the four tools (DESIGN.md's arguments)."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from atlas.runtime.invisible import visible


def other_entity_type(entity_type: str | None) -> str:
    """The type a registry entity has when it is not of `entity_type`."""
    return "person" if entity_type == "company" else "company"


class _Args(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    @field_validator("*", mode="before")
    @classmethod
    def _normalized(cls, value):
        # "Acme  Analytics", "Acme\u200b Analytics" and full-width "Ａｃｍｅ Analytics" are
        # one action: duplicate blocking compares the normalized arguments.
        if not isinstance(value, str):
            return value
        return " ".join(unicodedata.normalize("NFKC", visible(value)).split())


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Raw provider payload, when a provider sends one; can be very large (kept whole in
    # the store, never shown to the model whole).
    raw: str | None = None


# The longest name the tools take; a case's subject is refused above it when opened.
NAME_MAX_LENGTH = 200
QUERY_MIN_LENGTH = 2
QUERY_MAX_LENGTH = 300
# An ISO 3166 alpha-2 code, as a tool gives a country.
CountryCode = Annotated[str, StringConstraints(pattern=r"^[A-Z]{2}$")]


class ResolveEntityArgs(_Args):
    name: str = Field(min_length=1, max_length=NAME_MAX_LENGTH)
    jurisdiction: str | None = Field(default=None, min_length=2, max_length=2)
    entity_type: Literal["company", "person"] | None = None

    @field_validator("jurisdiction")
    @classmethod
    def _upper(cls, value: str | None) -> str | None:
        return value.upper() if value else value


class Directorship(BaseModel):
    """A company whose register names the person as a director."""

    model_config = ConfigDict(extra="forbid")

    entity_id: str
    name: str
    jurisdiction: str


class LinkedEntity(BaseModel):
    """A registry entity as something else names it: a list entry links an alias only the
    list knows to the registered company or person behind it."""

    model_config = ConfigDict(extra="forbid")

    entity_id: str
    name: str
    entity_type: Literal["company", "person"]
    jurisdiction: str
    registration_number: str | None = None
    born_year: int | None = None


class ListedEntity(LinkedEntity):
    """The registry entity a list entry is linked to, with, for a person, the companies
    their registry record says they direct (entity ids): whether the listed person is the
    director of the same name a company's record gives."""

    directs: list[str] = Field(default_factory=list)


class RegistryRecord(LinkedEntity):
    status: str | None = None
    incorporated: str | None = None
    directors: list[str] = Field(default_factory=list)
    aliases: list[str] = Field(default_factory=list)
    pep: bool = False
    # For one on the register as a relative or associate of a politically exposed person
    # ("close family member", "close associate"): `role` says whose.
    pep_relation: str | None = None
    role: str | None = None
    directorships: list[Directorship] = Field(default_factory=list)
    # The country each director lives in, by the name `directors` gives: only for a
    # registry that publishes it, and only for the directors it does.
    director_residences: dict[str, CountryCode] = Field(default_factory=dict)
    # The persons with significant control, by name, each with the band of shares the
    # register gives ("more than 50% but less than 75%"): only for a registry that publishes
    # them (the UK's does), and only for a company.
    significant_control: dict[str, str] = Field(default_factory=dict)
    # The countries each director or person with significant control is a national of, by
    # name: only for a registry that publishes it (the UK's does), and only for those it
    # does.
    nationalities: dict[str, list[CountryCode]] = Field(default_factory=dict)
    # The year each director or person with significant control was born in, by name: only
    # for a registry that publishes it (the UK's gives the month and year), and only for
    # those it does.
    director_birth_years: dict[str, int] = Field(default_factory=dict)


class Candidate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entity_id: str
    name: str
    entity_type: Literal["company", "person"]
    jurisdiction: str
    registration_number: str | None = None
    score: float = Field(ge=0, le=100)
    matched_on: str
    record: RegistryRecord


class DirectorListing(BaseModel):
    """A company whose registry record lists a director by the name a person was looked up
    by: how the registry links a person it has no record of to the companies they direct."""

    model_config = ConfigDict(extra="forbid")

    entity_id: str
    name: str
    jurisdiction: str
    listed_as: str
    score: float = Field(ge=0, le=100)
    record: RegistryRecord


class ResolveEntityResult(_Result):
    query: str
    candidates: list[Candidate]
    # For a person: the companies whose records list a director by the name.
    named_as_director: list[DirectorListing] = Field(default_factory=list)
    excluded_by_jurisdiction: int = 0
    # Entities of the other type that the name matches strongly ("Sarah Linden (GB)", a
    # person, when a company was looked for): the case's subject type may be wrong.
    other_type_matches: list[str] = Field(default_factory=list)
    other_type: Literal["company", "person"] | None = None
    thresholds: dict[str, float]
    explanation: str


class ScreenSanctionsArgs(_Args):
    entity_id: str | None = Field(default=None, min_length=1, max_length=100)
    name: str | None = Field(default=None, min_length=1, max_length=NAME_MAX_LENGTH)

    @model_validator(mode="after")
    def _one_of(self) -> ScreenSanctionsArgs:
        if not self.entity_id and not self.name:
            raise ValueError("give entity_id or name")
        return self


class SanctionsHit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    entry_id: str
    list: str
    listed_name: str
    score: float = Field(ge=0, le=100)
    aliases_matched: list[str]
    matched_query: str
    programs: list[str]
    listed_on: str
    # Results stored before hits carried the link, and entries linked to no registry
    # entity, have none.
    linked_entity: ListedEntity | None = None
    # The years of birth a person's entry gives (a list gives several when it is unsure);
    # none for a company's entry, one that gives none, or a result stored before.
    born_years: list[int] = Field(default_factory=list)
    # The countries a person's entry lists them a national of.
    nationalities: list[CountryCode] = Field(default_factory=list)


class PepMatch(BaseModel):
    """A person on the register of politically exposed persons whose name a screened name
    matches: a fact for the reviewer to weigh, not a sanctions hit."""

    model_config = ConfigDict(extra="forbid")

    entity_id: str
    name: str
    jurisdiction: str
    role: str
    score: float = Field(ge=0, le=100)
    matched_query: str
    born_year: int | None = None
    # On the register as a relative or associate of a politically exposed person.
    relation: str | None = None


class ScreenSanctionsResult(_Result):
    entity_id: str | None
    screened_names: list[str]
    lists_checked: list[str]
    hits: list[SanctionsHit]
    # Results stored before screening checked the register have none.
    pep_matches: list[PepMatch] = Field(default_factory=list)
    threshold: float
    explanation: str


class SearchAdverseMediaArgs(_Args):
    query: str = Field(min_length=QUERY_MIN_LENGTH, max_length=QUERY_MAX_LENGTH)
    entity_id: str | None = Field(default=None, min_length=1, max_length=100)


class Article(BaseModel):
    model_config = ConfigDict(extra="forbid")

    article_id: str
    url: str
    title: str
    outlet: str
    date: str
    snippet: str
    text: str
    entity_ids: list[str]
    # The registry entities it is linked to, by id, as "Name (CC)".
    entities: dict[str, str] = Field(default_factory=dict)
    signals: list[str]
    facts: dict[str, dict[str, Any]] = Field(default_factory=dict)
    score: float


class SearchAdverseMediaResult(_Result):
    query: str
    entity_id: str | None
    articles: list[Article]
    explanation: str


class ExtractDocumentArgs(_Args):
    document_id: str = Field(min_length=1, max_length=100)


class ExtractDocumentResult(_Result):
    document_id: str
    name: str
    content_type: str
    pages: int
    text: str
    fields: dict[str, list[str]]
