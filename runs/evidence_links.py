"""How a page points at evidence: its anchor in the packet, and its source's address when
that address is safe to link."""

from __future__ import annotations

import re
from typing import Any

from atlas.runtime.state import Signal

# What the packet may make clickable: a web address and nothing else. A source's URL is
# tool output, and a `javascript:` or `data:` address would run in the reader's session.
WEB_ADDRESS = re.compile(r"https?://[^\s\x00-\x1f\x7f]+", re.IGNORECASE)


def web_link(url: Any) -> str:
    """`url` if it is an http(s) address, else "" (the page then shows it as plain text)."""
    return url if isinstance(url, str) and WEB_ADDRESS.fullmatch(url) else ""


def anchor(evidence_id: str) -> str:
    """The packet page's id of an evidence entry: "ev-3f2a…", as its evidence id reads."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "-", evidence_id)
    return safe if safe.startswith("ev-") else f"ev-{safe}"


def numbered(evidence: list[dict]) -> list[dict]:
    """A run's evidence entries as the packet page numbers and anchors them, each with its
    `number` (from 1, in the order the run found them) and `anchor`."""
    return [
        {**item, "number": number, "anchor": anchor(item.get("evidence_id", ""))}
        for number, item in enumerate(evidence, start=1)
    ]


def cited_findings(packet: dict, numbered: dict[str, dict]) -> list[dict]:
    """A packet's findings, each citation the evidence as the packet page numbers it
    (`numbered`: evidence id -> a row with its number and anchor); a citation of no such
    evidence has no number. A finding is `suspect` when a source it cites holds text written
    as instructions to the agent (that row's `signals`); `suspect_sources` are their ids."""
    findings = []
    for finding in packet.get("findings") or []:
        citations = [
            numbered.get(eid, {"evidence_id": eid, "number": None, "anchor": ""})
            for eid in finding.get("evidence_ids") or []
        ]
        suspect = [
            c["evidence_id"] for c in citations if Signal.INSTRUCTIONS in (c.get("signals") or [])
        ]
        findings.append(
            {
                "claim": finding.get("claim", ""),
                "citations": citations,
                "suspect": bool(suspect),
                "suspect_sources": suspect,
            }
        )
    return findings
