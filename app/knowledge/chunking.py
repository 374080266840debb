"""Structure-aware chunking: Markdown sections, then paragraphs, then sentences.

A chunk never crosses a heading, so its heading path says exactly where it comes
from. Inside a section, whole paragraphs (a fenced code block counts as one) are
packed up to the target size; a paragraph longer than that is split at sentence
ends, and a sentence longer than that at word boundaries (or between characters
for unspaced scripts). Consecutive chunks of one section share an overlap: the
next chunk starts with the previous one's tail, cut at a sentence or word start.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from app.knowledge.tokens import UNSPACED_RANGES

ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
FENCE = re.compile(r"^ {0,3}(```+|~~~+)")
FRONT_MATTER = re.compile(r"\A---[ \t]*\n.*?\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
# A sentence ends at . ! ? followed by a space, or at a CJK full stop, exclamation or question mark, or semicolon.
SENTENCE_END = re.compile("(?<=[.!?])\\s+|(?<=[\u3002\uff01\uff1f\uff1b])")
PARAGRAPH_BREAK = "\n\n"
# Characters of scripts (and their punctuation) that run on without spaces.
UNSPACED_CHAR = re.compile(f"[{UNSPACED_RANGES}\u3000-\u303f\uff00-\uffef]")


@dataclass(frozen=True)
class Section:
    """A run of text under one heading path."""

    heading_path: tuple[str, ...]
    body: str


@dataclass(frozen=True)
class ChunkDraft:
    position: int
    text: str
    heading_path: tuple[str, ...]


@dataclass(frozen=True)
class ChunkingOptions:
    """Target size and overlap, in characters."""

    size: int = 800
    overlap: int = 100

    def __post_init__(self) -> None:
        if self.size < 50:
            raise ValueError("chunk size must be at least 50 characters")
        if not 0 <= self.overlap < self.size // 2:
            raise ValueError("chunk overlap must be between 0 and half the chunk size")

    @property
    def fingerprint(self) -> str:
        return f"chunks:{self.size}/{self.overlap}"


def markdown_sections(text: str) -> list[Section]:
    """Split Markdown into sections by ATX (``## x``) and setext headings, ignoring code fences."""
    text = FRONT_MATTER.sub("", normalise_newlines(text), count=1)
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    lines: list[str] = []
    fence: str | None = None

    def flush() -> None:
        body = "\n".join(lines).strip("\n")
        if body.strip():
            sections.append(Section(tuple(title for _, title in stack), body))
        lines.clear()

    def open_heading(level: int, title: str) -> None:
        flush()
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, title))

    for line in text.split("\n"):
        fence_match = FENCE.match(line)
        if fence is not None:
            lines.append(line)
            if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
                fence = None
            continue
        if fence_match:
            fence = fence_match.group(1)
            lines.append(line)
            continue
        heading = ATX_HEADING.match(line)
        if heading:
            open_heading(len(heading.group(1)), _clean_heading(heading.group(2)))
            continue
        underline = SETEXT_UNDERLINE.match(line)
        if underline and lines and lines[-1].strip() and (len(lines) == 1 or not lines[-2].strip()):
            title = lines.pop().strip()
            open_heading(1 if underline.group(1)[0] == "=" else 2, _clean_heading(title))
            continue
        lines.append(line)
    flush()
    return sections


def plain_sections(text: str) -> list[Section]:
    body = normalise_newlines(text).strip()
    return [Section((), body)] if body else []


def chunk_sections(sections: list[Section], options: ChunkingOptions) -> list[ChunkDraft]:
    drafts: list[ChunkDraft] = []
    for section in sections:
        for text in _pack(_blocks(section.body), options):
            drafts.append(ChunkDraft(len(drafts), text, section.heading_path))
    return drafts


def chunk_markdown(text: str, options: ChunkingOptions) -> list[ChunkDraft]:
    drafts = chunk_sections(markdown_sections(text), options)
    if not drafts and text.strip():
        # Headings and nothing else: the headings are the content.
        drafts = chunk_sections(plain_sections(text), options)
    return drafts


def chunk_plain(text: str, options: ChunkingOptions) -> list[ChunkDraft]:
    return chunk_sections(plain_sections(text), options)


def normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")


def _clean_heading(title: str) -> str:
    return re.sub(r"\s+", " ", title.replace("`", "").replace("*", "")).strip()


