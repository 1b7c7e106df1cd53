"""Writes real test folders: text, markdown, HTML, CSV, JSON, PDF, a bad file, a symlink out of the root."""

from __future__ import annotations

import os
from pathlib import Path


def minimal_pdf(lines: list[str]) -> bytes:
    """A valid one-page PDF whose text layer holds ``lines`` (pypdf extracts them)."""
    text = " ".join(f"({line}) Tj T*" for line in lines)
    stream = f"BT /F1 12 Tf 14 TL 72 720 Td {text} ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def write_mixed_folder(root: Path, outside: Path) -> dict[str, Path]:
    """A folder with one file of each supported kind, a bad file and a symlink leaving the root."""
    root.mkdir(parents=True, exist_ok=True)
    files = {
        "txt": root / "notes.txt",
        "md": root / "guide.md",
        "html": root / "page.html",
        "csv": root / "parts.csv",
        "json": root / "config.json",
        "pdf": root / "manual.pdf",
        "bad": root / "broken.pdf",
    }
    files["txt"].write_text(
        "Saddle height matters: set it so the knee is slightly bent at the bottom.\n"
    )
    files["md"].write_text(
        "# Brakes\n\nDisc brakes need the pads bedded in before long descents.\n\n"
        "## Cables\n\nReplace frayed brake cables immediately.\n"
    )
    files["html"].write_text(
        "<html><head><title>Gears</title><script>var x=1;</script></head><body>"
        "<h1>Gears</h1><p>Index the rear derailleur with the barrel adjuster.</p>"
        "</body></html>"
    )
    files["csv"].write_text("part,price\nchain,25\ncassette,60\n")
    files["json"].write_text('{"tool": "torque wrench", "use": "carbon seatpost clamps need 5 Nm"}')
    files["pdf"].write_bytes(
        minimal_pdf(["Tubeless sealant must be topped up every three months."])
    )
    files["bad"].write_bytes(b"%PDF-1.4 this file was truncated in transit")
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret.txt").write_text("outside the root: must never be indexed")
    link = root / "escape.txt"
    os.symlink(outside / "secret.txt", link)
    files["link"] = link
    return files
