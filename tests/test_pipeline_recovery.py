"""Pipeline runs survive their replica: a `quiver serve` process killed with SIGKILL in the
middle of a pipeline (a step's WRITE call in flight), then restarted, observed only through
the API, on SQLite and PostgreSQL; and on PostgreSQL with a second replica running all along.

The restarted replica takes the pipeline run over at start-up (the second replica: its
periodic sweep, once the lease ran out) and continues it from its last
completed step: the step that had SUCCEEDED keeps its output and its agent run and is not run
again; the step under way keeps its agent run, which the runtime continues (the WRITE call
that may have run is INTERRUPTED, never repeated); the steps after it run; a pipelineRunEvents
subscriber on the new replica gets the rest of the events and FINISHED; invokePipeline retried
synchronously with the same idempotency key answers with the same run once it finished.
"""

from __future__ import annotations

import asyncio
import secrets
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.databases import BACKENDS, database
from tests.support.http_tool_server import ToolServer
from tests.support.openai_server import OpenAIServer, ScriptedModel, call, final, tool_calls
from tests.support.processes import free_port, stop
from tests.test_replicas import _graphql, _serve, _wait_healthy
from tests.test_run_recovery import CREATE_AGENT, RUN, _environment, _record_tool, _subscribe
from tests.test_run_recovery import model_server as model_server
from tests.test_run_recovery import tool_server as tool_server

ORDER = {"type": "object", "properties": {"order": {"type": "string"}}, "required": ["order"]}

CREATE_PIPELINE = """mutation Create($input: CreatePipelineInput!) { createPipeline(input: $input) {
  pipeline { id } userErrors { code message } } }"""
INVOKE_PIPELINE = """mutation Invoke($input: InvokePipelineInput!) { invokePipeline(input: $input) {
  pipelineRun { id status output } userErrors { code message } } }"""
PIPELINE_RUN = """query Run($id: ID!) { pipelineRun(id: $id) {
  id status output finishedAt error { code step } steps { name status output run { id status } } } }"""
PIPELINE_EVENTS = """subscription Events($id: ID!) { pipelineRunEvents(pipelineRunId: $id) {
  kind step runEventKind pipelineRun { status output } } }"""


class Script:
    """The three agents' models: extract answers at once; record calls a slow WRITE tool, then
    answers when the test lets it; draft writes the final answer."""

    def __init__(self, server: OpenAIServer) -> None:
        self.extract: ScriptedModel = server.model("pl-extract")
        self.record: ScriptedModel = server.model("pl-record")
        self.draft: ScriptedModel = server.model("pl-draft")
        self.gate = threading.Event()
        self.extract.push(final('{"order": "A-7"}'))
        self.record.push(tool_calls(call("record", {"ref": "A-7"})), final('{"order": "A-7"}').held_until(self.gate))
        self.draft.push(final('{"email": "Order A-7 is on its way."}'))


async def _pipeline_run(port: int, run_id: str) -> dict[str, Any]:
    run: dict[str, Any] = (await _graphql(port, PIPELINE_RUN, {"id": run_id}))["pipelineRun"]
    return run


