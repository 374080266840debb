"""Reading files to ingest: formats, titles, structure, and the reasons a file is skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.knowledge.readers import UnreadableFile, html_to_markdown, iter_files, read_file
from tests.app.knowledge.pdf import make_pdf


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


class TestFormats:
    def test_markdown_takes_its_title_from_the_first_heading(self, tmp_path: Path) -> None:
        document = read_file(write(tmp_path / "guide.md", "Preface\n\n# Install Guide\n\nSteps."))
        assert (document.title, document.kind) == ("Install Guide", "markdown")

    def test_markdown_without_heading_is_titled_by_file_name(self, tmp_path: Path) -> None:
        assert read_file(write(tmp_path / "notes.md", "Just text.")).title == "notes"

    def test_text_files_are_plain(self, tmp_path: Path) -> None:
        document = read_file(write(tmp_path / "readme.txt", "# not a heading\r\nline"))
        assert (document.title, document.kind, document.text) == ("readme", "plain", "# not a heading\nline")

    def test_html_keeps_headings_and_drops_scripts(self, tmp_path: Path) -> None:
        html = (
            "<html><head><title>Policy</title><script>var x = 1;</script></head><body>"
            "<nav>Home | About</nav><h1>Leave</h1><p>Ask your <b>manager</b>.</p>"
            "<h2>Sick leave</h2><ul><li>Call in</li><li>Rest</li></ul></body></html>"
        )
        document = read_file(write(tmp_path / "policy.html", html))
        assert document.title == "Policy"
        assert document.kind == "markdown"
        assert document.text == "# Leave\n\nAsk your manager.\n\n## Sick leave\n\n- Call in\n- Rest"

    def test_html_preformatted_text_becomes_a_code_block(self) -> None:
        document = html_to_markdown("<pre>a\n  b</pre>", fallback_title="x")
        assert "```\na\n  b\n```" in document.text

    def test_pdf_pages_become_sections(self, tmp_path: Path) -> None:
        document = read_file(write(tmp_path / "report.pdf", make_pdf(["Revenue grew.", "Costs fell."], title="Q3")))
        assert document.title == "Q3"
        assert document.sections is not None
        assert [(section.heading_path, section.body) for section in document.sections] == [
            (("page 1",), "Revenue grew."),
            (("page 2",), "Costs fell."),
        ]

    def test_utf8_with_bom_and_chinese(self, tmp_path: Path) -> None:
        document = read_file(write(tmp_path / "zh.md", "\ufeff# 请假制度\n\n员工请假需要提前申请。".encode()))
        assert document.title == "请假制度"

    @pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
    def test_utf16_with_bom_and_chinese(self, tmp_path: Path, encoding: str) -> None:
        # Windows Notepad's "Unicode": a byte order mark, then two bytes a character (NULs in
        # every ASCII one). It was skipped as "binary content, not text".
        text = "# 退货政策（2024版）\r\n\r\n张伟在北京市朝阳区下单📦，30天内可退货。"  # noqa: RUF001
        raw = text.encode(encoding)
        if encoding != "utf-16":
            raw = "\ufeff".encode(encoding) + raw
        document = read_file(write(tmp_path / "退货政策.md", raw))
        assert document.title == "退货政策（2024版）"  # noqa: RUF001
        assert document.text.endswith("张伟在北京市朝阳区下单📦，30天内可退货。")  # noqa: RUF001
        assert not document.text.startswith("\ufeff")


class TestHtmlCharsets:
    @pytest.mark.parametrize(
        ("meta", "encoding", "title", "body"),
        [
            ('<meta charset="gbk">', "gbk", "退货政策", "张伟可在30天内退货"),
            ("<meta http-equiv='Content-Type' content='text/html; charset=gb2312'>", "gb2312", "退货", "30天内"),
            ("<META CHARSET=Big5>", "big5", "退貨政策", "張先生可在30天內退貨"),
            ('<meta charset="shift_jis">', "shift_jis", "返品ポリシー", "30日以内に返品"),
        ],
    )
    def test_a_page_in_the_charset_it_declares_is_read(
        self, tmp_path: Path, meta: str, encoding: str, title: str, body: str
    ) -> None:
        # Saved Chinese (and Japanese) pages are often not UTF-8: they were skipped.
        html = f"<html><head>{meta}<title>{title}</title></head><body><p>{body}</p></body></html>"
        document = read_file(write(tmp_path / "page.html", html.encode(encoding)))
        assert (document.title, document.text) == (title, body)

    def test_an_undeclared_or_unknown_charset_is_still_a_reason(self, tmp_path: Path) -> None:
        page = "<html><body><p>张伟</p></body></html>".encode("gbk")
        with pytest.raises(UnreadableFile, match="not valid UTF-8 text"):
            read_file(write(tmp_path / "plain.html", page))
        unknown = b'<meta charset="klingon"><p>\xd5\xc5</p>'
        with pytest.raises(UnreadableFile, match="declared charset 'klingon' is unknown"):
            read_file(write(tmp_path / "odd.html", unknown))


class TestSkipped:
    @pytest.mark.parametrize(
        ("name", "content", "reason"),
        [
            ("image.png", b"\x89PNG\r\n", "unsupported file type .png"),
            ("Makefile", "all:", "unsupported file type (none)"),
            ("empty.md", "  \n\n", "no text in it"),
            ("binary.txt", b"abc\x00def", "binary content, not text"),
            ("latin1.txt", "café".encode("latin-1"), "not valid UTF-8 text"),
            ("gbk.txt", "李娜在杭州西湖区购买了华为手机。".encode("gbk"), "not valid UTF-8 text"),
            ("odd-utf16.txt", b"\xff\xfeA\x00B", "not valid UTF-16 text"),
            ("nul-utf16.txt", "\ufeffab\x00cd".encode("utf-16-le"), "binary content, not text"),
            ("broken.pdf", b"%PDF-1.4 nonsense", "not a readable PDF"),
            ("blank.pdf", make_pdf([""]), "no text in it"),
        ],
    )
    def test_reason_names_the_problem(self, tmp_path: Path, name: str, content: str | bytes, reason: str) -> None:
        path = write(tmp_path / name, content)
        with pytest.raises(UnreadableFile) as raised:
            read_file(path)
        assert raised.value.path == path
        assert raised.value.reason.startswith(reason)

    def test_unreadable_permissions(self, tmp_path: Path) -> None:
        directory = tmp_path / "folder.md"
        directory.mkdir()
        with pytest.raises(UnreadableFile, match="cannot be read"):
            read_file(directory)


class TestIterFiles:
    def test_folders_are_walked_sorted_without_hidden_files(self, tmp_path: Path) -> None:
        write(tmp_path / "b.md", "b")
        write(tmp_path / "a" / "c.txt", "c")
        write(tmp_path / ".git" / "config", "x")
        write(tmp_path / ".hidden.md", "x")
        single = write(tmp_path.parent / f"{tmp_path.name}-single.md", "s")
        assert list(iter_files([tmp_path, single])) == [tmp_path / "a" / "c.txt", tmp_path / "b.md", single]
