"""Structure-aware chunking: sections by heading, paragraphs packed to size, overlap, positions."""

from __future__ import annotations

from itertools import pairwise

import pytest

from app.knowledge.chunking import ChunkingOptions, chunk_markdown, chunk_plain, chunk_sections, markdown_sections

SMALL = ChunkingOptions(size=200, overlap=40)


class TestSections:
    def test_headings_nest_into_a_path(self) -> None:
        sections = markdown_sections("# Guide\n\nIntro.\n\n## Install\n\nSteps.\n\n### Linux\n\napt.\n\n## Use\n\nRun.")
        assert [(section.heading_path, section.body) for section in sections] == [
            (("Guide",), "Intro."),
            (("Guide", "Install"), "Steps."),
            (("Guide", "Install", "Linux"), "apt."),
            (("Guide", "Use"), "Run."),
        ]

    def test_hashes_inside_code_fences_are_not_headings(self) -> None:
        sections = markdown_sections("# Script\n\n```sh\n# a comment\necho hi\n```\n")
        assert len(sections) == 1
        assert "# a comment" in sections[0].body

    def test_setext_headings_are_headings(self) -> None:
        sections = markdown_sections("Title\n=====\n\nBody one.\n\nPart\n----\n\nBody two.")
        assert [section.heading_path for section in sections] == [("Title",), ("Title", "Part")]

    def test_front_matter_is_dropped(self) -> None:
        sections = markdown_sections("---\ntitle: x\n---\n# Real\n\nText.")
        assert [(section.heading_path, section.body) for section in sections] == [(("Real",), "Text.")]

    def test_heading_markup_is_cleaned(self) -> None:
        assert markdown_sections("## The `open()` **call** ##\n\nx")[0].heading_path == ("The open() call",)


class TestPacking:
    def test_small_paragraphs_share_a_chunk(self) -> None:
        chunks = chunk_markdown("# A\n\nOne.\n\nTwo.\n\nThree.", SMALL)
        assert [(chunk.text, chunk.heading_path) for chunk in chunks] == [("One.\n\nTwo.\n\nThree.", ("A",))]

    def test_chunks_never_cross_a_heading(self) -> None:
        chunks = chunk_markdown("# A\n\nOne.\n\n# B\n\nTwo.", SMALL)
        assert [(chunk.text, chunk.heading_path) for chunk in chunks] == [("One.", ("A",)), ("Two.", ("B",))]

    def test_positions_count_from_zero_across_the_document(self) -> None:
        text = "# A\n\n" + "\n\n".join(f"Paragraph {n} " + "word " * 30 for n in range(6)) + "\n\n# B\n\nEnd."
        chunks = chunk_markdown(text, SMALL)
        assert [chunk.position for chunk in chunks] == list(range(len(chunks)))
        assert chunks[-1].heading_path == ("B",)

    def test_no_chunk_exceeds_the_target_size(self) -> None:
        text = "# Long\n\n" + " ".join(f"Sentence {n} says something useful." for n in range(200))
        chunks = chunk_markdown(text, SMALL)
        assert len(chunks) > 5
        assert max(len(chunk.text) for chunk in chunks) <= SMALL.size

    def test_consecutive_chunks_of_a_long_paragraph_overlap(self) -> None:
        text = " ".join(f"Sentence {n} is here." for n in range(100))
        chunks = chunk_plain(text, SMALL)
        for previous, current in pairwise(chunks):
            first_sentence = current.text.split(". ")[0]
            assert first_sentence in previous.text  # the next chunk starts inside the previous one

    def test_every_sentence_survives(self) -> None:
        sentences = [f"Fact number {n} matters." for n in range(120)]
        chunks = chunk_plain(" ".join(sentences), SMALL)
        joined = " ".join(chunk.text for chunk in chunks)
        assert all(sentence in joined for sentence in sentences)

    def test_unspaced_text_is_split_between_characters_without_spaces(self) -> None:
        text = "知识库检索需要分词" * 60
        chunks = chunk_plain(text, SMALL)
        assert len(chunks) > 2
        assert all(" " not in chunk.text and len(chunk.text) <= SMALL.size for chunk in chunks)
        assert chunks[1].text[:20] in chunks[0].text  # overlap

    @pytest.mark.parametrize(
        ("unit", "width"),
        [
            ("🇨🇳🇯🇵🇰🇷🇹🇼", 2),
            ("👨\u200d👩\u200d👧\u200d👦", 7),
            ("e\u0301", 2),
            ("👍🏽", 2),
            ("❤\ufe0f", 2),
            ("🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", 7),
        ],
    )
    def test_a_cut_in_unbroken_text_splits_no_character(self, unit: str, width: int) -> None:
        # Text with no space or full stop is cut at the chunk size: a cut between a flag's two
        # regional indicators made every later flag of the chunk another (🇹🇼🇨🇳 -> 🇼🇨, 🇳…),
        # one inside a ZWJ emoji left a chunk starting with a joiner, one after an e its accent.
        text = unit * (1000 // len(unit) + 1)
        chunks = chunk_plain(text, SMALL)
        assert len(chunks) > 3
        for chunk in chunks:
            assert len(chunk.text) <= SMALL.size
            whole = chunk.text.replace(" ", "")
            assert text.find(whole) % width == 0, [hex(ord(character)) for character in whole[:4]]
            assert len(whole) % width == 0, [hex(ord(character)) for character in whole[-4:]]

    def test_chinese_sentences_end_at_full_stops(self) -> None:
        text = "。".join(f"第{n}句话讲了一件事" for n in range(80)) + "。"
        chunks = chunk_plain(text, SMALL)
        assert all(chunk.text.endswith("。") for chunk in chunks[:-1])

    def test_a_code_block_stays_whole_when_it_fits(self) -> None:
        code = "```python\ndef f():\n\n    return 1\n```"
        chunks = chunk_markdown(f"# Code\n\nBefore.\n\n{code}\n\nAfter.", ChunkingOptions(size=60, overlap=10))
        assert any(code in chunk.text for chunk in chunks)

    def test_headings_only_document_still_gives_a_chunk(self) -> None:
        chunks = chunk_markdown("# Only a title", SMALL)
        assert [chunk.text for chunk in chunks] == ["# Only a title"]

    def test_blank_text_gives_no_chunk(self) -> None:
        assert chunk_markdown(" \n\n ", SMALL) == []
        assert chunk_sections([], SMALL) == []


class TestOptions:
    def test_overlap_must_be_under_half_the_size(self) -> None:
        with pytest.raises(ValueError, match="overlap"):
            ChunkingOptions(size=200, overlap=100)

    def test_size_has_a_floor(self) -> None:
        with pytest.raises(ValueError, match="size"):
            ChunkingOptions(size=10, overlap=0)