class TestKilledReplica:
    @pytest.mark.parametrize(
        ("backend", "survivor"),
        [*((backend, False) for backend in BACKENDS), ("postgresql", True)],
        ids=["sqlite-restarted", "postgresql-restarted", "postgresql-survivor"],
    )
    def test_a_pipeline_run_of_a_killed_replica_is_continued_from_its_last_completed_step(
        self, backend: str, survivor: bool, model_server: OpenAIServer, tool_server: ToolServer, tmp_path: Path
    ) -> None:
        """Continued by the same replica started again (its start-up sweep), or — ``survivor`` —
        by a second replica that was running all along (its periodic sweep)."""
        script = Script(model_server)
        write_key = f"plrec-{secrets.token_hex(4)}"
        with database(backend, str(tmp_path)) as database_url:
            env = _environment(database_url, model_server)
            port, other_port = free_port(), free_port()
            log, other_log = tmp_path / "serve.log", tmp_path / "other.log"
            process = _serve(port, env, log)
            other = None
            try:
                _wait_healthy(port, process, log)
                if survivor:
                    other = _serve(other_port, env, other_log)
                    _wait_healthy(other_port, other, other_log)
                pipeline_id, run_id = asyncio.run(self._start(port, tool_server, write_key, script))

                # Kill once the record step's WRITE call is in flight (it takes 3 s).
                deadline = time.monotonic() + 60
                while not asyncio.run(tool_server.requests("count-write", write_key)):
                    assert time.monotonic() < deadline, log.read_text()[-3000:]
                    time.sleep(0.05)
                before = asyncio.run(_pipeline_run(port, run_id))
                process.kill()
                process.wait(timeout=10)
                assert before["status"] == "RUNNING"
                assert [step["status"] for step in before["steps"]] == ["SUCCEEDED", "RUNNING", "PENDING"]

                if survivor:
                    port = other_port
                else:
                    process = _serve(port, env, log)
                    _wait_healthy(port, process, log)
                asyncio.run(self._check(port, tool_server, write_key, script, pipeline_id, before))
            finally:
                script.gate.set()
                stop(process)
                stop(other)

    async def _start(self, port: int, tool_server: ToolServer, write_key: str, script: Script) -> tuple[str, str]:
        tool_id = await _record_tool(port, tool_server, write_key)
        agents = {}
        for name, model, tools in (
            ("extract", script.extract, []),
            ("record", script.record, [tool_id]),
            ("draft", script.draft, []),
        ):
            created = await _graphql(
                port,
                CREATE_AGENT,
                {
                    "input": {
                        "spaceId": "sp_system",
                        "name": f"Pipeline {name}",
                        "model": model.name,
                        "systemPrompt": f"You {name} orders and answer with JSON.",
                        "activatedToolIds": tools,
                    }
                },
            )
            agents[name] = created["createAgent"]["agent"]["id"]
        steps = [
            {"name": "extract", "agentId": agents["extract"], "input": "{{ input.text }}", "outputSchema": ORDER},
            {"name": "record", "agentId": agents["record"], "inputSchema": ORDER, "outputSchema": ORDER},
            {"name": "draft", "agentId": agents["draft"], "inputSchema": ORDER, "final": True},
        ]
        pipeline = await _graphql(
            port, CREATE_PIPELINE, {"input": {"spaceId": "sp_system", "name": "orders", "steps": steps}}
        )
        assert pipeline["createPipeline"]["userErrors"] == []
        pipeline_id = pipeline["createPipeline"]["pipeline"]["id"]
        started = await _graphql(port, INVOKE_PIPELINE, {"input": self._invocation(pipeline_id, run_async=True)})
        assert started["invokePipeline"]["userErrors"] == []
        return pipeline_id, started["invokePipeline"]["pipelineRun"]["id"]

    @staticmethod
    def _invocation(pipeline_id: str, *, run_async: bool) -> dict[str, Any]:
        return {
            "pipelineId": pipeline_id,
            "input": {"text": "Where is A-7?"},
            "idempotencyKey": "orders-1",
            "async": run_async,
        }

    async def _check(
        self,
        port: int,
        tool_server: ToolServer,
        write_key: str,
        script: Script,
        pipeline_id: str,
        before: dict[str, Any],
    ) -> None:
        run_id = before["id"]
        # The record step's continued run waits on its model (the gate): the run cannot finish yet.
        events = _subscribe(port, run_id, PIPELINE_EVENTS, "pipelineRunEvents")
        first = await anext(events)
        assert first["kind"] == "STARTED" and first["pipelineRun"]["status"] == "RUNNING", first
        # Retried synchronously with the same key: answered with the same run, once it finished.
        retry = asyncio.create_task(
            _graphql(port, INVOKE_PIPELINE, {"input": self._invocation(pipeline_id, run_async=False)})
        )
        script.gate.set()
        rest = [event async for event in events]

        kinds = [(event["kind"], event["step"]) for event in rest]
        assert kinds[-1] == ("FINISHED", None), kinds
        assert rest[-1]["pipelineRun"] == {"status": "SUCCEEDED", "output": {"email": "Order A-7 is on its way."}}
        steps = [kind for kind in kinds if kind[0] in ("STEP_STARTED", "STEP_FINISHED")]
        # The steps before the crash are replayed from the run's row, the rest arrive live, each once.
        assert steps == [
            ("STEP_STARTED", "extract"),
            ("STEP_FINISHED", "extract"),
            ("STEP_STARTED", "record"),
            ("STEP_FINISHED", "record"),
            ("STEP_STARTED", "draft"),
            ("STEP_FINISHED", "draft"),
        ], kinds
        assert ("RUN_EVENT", "record") in kinds

        again = (await retry)["invokePipeline"]
        assert again["userErrors"] == []
        assert again["pipelineRun"] == {
            "id": run_id,
            "status": "SUCCEEDED",
            "output": {"email": "Order A-7 is on its way."},
        }

        run = await _pipeline_run(port, run_id)
        assert run["status"] == "SUCCEEDED" and run["error"] is None
        assert [step["status"] for step in run["steps"]] == ["SUCCEEDED", "SUCCEEDED", "SUCCEEDED"]
        # The completed step kept its output and run and was not run again; the step under way kept its run.
        assert run["steps"][0] == before["steps"][0]  # SUCCEEDED, output {"order": "A-7"}, the same run
        assert run["steps"][1]["run"]["id"] == before["steps"][1]["run"]["id"]
        assert (len(script.extract.requests), len(script.record.requests), len(script.draft.requests)) == (1, 2, 1)
        # The WRITE call in flight at the kill ran once and is INTERRUPTED, not repeated.
        assert len(await tool_server.requests("count-write", write_key)) == 1
        record_run = (await _graphql(port, RUN, {"id": run["steps"][1]["run"]["id"]}))["agentRun"]
        [write] = record_run["toolCalls"]
        assert write["status"] == "FAILED" and write["error"]["code"] == "INTERRUPTED", write
