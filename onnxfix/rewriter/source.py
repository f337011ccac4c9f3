"""Reading and writing user source exactly: encoding, BOM, line endings, permissions.

A file is decoded the way Python itself decodes it (PEP 263 cookie, UTF-8 BOM), and written
back with the same encoding, BOM and line endings, atomically, and only if it did not change
on disk since it was read.
"""

from __future__ import annotations

import ast
import codecs
import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

_NEWLINE = re.compile(r"\r\n|\r|\n")


class SourceError(Exception):
    """A file that cannot be processed; carries the position to report."""

    def __init__(self, message: str, line: int = 1, col: int = 1):
        super().__init__(message)
        self.message = message
        self.line = line
        self.col = col


class NotRegularFile(OSError):
    """A FIFO, device or socket: opening or reading it could block forever."""


def read_regular_bytes(path: Path) -> bytes:
    """The bytes of a regular file; every reader of user files goes through here."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise NotRegularFile(f"{path}: not a regular file")
    return path.read_bytes()


@dataclass
class SourceFile:
    path: Path
    text: str
    encoding: str = "utf-8"
    raw: bytes = b""
    _line_starts: list[int] = field(default_factory=list, repr=False)

    @classmethod
    def read(cls, path: Path) -> "SourceFile":
        try:
            raw = read_regular_bytes(path)
        except NotRegularFile:
            raise SourceError("not a regular file; skipped") from None
        except OSError as exc:
            raise SourceError(f"cannot read file: {exc.strerror or exc}") from None
        return cls.from_bytes(path, raw)

    @classmethod
    def from_bytes(cls, path: Path, raw: bytes) -> "SourceFile":
        if b"\x00" in raw:
            line = raw[: raw.index(b"\x00")].count(b"\n") + 1
            raise SourceError("binary file (contains a NUL byte), not Python source", line)
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        except SyntaxError as exc:
            if "invalid or missing" not in exc.msg:
                raise SourceError(f"bad encoding declaration: {exc.msg}", exc.lineno or 1) from None
            encoding = "utf-8"  # no declaration and not UTF-8 in the first lines: say where
        try:
            text = raw.decode(encoding)
        except UnicodeDecodeError as exc:
            line = raw[: exc.start].count(b"\n") + 1
            col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
            raise SourceError(f"cannot decode as {encoding}: {exc.reason}", line, col) from None
        return cls(path=path, text=text, encoding=encoding, raw=raw)

    @property
    def newline(self) -> str:
        """The file's first line ending; inserted code uses it."""
        match = _NEWLINE.search(self.text)
        return match.group(0) if match else "\n"

    # -- positions -------------------------------------------------------------------------
    @property
    def line_starts(self) -> list[int]:
        if not self._line_starts:
            self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(self.text)]
        return self._line_starts

    def line_text(self, lineno: int) -> str:
        starts = self.line_starts
        start = starts[lineno - 1]
        end = starts[lineno] if lineno < len(starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def offset(self, lineno: int, col_utf8: int) -> int:
        """Absolute character offset of an ast position (ast columns count UTF-8 bytes)."""
        line = self.line_text(lineno)
        if not line.isascii():
            col_utf8 = len(line.encode("utf-8")[:col_utf8].decode("utf-8", "ignore"))
        return self.line_starts[lineno - 1] + col_utf8

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),
            self.offset(node.end_lineno, node.end_col_offset),
        )

    def segment(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.text[start:end]

    def column(self, lineno: int, col_utf8: int) -> int:
        """1-based character column, as reported to users."""
        return self.offset(lineno, col_utf8) - self.line_starts[lineno - 1] + 1

    # -- writing ---------------------------------------------------------------------------
    def encode(self, text: str) -> bytes:
        return text.encode(self.encoding)

    def write(self, new_text: str) -> None:
        """Replace the file atomically, keeping mode, owner, encoding and BOM; refuse if it
        changed on disk or if the user may not write it (like ruff and black, which open the
        file for writing: root may, others get an error). A symlink is written through."""
        try:
            data = self.encode(new_text)
        except UnicodeEncodeError as exc:
            raise SourceError(f"the fixed code cannot be encoded as {self.encoding}: {exc.reason}; not written") from None
        target = Path(os.path.realpath(self.path))
        try:
            if target.read_bytes() != self.raw:
                raise SourceError("file changed on disk while onnxfix was working; not written")
            status = os.stat(target)
        except OSError as exc:
            raise SourceError(f"cannot re-read file before writing: {exc.strerror or exc}") from None
        if not os.access(target, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
            raise SourceError("file is read-only (no write permission); not written")
        _replace_atomically(target, data, status)
        self.raw = data
        self.text = new_text
        self._line_starts = []


def _replace_atomically(target: Path, data: bytes, status: os.stat_result) -> None:
    """Write a temporary file beside ``target`` with its mode and owner, then rename it over
    ``target``: a crash leaves either the old or the new file, never half of one."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".onnxfix", dir=target.parent)
    except OSError as exc:
        raise SourceError(f"cannot write next to file: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, stat.S_IMODE(status.st_mode))
        _keep_owner(tmp, status)
        os.replace(tmp, target)
    except OSError as exc:
        _remove_quietly(tmp)
        raise SourceError(f"cannot write file: {exc.strerror or exc}") from None


def _keep_owner(tmp: str, status: os.stat_result) -> None:
    """The temporary file belongs to whoever runs onnxfix; give it the original's owner (only
    root may, and only root could make them differ in a way that matters)."""
    if hasattr(os, "chown") and (os.stat(tmp).st_uid, os.stat(tmp).st_gid) != (status.st_uid, status.st_gid):
        try:
            os.chown(tmp, status.st_uid, status.st_gid)
        except PermissionError:
            pass


def parse_python(text: str) -> ast.Module:
    """ast.parse, with syntax and recursion errors turned into SourceError."""
    try:
        return ast.parse(text)
    except SyntaxError as exc:
        col = (exc.offset or 1) if exc.offset and exc.offset > 0 else 1
        raise SourceError(f"syntax error: {exc.msg}", exc.lineno or 1, col) from None
    except (RecursionError, MemoryError):
        raise SourceError("expression too deeply nested to analyse") from None
    except ValueError as exc:  # e.g. source with NUL bytes after decoding
        raise SourceError(f"cannot parse: {exc}") from None


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split the way Python's tokenizer splits them (not on form
    feeds or Unicode separators, unlike str.splitlines)."""
    return _LINE.findall(text)


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def normalize_newlines(text: str, newline: str) -> str:
    """Code that onnxfix inserts is written with '\\n'; give it the file's line ending."""
    return text if newline == "\n" else text.replace("\n", newline)


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


BOM = codecs.BOM_UTF8
