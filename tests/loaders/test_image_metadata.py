"""The words an image file carries (PNG text chunks, comments, EXIF), on files written by Pillow.

A photo has no text for OCR; its title, description and comments are its text then.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from PIL import Image, PngImagePlugin

from ragkit.loaders import DirectoryLoader, ImageLoader, UnstructuredImageLoader
from ragkit.loaders.ocr import OcrEngine
from tests.loaders.conftest import text_image

XP_TITLE, XP_KEYWORDS, XP_SUBJECT, EXIF_IFD, USER_COMMENT = 0x9C9B, 0x9C9E, 0x9C9F, 0x8769, 0x9286


@pytest.fixture(scope="module")
def engine() -> OcrEngine:
    return OcrEngine(intra_op_num_threads=1)


def photo() -> Image.Image:
    """A flat image: nothing in it for OCR to read."""
    return Image.new("RGB", (96, 64), (120, 160, 200))


def exif() -> Image.Exif:
    """ImageDescription, Artist, Windows' XP tags (UTF-16LE) and a UNICODE UserComment."""
    tags = Image.Exif()
    tags[0x010E] = "Worn chain ring on the stand"
    tags[0x013B] = "Ada Lovelace"
    tags[XP_TITLE] = "Workshop photo".encode("utf-16-le") + b"\0\0"
    tags[XP_KEYWORDS] = "chain; wear".encode("utf-16-le") + b"\0\0"
    tags[XP_SUBJECT] = "Drivetrain".encode("utf-16-le") + b"\0\0"
    tags.get_ifd(EXIF_IFD)[USER_COMMENT] = b"UNICODE\0" + "Stretch 0.75 %".encode("utf-16-be")
    return tags


def test_png_text_chunks_are_the_text_of_a_photo(tmp_path: Path, engine: OcrEngine) -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("Title", "Harbour at dawn")
    info.add_itxt("Description", "Fishing boats at Ålesund", lang="en", tkey="Beschreibung")
    info.add_text("Comment", "Taken from the ferry", zip=True)  # a zTXt chunk
    info.add_text("Author", "Ada Lovelace")
    info.add_text("Software", "GIMP 2.10")  # a technical field: not text
    path = tmp_path / "harbour.png"
    photo().save(path, pnginfo=info)
    [doc] = ImageLoader(path, ocr_engine=engine).load()
    assert doc.page_content == (
        "Title: Harbour at dawn\nDescription: Fishing boats at Ålesund\n"
        "Comment: Taken from the ferry"
    )
    assert doc.metadata["text_source"] == "metadata"
    assert doc.metadata["author"] == "Ada Lovelace"
    assert doc.metadata["title"] == "Harbour at dawn"
    assert "Software" not in doc.page_content and "GIMP" not in str(doc.metadata)


def _move_text_after_pixels(path: Path) -> None:
    """Rewrite the PNG with its tEXt chunks after IDAT, where some writers put them."""
    data = path.read_bytes()
    chunks, pos = [], 8
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        chunks.append(data[pos : pos + 12 + length])
        pos += 12 + length
    text = [c for c in chunks if c[4:8] == b"tEXt"]
    rest = [c for c in chunks if c[4:8] != b"tEXt"]
    path.write_bytes(data[:8] + b"".join(rest[:-1] + text + rest[-1:]))  # before IEND


def test_png_text_after_the_pixels_is_read_too(tmp_path: Path, engine: OcrEngine) -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "Written after the image data")
    path = tmp_path / "late.png"
    photo().save(path, pnginfo=info)
    _move_text_after_pixels(path)
    assert Image.open(path).info == {}  # Pillow sees it only once the pixels are read
    chunk = path.read_bytes()
    assert chunk.index(b"tEXt") > chunk.index(b"IDAT")
    [doc] = ImageLoader(path, ocr_engine=engine).load()
    assert doc.page_content == "Comment: Written after the image data"


