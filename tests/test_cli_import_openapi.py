"""``quiver tools import-openapi``: the real console script on a temporary SQLite file."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from app.db import create_engine, create_session_factory
from app.tools.models import ToolDefinition
from tests.test_cli import assert_succeeded, create_space, database_url, run_quiver_async

DOCUMENTS = Path(__file__).resolve().parent / "app" / "tools" / "openapi_documents"
ALLOW_LOOPBACK = {"QUIVER_EGRESS_ALLOWLIST": "127.0.0.1"}


async def tools_of(directory: Path, space_id: str) -> dict[str, ToolDefinition]:
    engine = create_engine(database_url(directory))
    try:
        async with create_session_factory(engine)() as session:
            rows = await session.scalars(select(ToolDefinition).where(ToolDefinition.owner_space_id == space_id))
            return {row.name: row for row in rows}
    finally:
        await engine.dispose()


class TestImportOpenApi:
    async def test_imports_then_updates_the_chosen_operations(self, tmp_path: Path) -> None:
        assert_succeeded(await run_quiver_async(tmp_path, "migrate"))
        space = await create_space(tmp_path, "petshop")
        arguments = ["tools", "import-openapi", str(DOCUMENTS / "petstore-expanded.yaml"), "--space", space]
        options = ["--base-url", "http://127.0.0.1:9/v2", "--include", "addPet,findPets"]
        first = await run_quiver_async(tmp_path, *arguments, *options, env=ALLOW_LOOPBACK)
        assert_succeeded(first)
        assert "2 created, 0 updated, 0 disabled, 0 skipped" in first.stdout
        assert "created" in first.stdout and "add_pet" in first.stdout and "(POST /pets addPet)" in first.stdout
        tools = await tools_of(tmp_path, space)
        assert sorted(tools) == ["add_pet", "find_pets"]
        assert tools["add_pet"].endpoint == "http://127.0.0.1:9/v2/pets"
        assert tools["find_pets"].request_mapping is not None
        assert tools["find_pets"].request_mapping["method"] == "GET"

        again = await run_quiver_async(tmp_path, *arguments, *options, env=ALLOW_LOOPBACK)
        assert_succeeded(again)
        assert "0 created, 2 updated" in again.stdout
        # The terminal shows progress and one line per operation, not the migration's INFO log lines.
        assert "alembic" not in first.stderr + again.stderr
        assert (await tools_of(tmp_path, space)).keys() == tools.keys()

    async def test_refusals_exit_1_with_the_reason(self, tmp_path: Path) -> None:
        assert_succeeded(await run_quiver_async(tmp_path, "migrate"))
        space = await create_space(tmp_path, "refused")
        swagger = await run_quiver_async(
            tmp_path, "tools", "import-openapi", str(DOCUMENTS / "petstore-swagger-2.0.json"), "--space", space
        )
        assert swagger.returncode == 1
        assert "Swagger 2.0 documents are not supported" in swagger.stderr
        unknown = await run_quiver_async(
            tmp_path, "tools", "import-openapi", str(DOCUMENTS / "petstore.yaml"), "--space", "sp_nowhere"
        )
        assert unknown.returncode == 1 and "sp_nowhere" in unknown.stderr
        egress = await run_quiver_async(
            tmp_path,
            "tools",
            "import-openapi",
            str(DOCUMENTS / "petstore.yaml"),
            "--space",
            space,
            "--base-url",
            "http://127.0.0.1:9",
        )
        assert egress.returncode == 1 and "QUIVER_EGRESS_ALLOWLIST" in egress.stderr
        assert await tools_of(tmp_path, space) == {}
