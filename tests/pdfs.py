"""PDFs built by hand for tests: tables as reporting tools draw them."""

from __future__ import annotations

from collections.abc import Sequence


def table_pdf(rows: list[list[str]], columns_x: list[int], lines: Sequence[str] = ()) -> bytes:
    """A one-page PDF drawing each table cell on its own at its column's x (as word
    processors and reporting tools draw table cells, so a cell as wide as its column runs
    into the next in the text pypdf extracts), then `lines` of prose under the table."""
    parts = ["BT", "/F1 10 Tf"]
    for row_number, row in enumerate(rows):
        for x, cell in zip(columns_x, row, strict=True):
            parts.append(f"1 0 0 1 {x} {800 - 14 * row_number} Tm ({cell}) Tj")
    for line_number, line in enumerate(lines, start=len(rows) + 1):
        parts.append(f"1 0 0 1 40 {800 - 14 * line_number} Tm ({line}) Tj")
    parts.append("ET")
    stream = "\n".join(parts).encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
