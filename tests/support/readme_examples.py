"""README.md's examples, produced by the code: a pipeline run, an agent run's trace and a
health report.

    .venv/bin/python -m tests.support.readme_examples

runs each one on a fresh SQLite database in a temporary directory, against the scripted
model server (tests/support/openai_server.py), and prints it in the layout the README
shows. tests/test_readme_examples.py checks that the README's examples are what this prints
(the README shortens long values with "…"; ids and timings differ from run to run).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

import httpx
from cryptography.fernet import Fernet

from app.config import Settings
from app.db import create_engine, create_session_factory
from app.main import create_app, prepare_database
from app.principal import SYSTEM_PRINCIPAL
from app.spaces import service as spaces_service
from tests.conftest import GraphQLClient
from tests.schema.runtime import create_agent, create_skill
from tests.support.health_data import SINCE, UNTIL, seed
from tests.support.openai_server import API_KEY, OpenAIServer, call, final, running_openai_server, tool_calls
from tests.test_cli import quiver_env, run_quiver

ADMIN_TOKEN = "readme-examples-admin-token"
ORDER = {"type": "object", "properties": {"order": {"type": "string"}}, "required": ["order"]}
POLICY = "Refunds are accepted within 30 days of delivery when the item is unused."
QUESTION = "I got my order 12 days ago. Can I still return it?"

CREATE_PIPELINE = """mutation Create($input: CreatePipelineInput!) { createPipeline(input: $input) {
  pipeline { id version } userErrors { field code message } } }"""
INVOKE_PIPELINE = """mutation Invoke($input: InvokePipelineInput!) { invokePipeline(input: $input) {
  pipelineRun { id status pipelineVersion output error { code message step }
                steps { name status output run { id status trace { kind } } } }
  userErrors { field code message } } }"""
KB = """mutation KB($input: CreateKnowledgeBaseInput!) {
  createKnowledgeBase(input: $input) { knowledgeBase { id } userErrors { code message } } }"""
DOC = """mutation Doc($input: AddDocumentInput!) {
  addDocument(input: $input) { document { id } userErrors { code message } } }"""
INVOKE_AGENT = """mutation Invoke($input: InvokeAgentInput!) { invokeAgent(input: $input) {
  run { id status } userErrors { code message } } }"""
TRACE = "query Trace($id: ID!) { agentRun(id: $id) { status trace { kind step startedAt durationMs detail } } }"


def _settings(directory: Path, server: OpenAIServer) -> Settings:
    return Settings(
        database_url=f"sqlite+aiosqlite:///{directory / 'quiver.db'}",
        secret_key=Fernet.generate_key().decode(),
        admin_token=ADMIN_TOKEN,
        openai_base_url=server.base_url,
        openai_api_key=API_KEY,
        egress_allowlist="127.0.0.1,localhost",
    )


async def _data(gql: GraphQLClient, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    return await gql.execute(query, variables)


async def pipeline_run(gql: GraphQLClient, server: OpenAIServer, space_id: str) -> str:
    """The README's two-step pipeline (extract → draft, a pinned skill version), invoked once."""
    extract_model, draft_model = server.model("extract"), server.model("draft")
    extract = await create_agent(gql, space_id, extract_model.name, name="Extractor", systemPrompt="Find the order.")
    draft = await create_agent(gql, space_id, draft_model.name, name="Drafter", systemPrompt="Write to customers.")
    steps = [
        {
            "name": "extract",
            "agentId": extract["id"],
            "input": "Find the order in: {{ input.text }}",
            "outputSchema": ORDER,
        },
        {
            "name": "draft",
            "agentId": draft["id"],
            "skillVersions": ["sk_email_draft@1.0.0"],
            "final": True,
            "input": "Write to the customer about order {{ steps.extract.output.order }}: {{ input }}",
            "inputSchema": {"type": "object", "required": ["order"]},
        },
    ]
    created = (await _data(gql, CREATE_PIPELINE, {"input": {"spaceId": space_id, "name": "reply", "steps": steps}}))[
        "createPipeline"
    ]
    assert created["userErrors"] == [], created["userErrors"]
    extract_model.push(final('```json\n{"order": "A-7"}\n```'))
    draft_model.push(final('{"subject": "Order A-7", "body": "Your order A-7 left our warehouse today."}'))
    invocation = {"pipelineId": created["pipeline"]["id"], "input": {"text": "where is A-7?"}, "idempotencyKey": "k1"}
    payload = (await _data(gql, INVOKE_PIPELINE, {"input": invocation}))["invokePipeline"]
    assert payload["userErrors"] == [], payload["userErrors"]
    return _lines(payload["pipelineRun"], "steps")


