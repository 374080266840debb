"""`quiver apikey list|revoke` and `create --label --expires`, the real console script on a SQLite file."""

from __future__ import annotations

import asyncio
import unicodedata
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import typer

from app.cli import parse_expiry
from tests.test_cli import assert_succeeded, authenticate, create_space, key_lines, run_quiver_async


async def create_key(directory: Path, *arguments: str) -> str:
    result = await run_quiver_async(directory, "apikey", "create", *arguments)
    assert_succeeded(result)
    return result.stdout.rstrip("\n").splitlines()[-1]


def display_width(text: str) -> int:
    """Columns a terminal gives ``text``: 2 for East Asian Wide and Fullwidth, 0 for combining marks."""
    return sum(
        0 if unicodedata.combining(character) else 2 if unicodedata.east_asian_width(character) in "WF" else 1
        for character in text
    )


def row_of(listing: str, key_id: str) -> str:
    rows = [line for line in listing.splitlines() if line.strip().startswith(key_id)]
    assert len(rows) == 1, listing
    return rows[0]


class TestList:
    async def test_lists_keys_with_label_state_and_expiry_never_the_secret_and_filters(self, tmp_path: Path) -> None:
        ops_key = await create_key(tmp_path, "--admin", "--label", "ops")  # migrates
        crew, other = await create_space(tmp_path, "crew"), await create_space(tmp_path, "other")
        member = await create_key(
            tmp_path, "--space", crew, "--role", "MEMBER", "--label", "ci runner", "--expires", "30d"
        )
        other_key = await create_key(tmp_path, "--space", other, "--role", "VIEWER")
        member_id = (await authenticate(tmp_path, member)).key_id  # type: ignore[union-attr]
        other_id = (await authenticate(tmp_path, other_key)).key_id  # type: ignore[union-attr]
        assert_succeeded(await run_quiver_async(tmp_path, "apikey", "revoke", other_id))

        listing, by_space, revoked = await asyncio.gather(
            run_quiver_async(tmp_path, "apikey", "list"),
            run_quiver_async(tmp_path, "apikey", "list", "--space", other),
            run_quiver_async(tmp_path, "apikey", "list", "--state", "revoked"),
        )

        for result in (listing, by_space, revoked):
            assert_succeeded(result)
        assert not any(secret in listing.stdout for secret in (ops_key, member, other_key))
        assert key_lines(listing.stdout) == []
        row = row_of(listing.stdout, member_id)
        expected_expiry = (datetime.now(UTC) + timedelta(days=30)).strftime("%Y-%m-%d")
        assert "MEMBER" in row and crew in row and "ACTIVE" in row and "ci runner" in row
        assert expected_expiry in row
        assert "3 key(s)" in listing.stdout
        assert "REVOKED" in row_of(by_space.stdout, other_id) and "1 key(s)" in by_space.stdout
        assert "1 key(s)" in revoked.stdout and other_id in revoked.stdout

    async def test_columns_line_up_by_display_width_with_chinese_and_japanese_labels(self, tmp_path: Path) -> None:
        # A terminal gives an East Asian Wide or Fullwidth character two columns, a combining mark none:
        # padded by characters, every column after such a label would start further right.
        labels = ["ops", "运维团队密钥", "ﾃｽﾄ半角キー", "cafe\u0301 crew", "ＡＢＣ全角"]
        await create_key(tmp_path, "--admin", "--label", labels[0])  # migrates
        await asyncio.gather(*(create_key(tmp_path, "--admin", "--label", label) for label in labels[1:]))

        listing = await run_quiver_async(tmp_path, "apikey", "list")

        assert_succeeded(listing)
        rows = [line for line in listing.stdout.splitlines() if line.strip().startswith("key_")]
        assert len(rows) == len(labels)
        for label in labels:
            assert sum(label in row for row in rows) == 1, listing.stdout
        starts = {display_width(row[: row.index(" 20")]) for row in rows}  # where "created" starts
        assert len(starts) == 1, listing.stdout

    async def test_an_unknown_state_is_refused(self, tmp_path: Path) -> None:
        result = await run_quiver_async(tmp_path, "apikey", "list", "--state", "GONE")

        assert result.returncode != 0
        assert "--state" in result.stderr