@pytest.mark.parametrize("fmt", ["JPEG", "WEBP", "TIFF"])
def test_exif_text_tags(tmp_path: Path, engine: OcrEngine, fmt: str) -> None:
    path = tmp_path / f"chain.{fmt.lower()}"
    photo().save(path, fmt, exif=exif().tobytes())
    [doc] = ImageLoader(path, ocr_engine=engine).load()
    assert doc.page_content == (
        "Title: Workshop photo\nSubject: Drivetrain\nDescription: Worn chain ring on the stand\n"
        "Comment: Stretch 0.75 %\nKeywords: chain; wear"
    )
    assert doc.metadata["author"] == "Ada Lovelace"


def test_jpeg_and_gif_comments(tmp_path: Path, engine: OcrEngine) -> None:
    jpeg, gif = tmp_path / "a.jpg", tmp_path / "b.gif"
    photo().save(jpeg, comment=b"Shot in the shop", exif=exif().tobytes())
    photo().convert("P").save(gif, comment=b"Saddle, side view")
    [from_jpeg] = ImageLoader(jpeg, ocr_engine=engine).load()
    [from_gif] = ImageLoader(gif, ocr_engine=engine).load()
    assert "Comment: Shot in the shop; Stretch 0.75 %" in from_jpeg.page_content
    assert from_gif.page_content == "Comment: Saddle, side view"


@pytest.mark.slow
def test_ocr_text_stays_the_text_and_the_fields_are_metadata(
    tmp_path: Path, engine: OcrEngine
) -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("Description", "A sign in the workshop")
    path = tmp_path / "sign.png"
    text_image(["Brake pads wear faster"]).save(path, pnginfo=info)
    [doc] = ImageLoader(path, ocr_engine=engine).load()
    assert "wear faster" in doc.page_content and "Description:" not in doc.page_content
    assert doc.metadata["description"] == "A sign in the workshop"
    assert "text_source" not in doc.metadata


def test_single_and_elements_modes_and_a_folder(tmp_path: Path, engine: OcrEngine) -> None:
    path = tmp_path / "photo.jpg"
    photo().save(path, exif=exif().tobytes())
    [single] = UnstructuredImageLoader(path, ocr_engine=engine).load()
    assert single.page_content.startswith("Title: Workshop photo\n")
    [element] = UnstructuredImageLoader(path, mode="elements", ocr_engine=engine).load()
    assert element.page_content == single.page_content
    assert element.metadata["text_source"] == "metadata"
    photo().save(tmp_path / "bare.png")  # no words at all: still a file without text
    loader = DirectoryLoader(tmp_path, silent_errors=True)
    docs = loader.load()
    assert [d.metadata["source"].rsplit("/", 1)[-1] for d in docs if d.page_content] == [
        "photo.jpg"
    ]
    assert [f.path.rsplit("/", 1)[-1] for f in loader.errors] == ["bare.png"]


def test_binary_rubbish_in_a_text_tag_is_not_text(tmp_path: Path, engine: OcrEngine) -> None:
    tags = Image.Exif()
    tags[0x010E] = bytes(range(1, 31)).decode("latin-1")  # control characters only
    tags.get_ifd(EXIF_IFD)[USER_COMMENT] = b"\0" * 40  # "undefined" code, no text
    path = tmp_path / "camera.jpg"
    photo().save(path, exif=tags.tobytes())
    [doc] = ImageLoader(path, ocr_engine=engine).load()
    assert doc.page_content == "" and "description" not in doc.metadata


def test_a_program_signature_is_not_text(tmp_path: Path, engine: OcrEngine) -> None:
    """Comments such as Photoshop's or GIMP's own name the program, not the picture."""
    for i, comment in enumerate([b"File written by Adobe Photoshop\xa8 4.0", b"Created with GIMP"]):
        photo().save(tmp_path / f"p{i}.jpg", comment=comment)
        [doc] = ImageLoader(tmp_path / f"p{i}.jpg", ocr_engine=engine).load()
        assert doc.page_content == "" and "comment" not in doc.metadata
