"""Files to ingest: Markdown, plain text, HTML and PDF, read into a title and text.

HTML becomes Markdown-like text (headings keep their level) so that the Markdown
chunker sees its structure; a PDF's pages become sections headed "page N".
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from app.knowledge.chunking import Section, normalise_newlines

SUPPORTED_SUFFIXES = (".md", ".markdown", ".txt", ".html", ".htm", ".pdf")
MAX_FILE_BYTES = 50 * 1024 * 1024


class UnreadableFile(Exception):  # noqa: N818 - an outcome reported per file, not a bug
    """A file that cannot be ingested; ``reason`` says why, for the summary."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class ReadDocument:
    """A file's content. ``sections`` is set when the format already has its structure (PDF pages)."""

    title: str
    text: str
    kind: str  # "markdown" or "plain"
    sections: tuple[Section, ...] | None = None


def iter_files(paths: list[Path]) -> Iterator[Path]:
    """The given files, and every file under the given folders (sorted, hidden ones left out)."""
    for path in paths:
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                relative = child.relative_to(path)
                if child.is_file() and not any(part.startswith(".") for part in relative.parts):
                    yield child
        else:
            yield path


def path_text(path: Path | str) -> str:
    """A path as text that can be stored and printed: as is, or, for a name that is not UTF-8
    (a GBK name unpacked from a Windows zip: Python keeps its bytes as lone surrogates, which
    neither PostgreSQL nor UTF-8 output takes), those bytes written ``\\xcd\\xcb``."""
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "backslashreplace")
    return text


def read_file(path: Path) -> ReadDocument:
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise UnreadableFile(path, f"unsupported file type {suffix or '(none)'}; supported: .md .txt .html .pdf")
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise UnreadableFile(path, f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB")
        raw = path.read_bytes()
    except OSError as error:
        raise UnreadableFile(path, f"cannot be read ({error.strerror or error})") from None
    stem = path_text(path.stem)
    if suffix == ".pdf":
        document = _read_pdf(path, raw, stem)
    else:
        text = _decode_html(path, raw) if suffix in (".html", ".htm") else _decode(path, raw)
        if suffix in (".html", ".htm"):
            document = html_to_markdown(text, fallback_title=stem)
        elif suffix == ".txt":
            document = ReadDocument(title=stem, text=normalise_newlines(text), kind="plain")
        else:
            document = ReadDocument(title=markdown_title(text) or stem, text=text, kind="markdown")
    if not document.text.strip():
        raise UnreadableFile(path, "no text in it")
    return document


def _decode(path: Path, raw: bytes) -> str:
    # A UTF-16 file (Windows Notepad's "Unicode") starts with its byte order mark and is
    # full of NUL bytes: it is recognised by the mark before NULs are taken for binary content.
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            text = raw.decode("utf-16")
        except UnicodeDecodeError:
            raise UnreadableFile(path, "not valid UTF-16 text") from None
        if "\x00" in text[:4096]:
            raise UnreadableFile(path, "binary content, not text")
        return text
    if b"\x00" in raw[:4096]:
        raise UnreadableFile(path, "binary content, not text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UnreadableFile(path, "not valid UTF-8 text") from None


#: A charset an HTML page declares (<meta charset="gbk"> or http-equiv's content="...; charset=gb2312"),
#: looked for in its first 4 KiB as the HTML standard's prescan does.
HTML_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.IGNORECASE)


def _decode_html(path: Path, raw: bytes) -> str:
    """An HTML page: UTF-8 (or UTF-16 with its mark), else the charset it declares. Saved
    Chinese pages are often GBK or GB2312 with a <meta charset>; they were skipped as 'not
    valid UTF-8 text'."""
    try:
        return _decode(path, raw)
    except UnreadableFile:
        declared = HTML_CHARSET.search(raw[:4096])
        if declared is None:
            raise
    name = declared.group(1).decode("ascii").lower()
    # As browsers do (WHATWG Encoding): GB2312 and GBK pages are read as GB18030, their superset.
    encoding = "gb18030" if name in ("gb2312", "gbk", "gb_2312-80", "x-gbk") else name
    try:
        return raw.decode(encoding)
    except LookupError:
        raise UnreadableFile(path, f"not valid UTF-8 text, and its declared charset {name!r} is unknown") from None
    except UnicodeDecodeError:
        raise UnreadableFile(path, f"not valid UTF-8 or {name} text") from None


def markdown_title(text: str) -> str | None:
    match = re.search(r"^ {0,3}#[ \t]+(.+?)[ \t]*#*[ \t]*$", text, re.MULTILINE)
    return match.group(1).strip() if match else None


def _read_pdf(path: Path, raw: bytes, stem: str) -> ReadDocument:
    from io import BytesIO

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(BytesIO(raw))
        if reader.is_encrypted:
            raise UnreadableFile(path, "encrypted PDF")
        pages = [(page.extract_text() or "") for page in reader.pages]
        title = reader.metadata.title if reader.metadata and reader.metadata.title else None
    except UnreadableFile:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as error:
        raise UnreadableFile(path, f"not a readable PDF ({error})") from None
    sections = tuple(
        Section((f"page {number}",), normalise_newlines(text).strip())
        for number, text in enumerate(pages, start=1)
        if text.strip()
    )
    return ReadDocument(
        title=(title or stem).strip() or stem,
        text="\n\n".join(section.body for section in sections),
        kind="plain",
        sections=sections,
    )


class _HtmlToMarkdown(HTMLParser):
    SKIPPED = frozenset({"script", "style", "noscript", "template", "svg", "head", "nav", "footer"})
    BLOCKS = frozenset(
        {
            "p",
            "div",
            "section",
            "article",
            "main",
            "header",
            "aside",
            "blockquote",
            "table",
            "tr",
            "ul",
            "ol",
            "dl",
            "dt",
            "dd",
            "figure",
            "figcaption",
            "form",
            "hr",
            "br",
        }
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title: list[str] = []
        self.skip_depth = 0
        self.in_title = False
        self.in_pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.in_title = True
        if tag in self.SKIPPED:
            self.skip_depth += 1
            return
        if re.fullmatch(r"h[1-6]", tag):
            self.parts.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag == "pre":
            self.in_pre = True
            self.parts.append("\n\n```\n")
        elif tag in ("td", "th"):
            self.parts.append(" | ")
        elif tag in self.BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag in self.SKIPPED:
            self.skip_depth = max(self.skip_depth - 1, 0)
            return
        if re.fullmatch(r"h[1-6]", tag) or tag in self.BLOCKS:
            self.parts.append("\n\n")
        elif tag == "pre":
            self.in_pre = False
            self.parts.append("\n```\n\n")

    def handle_data(self, data: str) -> None:
        if self.in_title:
            self.title.append(data)
            return
        if self.skip_depth:
            return
        self.parts.append(data if self.in_pre else re.sub(r"\s+", " ", data))


def html_to_markdown(html: str, *, fallback_title: str) -> ReadDocument:
    parser = _HtmlToMarkdown()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    # Headings on one line each; at most one blank line between blocks.
    text = re.sub(r"(#{1,6} )\s*\n+\s*", r"\1", text)
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    title = re.sub(r"\s+", " ", "".join(parser.title)).strip()
    return ReadDocument(title=title or markdown_title(text) or fallback_title, text=text, kind="markdown")
