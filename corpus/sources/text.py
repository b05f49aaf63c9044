"""Decoding source files with errors that point at the offending line."""

from __future__ import annotations

import codecs
from pathlib import Path

from rucola.errors import RucolaError


def read_text(path: Path, encoding: str) -> str:
    """The file's text; a BOM is dropped and CRLF becomes LF.

    A decoding failure names the line, because a user fixes it in an editor, not by byte.
    """
    data = path.read_bytes()
    codec = codecs.lookup(encoding).name
    if codec == "utf-8":
        codec = "utf-8-sig"
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
