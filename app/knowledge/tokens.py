"""Normalisation and tokenisation shared by the lexical index, queries and duplicate detection.

Both backends index the same token stream, produced here rather than by the database:

- text is NFKC-normalised and case-folded; Latin diacritics are removed (``café`` → ``cafe``);
- words of spaced scripts are split on anything that is not a letter, digit or mark,
  English stop words are dropped and the rest is stemmed (Snowball English), so
  ``indexes`` finds ``index``;
- runs of unspaced scripts (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar) become
  overlapping character bigrams, plus single characters in the index so that a
  one-character query still matches: ``数据库`` → ``数据 据库`` (+ ``数 据 库``).

SQLite's FTS5 ``ascii`` tokenizer and PostgreSQL's ``simple`` configuration then only
split on the spaces between these tokens.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import snowballstemmer  # type: ignore[import-untyped]

# Scripts written without spaces between words (plus Hangul, whose particles glue to words).
UNSPACED_RANGES = (
    "\u0e00-\u0e7f"  # Thai
    "\u0e80-\u0eff"  # Lao
    "\u1000-\u109f"  # Myanmar
    "\u1100-\u11ff"  # Hangul Jamo
    "\u1780-\u17ff"  # Khmer
    "\u3040-\u309f"  # Hiragana
    "\u30a0-\u30ff"  # Katakana
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0003134f"  # CJK extensions B-G
)
UNSPACED_RUN = re.compile(f"[{UNSPACED_RANGES}]+")
# Everything that separates tokens: not a word character (or an underscore), not an
# unspaced-script character, not a combining mark of Indic scripts.
SEPARATOR = re.compile(f"[^\\w{UNSPACED_RANGES}\u0900-\u0dff]|_")
MAX_TOKEN_LENGTH = 64

# Function words too common to say anything about relevance. Kept short on purpose:
# words such as "with", "if", "not", "from" or "return" are real query terms in
# technical documents.
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "being",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "i'm",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)

_stemmer = snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    if not word.isascii() or not word.isalpha() or len(word) < 4:
        return word
    return str(_stemmer.stemWord(word))


def _strip_latin_diacritics(text: str) -> str:
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFD", text)
    if not any(map(unicodedata.combining, decomposed)):
        # No mark at all (Chinese, most text): the same answer without a step per character
        # in Python, which took most of the matching of a long mixed request.
        return unicodedata.normalize("NFC", decomposed)
    kept: list[str] = []
    previous = ""
    for char in decomposed:
        if unicodedata.combining(char) and previous and ord(previous) < 0x0250:
            continue  # an accent on a Latin letter
        kept.append(char)
        previous = char
    return unicodedata.normalize("NFC", "".join(kept))


def normalise(text: str) -> str:
    """NFKC, case-folded, Latin accents removed."""
    return _strip_latin_diacritics(unicodedata.normalize("NFKC", text).casefold())


def _raw_tokens(text: str) -> list[str]:
    spaced = SEPARATOR.sub(" ", normalise(text))
    spaced = UNSPACED_RUN.sub(lambda match: f" {match.group()} ", spaced)
    return spaced.split()


def _is_unspaced(token: str) -> bool:
    return UNSPACED_RUN.fullmatch(token) is not None


def _bigrams(run: str) -> list[str]:
    return [run[index : index + 2] for index in range(len(run) - 1)]


def index_tokens(text: str) -> list[str]:
    """The tokens a passage is indexed under (in order, repeats kept for term frequency)."""
    tokens: list[str] = []
    for token in _raw_tokens(text):
        if _is_unspaced(token):
            tokens.extend(token)  # single characters, for one-character queries
            tokens.extend(_bigrams(token))
        elif token not in STOP_WORDS and len(token) <= MAX_TOKEN_LENGTH:
            tokens.append(_stem(token))
    return tokens


def query_token_sequence(text: str) -> list[str]:
    """The tokens of a query in order, repeats kept: what phrase matching reads.

    An unspaced run of two or more characters contributes its bigrams only (they are
    far more selective than single characters); a lone character stands for itself.
    A query made only of stop words keeps them, so it can still match something.
    """
    tokens: list[str] = []
    raw = _raw_tokens(text)
    meaningful = [token for token in raw if _is_unspaced(token) or token not in STOP_WORDS]
    for token in meaningful or raw:
        if _is_unspaced(token):
            tokens.extend(_bigrams(token) if len(token) > 1 else [token])
        elif len(token) <= MAX_TOKEN_LENGTH:
            tokens.append(_stem(token))
    return tokens


def query_tokens(text: str) -> list[str]:
    """The distinct tokens a query looks for, in query order (``query_token_sequence`` without repeats)."""
    return list(dict.fromkeys(query_token_sequence(text)))


def is_mostly_unspaced(text: str) -> bool:
    """More than half of the letters belong to unspaced scripts (a Chinese or Japanese query)."""
    letters = [char for char in text if char.isalpha()]
    if not letters:
        return False
    unspaced = sum(1 for char in letters if UNSPACED_RUN.match(char))
    return unspaced * 2 > len(letters)


def index_text(text: str) -> str:
    """``index_tokens`` joined by spaces: what the FTS5 table / tsvector is built from."""
    return " ".join(index_tokens(text))


def shingles(text: str, size: int = 3) -> frozenset[str]:
    """Word (or, for unspaced scripts, character) n-grams, for near-duplicate detection."""
    words: list[str] = []
    for token in _raw_tokens(text):
        if _is_unspaced(token):
            words.extend(token)
        else:
            words.append(token)
    if len(words) < size:
        return frozenset([" ".join(words)]) if words else frozenset()
    return frozenset(" ".join(words[index : index + size]) for index in range(len(words) - size + 1))


def jaccard(first: frozenset[str], second: frozenset[str]) -> float:
    if not first or not second:
        return 1.0 if first == second else 0.0
    return len(first & second) / len(first | second)