def _lines(value: dict[str, Any], listed: str) -> str:
    """``value`` as JSON with one item of its list ``listed`` a line."""
    head = json.dumps({key: item for key, item in value.items() if key != listed}, ensure_ascii=False)[:-1]
    items = ",\n".join("  " + json.dumps(item, ensure_ascii=False) for item in value[listed])
    return f'{head}, "{listed}": [\n{items}\n]}}'


async def run_trace(gql: GraphQLClient, server: OpenAIServer, space_id: str) -> str:
    """An agent with a skill, a knowledge base and the calculator: its run's trace, one stage a line."""
    kb = await _data(gql, KB, {"input": {"spaceId": space_id, "name": "policies", "label": "Policies"}})
    kb_id = kb["createKnowledgeBase"]["knowledgeBase"]["id"]
    document = {"knowledgeBaseId": kb_id, "title": "Refund policy", "text": POLICY, "source": "policy.md"}
    added = await _data(gql, DOC, {"input": document})
    assert added["addDocument"]["userErrors"] == [], added
    skill = await create_skill(gql, "refunds", "Check the refund policy before answering.", space_id)
    model = server.model("support")
    agent = await create_agent(
        gql,
        space_id,
        model.name,
        activatedToolIds=["bt_calculator"],
        boundSkillIds=[skill["id"]],
        mountedKnowledgeBaseIds=[kb_id],
    )
    model.push(
        tool_calls(call("calculator", {"expression": "30 - 12"}, call_id="call_1")),
        final("Yes: 18 of the 30 days are left [1]."),
    )
    started = (await _data(gql, INVOKE_AGENT, {"input": {"agentId": agent["id"], "message": QUESTION}}))["invokeAgent"]
    assert started["userErrors"] == [], started
    run = (await _data(gql, TRACE, {"id": started["run"]["id"]}))["agentRun"]
    assert run["status"] == "SUCCEEDED", run
    stages = [{key: stage[key] for key in ("kind", "step", "durationMs", "detail")} for stage in run["trace"]]
    return "[\n" + ",\n".join("  " + json.dumps(stage, ensure_ascii=False) for stage in stages) + "\n]"


async def health_report(directory: Path) -> str:
    """``quiver report`` (a separate process, as a user runs it) on the rows of tests/support/health_data.py."""
    engine = create_engine(f"sqlite+aiosqlite:///{directory / 'quiver.db'}")
    try:
        factory = create_session_factory(engine)
        async with factory() as session, session.begin():
            space_a = await spaces_service.create_space(session, SYSTEM_PRINCIPAL, "health-a", "Health A")
            space_b = await spaces_service.create_space(session, SYSTEM_PRINCIPAL, "health-b", "Health B")
        await seed(factory, space_a.id, space_b.id, "ct_lookup_order")
    finally:
        await engine.dispose()
    window = ["--since", SINCE.date().isoformat(), "--until", UNTIL.date().isoformat()]
    result = await asyncio.to_thread(
        run_quiver, directory, "report", "--space", space_a.id, *window, env=quiver_env(directory)
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.rstrip("\n")


async def produce(directory: Path) -> dict[str, str]:
    """Each example as printed: ``pipeline``, ``trace`` and ``report``."""
    with running_openai_server() as server:
        settings = _settings(directory, server)
        app = create_app(settings)
        services = app.state.services
        try:
            await prepare_database(settings, services.session_factory)
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://quiver") as http:
                gql = GraphQLClient(http=http, key=ADMIN_TOKEN)
                async with services.session_factory() as session, session.begin():
                    space = await spaces_service.create_space(session, SYSTEM_PRINCIPAL, "support", "Support")
                examples = {
                    "pipeline": await pipeline_run(gql, server, space.id),
                    "trace": await run_trace(gql, server, space.id),
                }
        finally:
            await services.close()
    examples["report"] = await health_report(directory)
    return examples


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="quiver-readme-") as directory:
        examples = asyncio.run(produce(Path(directory)))
    for name, text in examples.items():
        print(f"--- {name}")
        print(text)


if __name__ == "__main__":
    main()
