"""Text in a source that is written as instructions to an AI agent. The runtime never acts
on it either way (sources are fenced as data); it is flagged so a reviewer knows the
source tried, and can weigh it."""

from __future__ import annotations

import re

INSTRUCTIONS_TO_AN_AGENT = re.compile(
    r"(?i)\b(?:"
    r"ignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier) (?:instructions|prompts?|rules)"
    r"|disregard (?:all |any )?(?:the )?(?:previous|prior|above|earlier|your) "
    r"(?:instructions|prompts?|rules|policies)"
    r"|you are now (?:in )?(?:a |an )?\w+ mode"
    r"|system (?:prompt|notice|override)"
    r"|end (?:of )?untrusted data"
    r")"
)


def addresses_the_agent(text: str) -> bool:
    return bool(INSTRUCTIONS_TO_AN_AGENT.search(text))
