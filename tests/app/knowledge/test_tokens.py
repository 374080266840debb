"""The token stream both lexical indexes are built from."""

from __future__ import annotations

from app.knowledge.tokens import (
    index_text,
    index_tokens,
    is_mostly_unspaced,
    jaccard,
    normalise,
    query_tokens,
    shingles,
)


class TestSpacedScripts:
    def test_words_are_case_folded_stemmed_and_stripped_of_stop_words(self) -> None:
        assert index_tokens("The Indexes of a Database") == ["index", "databas"]

    def test_query_and_index_stem_alike(self) -> None:
        assert set(query_tokens("indexing databases")) <= set(index_tokens("An index of the database"))

    def test_latin_accents_are_removed(self) -> None:
        assert index_tokens("Café naïve") == index_tokens("cafe naive")

    def test_only_accents_on_latin_letters_are_removed(self) -> None:
        # Composed or decomposed, stacked or not; a space carries a stray mark like a letter.
        assert normalise("CAFÉ cafe\u0301 e\u0301\u0323x Ǖ") == "cafe cafe ex u"
        # Marks on Greek, Cyrillic, Hebrew or kana stay (composed again).
        assert normalise("ά й שָׁ が") == "ά й שָׁ が"
        assert normalise("\u0301a") == "\u0301a"  # a mark with nothing before it stays
        assert normalise("数据库 SQLite") == "数据库 sqlite"

    def test_punctuation_and_underscores_separate_tokens(self) -> None:
        assert index_tokens("hello_world, foo-bar/baz") == ["hello", "world", "foo", "bar", "baz"]

    def test_a_query_of_stop_words_only_keeps_them(self) -> None:
        assert query_tokens("the") == ["the"]

    def test_query_tokens_are_distinct(self) -> None:
        assert query_tokens("index index indexes") == ["index"]


class TestUnspacedScripts:
    def test_chinese_runs_become_bigrams_plus_characters_in_the_index(self) -> None:
        tokens = index_tokens("数据库索引")
        assert [token for token in tokens if len(token) == 2] == ["数据", "据库", "库索", "索引"]
        assert {"数", "据", "库", "索", "引"} <= set(tokens)

    def test_chinese_queries_use_bigrams_only(self) -> None:
        assert query_tokens("数据库") == ["数据", "据库"]

    def test_a_single_character_query_stands_for_itself(self) -> None:
        assert query_tokens("猫") == ["猫"]

    def test_mixed_text_splits_between_scripts(self) -> None:
        assert query_tokens("SQLite数据库") == ["sqlite", "数据", "据库"]

    def test_japanese_and_thai_are_bigrammed_too(self) -> None:
        assert query_tokens("東京タワー") == ["東京", "京タ", "タワ", "ワー"]
        assert "ภา" in index_tokens("ภาษาไทย")

    def test_mostly_unspaced_text(self) -> None:
        assert is_mostly_unspaced("数据库怎么建索引")
        assert is_mostly_unspaced("SQLite数据库怎么建索引")
        assert not is_mostly_unspaced("how to index a SQLite 数据库")
        assert not is_mostly_unspaced("1234 ?!")

    def test_index_text_is_space_separated(self) -> None:
        assert index_text("数据 cats") == "数 据 数据 cat"


class TestShingles:
    def test_identical_passages_have_jaccard_one(self) -> None:
        text = "Reciprocal rank fusion merges two ranked lists."
        assert jaccard(shingles(text), shingles(text.upper())) == 1.0

    def test_different_passages_share_little(self) -> None:
        assert jaccard(shingles("the cat sat on the mat"), shingles("stock prices fell sharply today")) == 0.0

    def test_short_text_has_one_shingle(self) -> None:
        assert shingles("two words") == frozenset({"two words"})