def _blocks(body: str) -> list[str]:
    """Paragraphs separated by blank lines; a fenced code block is one block."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        fence_match = FENCE.match(line)
        if fence is None and fence_match:
            fence = fence_match.group(1)
        elif fence is not None and fence_match and fence_match.group(1)[0] == fence[0]:
            fence = None
        if fence is None and not line.strip():
            if current:
                blocks.append("\n".join(current).strip("\n"))
                current = []
            continue
        current.append(line.rstrip())
    if current:
        blocks.append("\n".join(current).strip("\n"))
    return [block for block in blocks if block.strip()]


def _extends(character: str) -> bool:
    """A character that belongs to the one before it: a combining mark, a zero-width joiner,
    a variation selector, an emoji skin tone or tag."""
    code = ord(character)
    return (
        code == 0x200D
        or 0xFE00 <= code <= 0xFE0F
        or 0xE0100 <= code <= 0xE01EF
        or 0x1F3FB <= code <= 0x1F3FF
        or 0xE0020 <= code <= 0xE007F
        or unicodedata.category(character) in ("Mn", "Me", "Mc")
    )


def _is_regional_indicator(character: str) -> bool:
    return 0x1F1E6 <= ord(character) <= 0x1F1FF


def _splits_character(text: str, index: int) -> bool:
    """Whether cutting ``text`` at ``index`` splits what a reader sees as one character: an
    accented letter, a ZWJ emoji (👨‍👩‍👧), a flag (two regional indicators), a skin tone."""
    if index <= 0 or index >= len(text):
        return False
    if _extends(text[index]) or text[index - 1] == "\u200d":
        return True
    if _is_regional_indicator(text[index]):
        start = index
        while start > 0 and _is_regional_indicator(text[start - 1]):
            start -= 1
        return (index - start) % 2 == 1
    return False


def _character_boundary(text: str, index: int, *, forward: bool = False) -> int:
    """``index`` moved (back, or ``forward``) to the nearest place that splits no character;
    back past the start, forward instead."""
    moved = index
    while _splits_character(text, moved) and (0 < moved < len(text)):
        moved += 1 if forward else -1
    if moved == 0 and not forward:
        return _character_boundary(text, index, forward=True)
    return moved


def _pieces(block: str, size: int) -> list[str]:
    """A block cut into pieces no longer than ``size``: sentences, then words, then characters."""
    if len(block) <= size:
        return [block]
    pieces: list[str] = []
    for sentence in (part for part in SENTENCE_END.split(block) if part.strip()):
        if len(sentence) <= size:
            pieces.append(sentence)
            continue
        words = re.split(r"(?<=\s)", sentence)
        current = ""
        for word in words:
            while len(word) > size:  # one "word" longer than a chunk: unspaced text or a blob
                if current:
                    pieces.append(current)
                    current = ""
                # A cut inside a flag 🇹🇼 or a ZWJ emoji left its halves (another flag, a lone
                # joiner) at the ends of two chunks.
                cut = _character_boundary(word, size)
                pieces.append(word[:cut])
                word = word[cut:]
            if len(current) + len(word) > size:
                pieces.append(current)
                current = ""
            current += word
        if current.strip():
            pieces.append(current)
    return [piece.strip() for piece in pieces if piece.strip()]


def _tail(text: str, overlap: int) -> str:
    """The last ``overlap`` characters of a chunk, starting at a sentence or word start."""
    if overlap <= 0 or len(text) <= overlap:
        return ""
    window = text[_character_boundary(text, len(text) - overlap, forward=True) :]
    for boundary in (SENTENCE_END, re.compile(r"\s+")):
        match = boundary.search(window)
        if match and match.end() < len(window):
            return window[match.end() :].strip()
    return window.strip()


def _join(left: str, right: str) -> str:
    """Two pieces of running text: a space between them, except inside unspaced scripts."""
    if UNSPACED_CHAR.match(left[-1:]) and UNSPACED_CHAR.match(right[:1]):
        return left + right
    return f"{left} {right}"


def _pack(blocks: list[str], options: ChunkingOptions) -> list[str]:
    chunks: list[str] = []
    current = ""
    # Pieces of a split paragraph leave room for the overlap that precedes them.
    piece_size = options.size - options.overlap - 1
    for block in blocks:
        pieces = [block] if len(block) <= options.size else _pieces(block, piece_size)
        for index, piece in enumerate(pieces):
            if not current:
                current = piece
                continue
            joined = current + PARAGRAPH_BREAK + piece if index == 0 else _join(current, piece)
            if len(joined) <= options.size:
                current = joined
                continue
            chunks.append(current)
            overlap = _tail(current, options.overlap)
            current = _join(overlap, piece) if overlap and len(overlap) + 1 + len(piece) <= options.size else piece
    if current:
        chunks.append(current)
    return chunks
