"""XMLLoader's fast path: Python's C parser only where no entity can be declared, the same text."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragkit.errors import LoaderError
from ragkit.loaders import XMLLoader, xml_loader

DOCS = {
    "plain": "<book><title>Dune</title><p>Sand <b>and</b> spice</p>tail</book>",
    "declared": '<?xml version="1.0" encoding="UTF-8"?>\n<r><a>x</a><!-- note --><?pi y?><b>z</b></r>',
    "namespaces": '<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>T</title></entry></feed>',
    "cdata": "<r><code><![CDATA[a < b && c]]></code> after</r>",
    "public": '<!DOCTYPE document PUBLIC "+//IDN x//DTD y//EN//XML" "http://example.com/x.dtd">'
    "\n<document><section><title>S</title><p>text &amp; more</p></section></document>",
    "system": "<!DOCTYPE r SYSTEM 'r.dtd'><r><p>one</p><p>two</p></r>",
    "latin1": '<?xml version="1.0" encoding="ISO-8859-1"?><r>caf\xe9</r>',
}


def _defused_text(path: Path) -> str:
    import defusedxml.ElementTree as ET

    root = XMLLoader(path)._defused(ET, path.read_bytes(), str(path))
    return xml_loader.element_text(root)


@pytest.mark.parametrize("kind", sorted(DOCS))
def test_the_fast_path_gives_defusedxmls_text(tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"{kind}.xml"
    encoding = "latin-1" if kind == "latin1" else "utf-8"
    path.write_bytes(DOCS[kind].encode(encoding))
    assert xml_loader._without_doctype(path.read_bytes())  # the fast path is taken
    text = XMLLoader(path).load()[0].page_content
    assert text == _defused_text(path) and text


@pytest.mark.parametrize(
    "data",
    [
        b'<!DOCTYPE r [<!ENTITY x "y">]><r>&x;</r>',  # an internal subset
        b'<!-- <!DOCTYPE a SYSTEM "a"> --><!DOCTYPE r [<!ENTITY x "y">]><r>&x;</r>',
        b'<?xml version="1.0" encoding="UTF-7"?><r>+ADw-!DOCTYPE</r>',  # DOCTYPE hidden by UTF-7
        "<r>wide</r>".encode("utf-16"),
        b"\x4c\x99\xa9\x6e",  # not '<' first: EBCDIC or binary
    ],
)
def test_anything_that_could_declare_an_entity_goes_through_defusedxml(data: bytes) -> None:
    assert not xml_loader._without_doctype(data)


def test_hostile_and_broken_files_get_the_same_errors(tmp_path: Path) -> None:
    laughs = tmp_path / "lol.xml"
    laughs.write_text('<!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><r>&b;</r>')
    with pytest.raises(LoaderError, match="lol.xml declares XML entities; refused"):
        XMLLoader(laughs).load()
    undefined = tmp_path / "nbsp.xml"  # an entity of an external DTD, which is never read
    undefined.write_text('<!DOCTYPE html SYSTEM "x.dtd"><html><p>a&nbsp;b</p></html>')
    with pytest.raises(LoaderError, match="nbsp.xml is not well-formed XML: undefined entity"):
        XMLLoader(undefined).load()
    broken = tmp_path / "broken.xml"
    broken.write_text("<r><a></r>")
    with pytest.raises(LoaderError, match="broken.xml is not well-formed XML: mismatched tag"):
        XMLLoader(broken).load()


def test_lines_and_whitespace(tmp_path: Path) -> None:
    """One line per element holding text directly; Unicode spaces folded; blank lines dropped."""
    path = tmp_path / "w.xml"
    path.write_text(
        "<r> a <b>x\u00a0 y</b>tail<c><d>deep</d> t2 </c>\u3000<e/><f><g>one</g><h><i>two"
        "</i></h>\n\t</f>end</r>",
        encoding="utf-8",
    )
    text = XMLLoader(path).load()[0].page_content
    assert text == "a\nx y\ntail\ndeep t2\none\ntwo\nend"
