"""An MCP server over streamable HTTP (or HTTP+SSE), built with the official SDK's low-level ``Server``.

Run by the tests as a subprocess::

    python -m tests.support.mcp_http_server --port 8123 --state /tmp/state.json [--sse]

What it offers is read from the JSON state file on every request, so a test changes
the server between two syncs by rewriting the file (no restart):

- ``removed``: names of tools to leave out of ``tools/list``;
- ``descriptions``: description overrides by tool name;
- ``input_schemas``: input schema overrides by tool name;
- ``output_schemas``: output schema overrides by tool name;
- ``weather_result``: what ``weather`` answers as its structured content instead (a hostile
  result, say);
- ``extra``: how many filler tools (``extra_00`` …) to add;
- ``writable``: names of tools whose ``readOnlyHint`` is dropped;
- ``odd_name``: add ``files.read/v2``, a name models cannot take as is;
- ``named``: ``{name: description}`` of further tools (Chinese names, say), each answering
  ``name: arguments``;
- ``bad_schema``: add ``broken_schema``, whose input schema is not valid JSON Schema;
- ``page_size``: tools per ``tools/list`` page (the cursor is the next offset);
- ``require_header``: ``[name, value]`` every HTTP request must carry, else 401;
- ``reflect``: add ``reflect_headers`` (the HTTP request's headers as its result, text and
  structured) and ``reflect_headers_error`` (the same as a tool error), as an upstream that
  repeats what it was sent.

Tools: ``echo`` (readOnlyHint), ``write_note`` (no annotations), ``fail`` (isError),
``weather`` (structuredContent + outputSchema), ``slow`` (sleeps), ``crash`` (kills the
process mid-call with ``os._exit``), ``whoami`` (the server's pid).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from pathlib import Path
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server import Server, ServerRequestContext
from mcp.server.sse import SseServerTransport
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

OBJECT: dict[str, Any] = {"type": "object", "properties": {}}


def _base_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name="echo",
            description="Echo a message back.",
            input_schema={
                "type": "object",
                "properties": {"message": {"type": "string"}},
                "required": ["message"],
            },
            annotations=types.ToolAnnotations(title="Echo", read_only_hint=True),
        ),
        types.Tool(
            name="write_note",
            title="Write a note",
            description="Store a note.",
            input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
        ),
        types.Tool(name="fail", description="Always reports a tool error.", input_schema=OBJECT),
        types.Tool(
            name="weather",
            description="Weather in a city, as structured content.",
            input_schema={"type": "object", "properties": {"city": {"type": "string"}}},
            output_schema={
                "type": "object",
                "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
                "required": ["city", "celsius"],
            },
            annotations=types.ToolAnnotations(read_only_hint=True),
        ),
        types.Tool(
            name="slow",
            description="Sleeps for `seconds`.",
            input_schema={"type": "object", "properties": {"seconds": {"type": "number"}}},
            annotations=types.ToolAnnotations(read_only_hint=True),
        ),
        types.Tool(name="crash", description="Kills the server mid-call.", input_schema=OBJECT),
        types.Tool(
            name="whoami",
            description="The server process id.",
            input_schema=OBJECT,
            annotations=types.ToolAnnotations(read_only_hint=True),
        ),
    ]


class State:
    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self) -> dict[str, Any]:
        try:
            loaded: dict[str, Any] = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}
        return loaded

    def tools(self) -> list[types.Tool]:
        state = self.read()
        removed = set(state.get("removed", []))
        descriptions: dict[str, str] = state.get("descriptions", {})
        input_schemas: dict[str, dict[str, Any]] = state.get("input_schemas", {})
        output_schemas: dict[str, dict[str, Any]] = state.get("output_schemas", {})
        tools = [tool for tool in _base_tools() if tool.name not in removed]
        tools += [
            types.Tool(name=f"extra_{index:02d}", description=f"Filler tool {index}.", input_schema=OBJECT)
            for index in range(int(state.get("extra", 0)))
        ]
        if state.get("odd_name"):
            tools.append(types.Tool(name="files.read/v2", description="An odd name.", input_schema=OBJECT))
        for name, description in state.get("named", {}).items():
            tools.append(types.Tool(name=name, description=description, input_schema=OBJECT))
        if state.get("bad_schema"):
            broken = {"type": "object", "properties": {"size": {"type": 12}}}
            tools.append(types.Tool(name="broken_schema", description="Invalid schema.", input_schema=broken))
        if state.get("reflect"):
            tools += [
                types.Tool(name="reflect_headers", description="The request's headers.", input_schema=OBJECT),
                types.Tool(name="reflect_headers_error", description="The headers, as an error.", input_schema=OBJECT),
            ]
        writable = set(state.get("writable", []))
        for tool in tools:
            if tool.name in descriptions:
                tool.description = descriptions[tool.name]
            if tool.name in input_schemas:
                tool.input_schema = input_schemas[tool.name]
            if tool.name in output_schemas:
                tool.output_schema = output_schemas[tool.name]
            if tool.name in writable:
                tool.annotations = None
        return tools


def build_server(state: State) -> Server[Any]:
    async def list_tools(
        _ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        tools = state.tools()
        page_size = int(state.read().get("page_size", 1000))
        start = int(params.cursor) if params is not None and params.cursor else 0
        end = start + page_size
        return types.ListToolsResult(tools=tools[start:end], next_cursor=str(end) if end < len(tools) else None)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = params.arguments or {}
        if params.name in ("reflect_headers", "reflect_headers_error"):
            headers = dict(ctx.request.headers) if isinstance(ctx.request, Request) else {}
            text = "\n".join(f"{name}: {value}" for name, value in headers.items())
            if params.name == "reflect_headers_error":
                return types.CallToolResult(
                    content=[types.TextContent(text=f"refused, you sent:\n{text}")], is_error=True
                )
            return types.CallToolResult(content=[types.TextContent(text=text)], structured_content={"headers": headers})
        if params.name == "echo":
            return types.CallToolResult(content=[types.TextContent(text=str(arguments.get("message")))])
        if params.name == "write_note":
            return types.CallToolResult(
                content=[types.TextContent(text="saved"), types.TextContent(text=str(arguments.get("text")))]
            )
        if params.name == "fail":
            return types.CallToolResult(content=[types.TextContent(text="the widget is broken")], is_error=True)
        if params.name == "weather":
            city = str(arguments.get("city", "Paris"))
            payload = state.read().get("weather_result", {"city": city, "celsius": 21.5})
            return types.CallToolResult(
                content=[types.TextContent(text=json.dumps(payload))], structured_content=payload
            )
        if params.name == "slow":
            await asyncio.sleep(float(arguments.get("seconds", 5)))
            return types.CallToolResult(content=[types.TextContent(text="done")])
        if params.name == "crash":
            os._exit(17)
        if params.name == "files.read/v2":
            return types.CallToolResult(content=[types.TextContent(text="odd but fine")])
        if params.name in state.read().get("named", {}):
            text = f"{params.name}: {json.dumps(arguments, ensure_ascii=False, sort_keys=True)}"
            return types.CallToolResult(content=[types.TextContent(text=text)])
        if params.name == "whoami":
            return types.CallToolResult(content=[], structured_content={"pid": os.getpid()})
        return types.CallToolResult(content=[types.TextContent(text=f"unknown tool {params.name}")], is_error=True)

    return Server("quiver-test-http", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


class RequireHeader:
    """401 unless the request carries the header the state file names (if any)."""

    def __init__(self, app: ASGIApp, state: State) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        required = self.state.read().get("require_header") if scope["type"] == "http" else None
        if required:
            name, value = required
            headers = {key.decode().lower(): item.decode() for key, item in scope["headers"]}
            if headers.get(name.lower()) != value:
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await self.app(scope, receive, send)


def sse_app(server: Server[Any]) -> Starlette:
    """The legacy HTTP+SSE transport: GET /sse for the stream, POST /messages/ for requests."""
    transport = SseServerTransport("/messages/")

    async def handle_sse(request: Request) -> Response:
        async with transport.connect_sse(request.scope, request.receive, request._send) as (read, write):
            await server.run(read, write, server.create_initialization_options())
        return Response()

    return Starlette(
        routes=[
            Route("/sse", endpoint=handle_sse, methods=["GET"]),
            Mount("/messages/", app=transport.handle_post_message),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--sse", action="store_true", help="Serve HTTP+SSE at /sse instead of /mcp.")
    arguments = parser.parse_args()
    state = State(arguments.state)
    server = build_server(state)
    app = RequireHeader(sse_app(server) if arguments.sse else server.streamable_http_app(), state)
    uvicorn.run(app, host="127.0.0.1", port=arguments.port, log_level="warning")


if __name__ == "__main__":
    main()
