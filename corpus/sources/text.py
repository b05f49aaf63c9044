"""Decoding source files with errors that point at the offending line."""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from rucola.errors import RucolaError


def read_text(path: Path, encoding: str) -> str:
    """The file's text; a BOM is dropped and CRLF becomes LF.

    A decoding failure names the line, because a user fixes it in an editor, not by byte.
    """
    data = path.read_bytes()
    codec = _codec(encoding)
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise RucolaError(
            f"not valid {encoding} (byte 0x{data[exc.start]:02x})",
            path,
            line,
            hint="save the file as UTF-8, or name its encoding in extract.encoding (e.g. cp1251)",
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def text_lines(path: Path, encoding: str) -> Iterator[str]:
    """The lines of :func:`read_text`'s text, each with its ``\\n``, read as a stream: a
    table of a million rows is never held whole (issue 42). A decoding failure is
    :func:`read_text`'s error, naming the line."""
    with path.open(encoding=_codec(encoding), newline=None) as lines:  # CRLF, CR -> LF
        try:
            yield from lines
        except UnicodeDecodeError:
            read_text(path, encoding)  # raises the error naming the line
            raise


def _codec(encoding: str) -> str:
    """The codec that reads ``encoding``: UTF-8 with its BOM dropped."""
    codec = codecs.lookup(encoding).name
    return "utf-8-sig" if codec == "utf-8" else codec