class TestRevoke:
    async def test_a_revoked_key_no_longer_authenticates(self, tmp_path: Path) -> None:
        key = await create_key(tmp_path, "--admin")
        key_id = (await authenticate(tmp_path, key)).key_id  # type: ignore[union-attr]

        result = await run_quiver_async(tmp_path, "apikey", "revoke", key_id)

        assert_succeeded(result)
        assert f"revoked {key_id}" in result.stdout
        assert await authenticate(tmp_path, key) is None

    async def test_an_unknown_key_fails_with_a_clear_message(self, tmp_path: Path) -> None:
        result = await run_quiver_async(tmp_path, "apikey", "revoke", "key_nope")

        assert result.returncode == 2
        assert "key_nope" in result.stderr and "not found" in result.stderr.lower()

    async def test_the_environment_admin_token_is_refused_while_set(self, tmp_path: Path) -> None:
        token = "cli-environment-token"
        environment = {"QUIVER_ADMIN_TOKEN": token}
        await create_key(tmp_path, "--admin")  # migrates
        # `serve` would create it; so does any start of the app with the variable set.
        from app.db import create_engine, create_session_factory
        from app.spaces import service
        from tests.test_cli import database_url

        engine = create_engine(database_url(tmp_path))
        try:
            async with create_session_factory(engine)() as session, session.begin():
                await service.ensure_admin_token(session, token)
        finally:
            await engine.dispose()
        key_id = (await authenticate(tmp_path, token)).key_id  # type: ignore[union-attr]

        result = await run_quiver_async(tmp_path, "apikey", "revoke", key_id, env=environment)

        assert result.returncode == 2
        assert "QUIVER_ADMIN_TOKEN" in result.stderr
        assert await authenticate(tmp_path, token) is not None


class TestCreateExpiry:
    async def test_a_key_past_its_expiry_is_refused_at_creation(self, tmp_path: Path) -> None:
        result = await run_quiver_async(tmp_path, "apikey", "create", "--admin", "--expires", "2020-01-01")

        assert result.returncode == 2
        assert "future" in result.stderr
        assert key_lines(result.stdout + result.stderr) == []

    async def test_a_malformed_expiry_is_refused(self, tmp_path: Path) -> None:
        result = await run_quiver_async(tmp_path, "apikey", "create", "--admin", "--expires", "soon")

        assert result.returncode != 0
        assert "soon" in result.stderr
        assert key_lines(result.stdout + result.stderr) == []


class TestCreateRole:
    @pytest.mark.parametrize("role", ["SPACE_ADMIN", "MEMBER", "VIEWER"])
    async def test_admin_with_a_narrower_role_is_refused_not_made_an_admin_key(self, tmp_path: Path, role: str) -> None:
        """`(--admin | --space ID --role ROLE)`: asking for both an ADMIN key and a MEMBER one
        made an ADMIN key, more than was asked for."""
        result = await run_quiver_async(tmp_path, "apikey", "create", "--admin", "--role", role)

        assert result.returncode == 2
        assert "--admin" in result.stderr and "--role" in result.stderr
        assert key_lines(result.stdout + result.stderr) == []

    async def test_admin_with_role_admin_is_an_admin_key(self, tmp_path: Path) -> None:
        key = await create_key(tmp_path, "--admin", "--role", "ADMIN")

        principal = await authenticate(tmp_path, key)
        assert principal is not None and principal.role.name == "ADMIN"


class TestParseExpiry:
    NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    @pytest.mark.parametrize(
        ("text", "expected"),
        [
            ("90m", NOW + timedelta(minutes=90)),
            ("12h", NOW + timedelta(hours=12)),
            ("30d", NOW + timedelta(days=30)),
            ("8w", NOW + timedelta(weeks=8)),
            ("2027-01-31", datetime(2027, 1, 31, tzinfo=UTC)),
            ("2027-01-31T08:30:00+02:00", datetime(2027, 1, 31, 6, 30, tzinfo=UTC)),
        ],
    )
    def test_durations_and_iso_moments(self, text: str, expected: datetime) -> None:
        assert parse_expiry(text, self.NOW) == expected

    @pytest.mark.parametrize("text", ["", "30", "d30", "1y", "tomorrow", "9999999d"])
    def test_anything_else_is_a_bad_parameter(self, text: str) -> None:
        with pytest.raises(typer.BadParameter):
            parse_expiry(text, self.NOW)
