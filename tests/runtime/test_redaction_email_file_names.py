"""An e-mail address written into a file's name is hidden without the file's extension,
which no address ends in; an address whose last label is a real top-level domain keeps it."""

from __future__ import annotations

import pytest

from atlas.runtime.redaction import personal_data_found, redact


@pytest.mark.parametrize(
    ("text", "redacted", "address"),
    [
        ("jane.doe@acme.com.pdf", "[REDACTED EMAIL].pdf", "jane.doe@acme.com"),
        ("scan-jane@acme.co.uk.txt", "[REDACTED EMAIL].txt", "scan-jane@acme.co.uk"),
        ("jane@mail.acme.com.eml.txt", "[REDACTED EMAIL].eml.txt", "jane@mail.acme.com"),
        ("see jane@acme.com.json now", "see [REDACTED EMAIL].json now", "jane@acme.com"),
    ],
)
def test_an_address_in_a_file_name_leaves_the_extension(text, redacted, address):
    assert redact(text) == redacted
    assert personal_data_found(text) == {"emails": [address]}


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("jane@acme.com.au is in Sydney", "[REDACTED EMAIL] is in Sydney"),
        # Nothing would be left of the domain but a name: the whole is hidden.
        ("jane@acme.pdf", "[REDACTED EMAIL]"),
        ("from jane@acme.com.", "from [REDACTED EMAIL]."),
    ],
)
def test_an_address_without_a_file_extension_is_hidden_whole(text, redacted):
    assert redact(text) == redacted
