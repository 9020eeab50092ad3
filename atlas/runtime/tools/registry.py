"""The set of tools a runtime may execute."""

from __future__ import annotations

from collections.abc import Iterable

from atlas.runtime.tools.base import ToolSpec
from atlas.runtime.tools.builtin import BUILTIN_TOOLS

# 2: directors read from sentences too; 3: directors lines split cleanly, and names
# matched in ASCII, without titles, by their initials and common spellings, a part of a
# name less than the whole; 4: a person's registry record lists the companies they direct;
# 5: screening also checks the register of politically exposed persons; 6: names read
# alike match (x as ks, the French and German spellings of Russian names), and the
# explanations say what that costs; 7: a company's registration number, however it is
# written, resolves to the company; 8: a sanctions hit names the registry entity its list
# entry is linked to; 9: a media search by a name finds the articles that write it;
# 10: a document's beneficial owners are read; 11: with their shares, also beside other
# labels on one line; 12: a document's declared source of wealth and source of funds;
# 13: the registry entity a list entry is linked to gives a person's year of birth; 14: so
# does a match on the register of politically exposed persons; 15: a listed person's
# entity gives the companies their registry record says they direct; 16: a business
# named as a beneficial owner, or listed as a director, is read whole, by its legal form;
# 17: the register of politically exposed persons lists their close family members and
# close associates, and a match with one says so; 18: a company's registry record may give
# the country each director lives in, and a document's directors and owners lines where
# each lives ("Jane Roe (resident in Iran)"), and a person's form their country of residence;
# 19: and the name a person's form gives ("Name: Sarah Linden"), and a board table where each
# director lives; 20: a company's registry record may give its persons with significant
# control, each with the register's band of shares, and a document's owners may be given
# such a band ("more than 50% but less than 75%"); a person's form gives their nationality,
# and a board or owners table its people's; 21: a document's sentence about a director, an
# owner or the form's person gives where they live and what they are a national of, a list
# of countries is read whole ("a citizen of Iran and the UK"), and a residence that ended
# or a nationality given up is not read; 22: a company's registry record may give the
# nationality of each director and person with significant control; 23: a passport's or
# identity card's machine-readable zone gives its holder's name and nationality (its
# document number, date of birth and personal number are personal data), and a passport's
# nationality label its words ("Nationality / Nationalité: BRITISH CITIZEN"); 24: a
# document gives the year each director or owner it lists was born in, beside the name, in
# a board or owners table's "Date of birth" column, or on a "Date of birth" line below one
# naming them alone ("birth_years": only the year), and a sentence or a list may give a
# nationality by adjectives alone ("Farhad Rahimi is Iranian.", "Directors: Farhad Rahimi
# (Iranian)"); 25: a sanctions hit on a person's entry gives the years of birth the entry
# lists ("born_years") and the countries it lists them a national of ("nationalities"),
# and a company's registry record may give the year each director and person with
# significant control was born in ("director_birth_years")
TOOLSET_VERSION = "atlas-tools/25"


class ToolRegistry:
    def __init__(self, tools: Iterable[ToolSpec] = BUILTIN_TOOLS) -> None:
        self._tools = {tool.name: tool for tool in tools}

    def get(self, name: str) -> ToolSpec | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self):
        return iter(self._tools.values())


def default_registry() -> ToolRegistry:
    return ToolRegistry(BUILTIN_TOOLS)
