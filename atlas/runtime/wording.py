"""Words people read, made one way wherever they are written: counts ("1 hit", "3 hits",
never "hit(s)"), names of facts and document fields, and the gap an open conflict leaves.
"""

# Document fields whose names do not read right with their underscores replaced.
FIELD_WORDS = {
    "ibans": "IBANs",
    "emails": "e-mail addresses",
    "card_numbers": "payment card numbers",
    "national_id_numbers": "national ID numbers",
    "phone_numbers": "personal phone numbers",
    "residences": "where its directors or owners live",
    "birth_years": "the years its directors or owners were born in",
    "residence": "a country of residence",
    "person_names": "a person's name",
}


def counted(count: int, noun: str, plural: str | None = None) -> str:
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def fact_words(fact: str) -> str:
    """A fact's or a document field's name in words: "registration number", "IBANs"."""
    return FIELD_WORDS.get(fact, fact.replace("_", " "))


def fact_label(fact: str) -> str:
    """A fact's name as a label: "Registration number"."""
    words = fact_words(fact)
    return words[:1].upper() + words[1:]


def fact_about(fact: str, about: str = "") -> str:
    """A fact in words, of whom it is when not the subject: "directors", "country of
    residence of director Farhad Rahimi"."""
    return f"{fact_words(fact)} of {about}" if about else fact_words(fact)


def unresolved_conflict_gap(fact: str, about: str = "", status: str = "open") -> str:
    """`about`: whom the conflict is about when not the subject ("X (GB), a company the
    subject directs"); `status` "unresolvable": a reviewer has ruled it cannot be settled."""
    why = (
        "a reviewer recorded it as unresolvable" if status == "unresolvable" else "sources disagree"
    )
    return f"Unresolved conflict on {fact_about(fact, about)}: {why}."


def listed(names: list[str], conjunction: str = "") -> str:
    """Names in a sentence, the last after `conjunction` ("or") when given. Names with an
    aside of their own ("X (LT), a company the subject directs") are kept apart by
    semicolons, not commas."""
    separator = "; " if any("," in name for name in names) else ", "
    if not conjunction or len(names) < 2:
        return separator.join(names)
    # "A, B or C"; "A; B; or C"; but two are "A or B", whatever they hold.
    before_last = "; " if separator == "; " and len(names) > 2 else " "
    return separator.join(names[:-1]) + f"{before_last}{conjunction} {names[-1]}"


def exposed_as(relation: str | None) -> str:
    """How a register entry is politically exposed: in office, or as a relative or
    associate of someone who is ("close family member of a politically exposed person")."""
    return (
        f"{relation} of a politically exposed person" if relation else "politically exposed person"
    )


def quoted_sentence(text: str) -> str:
    """What someone wrote, quoted as the end of a sentence: “It was sent by mistake.”, and
    “Yes”. with the full stop outside when they gave none."""
    text = text.strip()
    return f"“{text}”" if text.endswith((".", "!", "?")) else f"“{text}”."
