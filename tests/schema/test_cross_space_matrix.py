"""The cross-space matrix, generated from the schema.

Space B holds one object of every kind (Tool, MCP server and its tool, Agent, AgentRun,
KnowledgeBase, Document, Skill, the Space itself, a ToolCall, an ApiKey, a Pipeline), each named with a marker.
Space A holds objects that link to them: a call its MEMBER made to B's tool (refused, but
logged), an agent whose activated tool was re-bound to B, an agent row pointing at B's
knowledge base and skill, call rows pointing at B's agent and run, a global skill
declaring B's tool.

Every root field of Query and Mutation is called by a MEMBER, SPACE_ADMIN and VIEWER of
A, with B's ids (and A's linking ids) in its id arguments, selecting every field reachable
from its type (walked from the schema, so a new field is covered without being listed
here). No B object may appear anywhere in an answer: no object with a B id, no marker
text. The subscriptions are walked the same way. The same queries as ADMIN must reach
every kind of B object through a nested link: proof that the walk can see a leak.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInputType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLUnionType,
    get_named_type,
)
from graphql.pyutils import Undefined
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.agents.models import Agent as AgentRow
from app.config import Settings
from app.db import utcnow
from app.gateway.models import ToolCall as ToolCallRow
from app.ids import new_id
from app.principal import Principal, Role
from app.runtime.models import AgentRun as AgentRunRow
from app.spaces import service as spaces_service
from app.spaces.models import Space as SpaceRow
from app.tools.models import ToolDefinition
from schema.context import Context
from schema.schema import build_schema
from tests.conftest import GraphQLClient, Keys

MARK = "zqforeignzq"
GUARDED = (
    "Tool",
    "McpServer",
    "Agent",
    "AgentRun",
    "KnowledgeBase",
    "Document",
    "Skill",
    "Space",
    "ToolCall",
    "ApiKey",
)
RESTRICTED_ROLES = (Role.MEMBER, Role.SPACE_ADMIN, Role.VIEWER)
# Object levels below a root field; a type is not entered twice on one path.
MAX_LEVELS = 2
# Nothing answers on a filtered subscription that matches nothing: wait this long for a leak.
QUIET_S = 0.3


# ---------------------------------------------------------------- the world


@dataclass
class World:
    space_a: str
    space_b: str
    foreign: dict[str, str]  # kind -> B's id
    linking: dict[str, list[str]] = field(default_factory=dict)  # kind -> A's ids that link to B

    @property
    def foreign_ids(self) -> set[str]:
        return set(self.foreign.values())


async def build_world(gql: GraphQLClient, keys: Keys, session_factory: async_sessionmaker[AsyncSession]) -> World:
    space_a = (await keys.space("home-a")).id
    space_b = (await keys.space(f"{MARK}-b")).id
    async with session_factory() as session, session.begin():
        await session.execute(update(SpaceRow).where(SpaceRow.id == space_b).values(label=f"{MARK} B"))
    foreign: dict[str, str] = {"space": space_b}

    async def create(mutation: str, variables: dict[str, Any], *path: str) -> str:
        """``mutation`` is "name InputType": the payload's ``path[1]`` id is returned."""
        name, input_type = mutation.split()
        document = (
            f"mutation M($input: {input_type}!) {{ {name}(input: $input) "
            f"{{ {path[1]} {{ id }} userErrors {{ code message }} }} }}"
        )
        payload = (await gql.execute(document, variables))[path[0]]
        assert payload.get("userErrors") in (None, []), payload
        return str(payload[path[1]]["id"])

    tool_mutation = "createTool CreateToolInput"

    def tool_input(name: str, space: str) -> dict[str, Any]:
        return {
            "input": {
                "name": name,
                "label": f"{MARK} {name}",
                "description": f"{MARK} description",
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
                "endpoint": f"https://{MARK}.example.com/{name}",
                "spaceIds": [space],
            }
        }

    foreign["tool"] = await create(tool_mutation, tool_input(f"{MARK}_tool", space_b), "createTool", "tool")
    foreign["mcp_server"] = await create(
        "registerMcpServer RegisterMcpServerInput",
        {"input": {"name": f"{MARK}-mcp", "transport": "STDIO", "command": [f"{MARK}-server"], "spaceIds": [space_b]}},
        "registerMcpServer",
        "mcpServer",
    )
    mcp_tool_id = f"{foreign['mcp_server']}__echo"  # an id echoed back in errors: no marker
    async with session_factory() as session, session.begin():
        # What a sync would store; discovery itself is tested elsewhere.
        session.add(
            ToolDefinition(
                tool_id=mcp_tool_id,
                name="echo",
                label=f"{MARK} echo",
                description=f"{MARK} echo",
                input_schema={"type": "object"},
                type="MCP",
                mcp_server_id=foreign["mcp_server"],
            )
        )
    foreign["mcp_tool"] = mcp_tool_id
    foreign["agent"] = await create(
        "createAgent CreateAgentInput",
        {"input": {"spaceId": space_b, "name": f"{MARK} agent", "model": "m", "systemPrompt": f"{MARK} prompt"}},
        "createAgent",
        "agent",
    )
    foreign["knowledge_base"] = await create(
        "createKnowledgeBase CreateKnowledgeBaseInput",
        {"input": {"spaceId": space_b, "name": f"{MARK}-kb", "label": f"{MARK} kb", "description": MARK}},
        "createKnowledgeBase",
        "knowledgeBase",
    )
    foreign["document"] = await create(
        "addDocument AddDocumentInput",
        {
            "input": {
                "knowledgeBaseId": foreign["knowledge_base"],
                "title": f"{MARK} doc",
                "text": f"# {MARK}\n\n{MARK} refund policy x",
                "source": f"{MARK}.md",
            }
        },
        "addDocument",
        "document",
    )
    skill_mutation = "createSkill CreateSkillInput"
    foreign["skill"] = await create(
        skill_mutation,
        {
            "input": {
                "spaceId": space_b,
                "name": f"{MARK}-skill",
                "label": f"{MARK} skill",
                "description": f"{MARK} x",
                "prompt": f"{MARK} prompt x",
                "triggerHints": ["x"],
            }
        },
        "createSkill",
        "skill",
    )
    foreign["api_key"] = await create(
        "createApiKey CreateApiKeyInput",
        {"input": {"role": "SPACE_ADMIN", "spaceId": space_b, "label": f"{MARK} key"}},
        "createApiKey",
        "apiKey",
    )
    foreign["pipeline"] = await create(
        "createPipeline CreatePipelineInput",
        {
            "input": {
                "spaceId": space_b,
                "name": f"{MARK} pipeline",
                "steps": [
                    {"name": "only", "agentId": foreign["agent"], "input": f"{MARK} {{{{ input }}}}", "final": True}
                ],
            }
        },
        "createPipeline",
        "pipeline",
    )
    invoke = """mutation I($input: InvokeToolInput!) { invokeTool(input: $input) { status call { id } } }"""
    called = await gql.execute(
        invoke, {"input": {"spaceId": space_b, "toolId": "bt_calculator", "arguments": {"expression": "1+1"}}}
    )
    foreign["tool_call"] = called["invokeTool"]["call"]["id"]
    foreign["run"] = new_id("run_")
    async with session_factory() as session, session.begin():
        session.add(
            AgentRunRow(
                id=foreign["run"],
                agent_id=foreign["agent"],
                space_id=space_b,
                status="SUCCEEDED",
                input=f"{MARK} input",
                output=f"{MARK} output",
                model="m",
                finished_at=utcnow(),
            )
        )

    # ---- A's side: objects that link to B's
    world = World(space_a=space_a, space_b=space_b, foreign=foreign)
    member_a = await keys.for_space(space_a, Role.MEMBER)
    refused = await gql.as_key(member_a).execute(
        invoke, {"input": {"spaceId": space_a, "toolId": foreign["tool"], "arguments": {"q": "x"}}}
    )
    assert refused["invokeTool"]["status"] == "FAILED"
    world.linking["tool_call"] = [refused["invokeTool"]["call"]["id"]]

    moved = await create(tool_mutation, tool_input(f"{MARK}_moved", space_a), "createTool", "tool")
    agent_a = await create(
        "createAgent CreateAgentInput",
        {
            "input": {
                "spaceId": space_a,
                "name": "home agent",
                "model": "m",
                "systemPrompt": "home",
                "activatedToolIds": [moved, "bt_calculator"],
            }
        },
        "createAgent",
        "agent",
    )
    rebound = await gql.execute(
        """mutation B($input: SetBindingsInput!) { setSpaceBindings(input: $input) { userErrors { code } } }""",
        {"input": {"id": moved, "spaceIds": [space_b]}},
    )
    assert rebound["setSpaceBindings"]["userErrors"] == []
    foreign["moved_tool"] = moved
    world.linking["agent"] = [agent_a]
    global_skill = await create(
        skill_mutation,
        {
            "input": {
                "name": "global-orchestrator",
                "label": "Global",
                "description": "declares a tool of B",
                "prompt": "orchestrate x",
                "toolIds": [foreign["tool"], foreign["mcp_tool"]],
            }
        },
        "createSkill",
        "skill",
    )
    world.linking["skill"] = [global_skill]
    run_a = new_id("run_")
    forged_call = new_id("tc_")
    async with session_factory() as session, session.begin():
        # Rows no API lets a tenant make, standing for a foreign key gone wrong: the guard holds anyway.
        await session.execute(
            update(AgentRow)
            .where(AgentRow.id == agent_a)
            .values(
                mounted_kb_ids=[foreign["knowledge_base"]],
                bound_skill_ids=[foreign["skill"]],
            )
        )
        session.add(
            AgentRunRow(
                id=run_a,
                agent_id=agent_a,
                space_id=space_a,
                status="SUCCEEDED",
                input="home input",
                output="home output",
                model="m",
                finished_at=utcnow(),
            )
        )
        now = utcnow()
        for call_id, agent_id, run_id in (
            (new_id("tc_"), agent_a, run_a),
            (forged_call, foreign["agent"], foreign["run"]),
        ):
            session.add(
                ToolCallRow(
                    id=call_id,
                    tool_id=foreign["tool"],
                    tool_type="CUSTOM",
                    space_id=space_a,
                    agent_id=agent_id,
                    run_id=run_id,
                    principal_key_id=None,
                    arguments={},
                    status="SUCCESS",
                    result={},
                    latency_ms=1.0,
                    attempts=1,
                    trace_id=call_id,
                    started_at=now,
                    finished_at=now,
                )
            )
    world.linking["run"] = [run_a]
    world.linking["tool_call"].append(forged_call)
    return world


# ---------------------------------------------------------------- the walk


def _unwrap(type_: Any) -> Any:
    while isinstance(type_, (GraphQLNonNull, GraphQLList)):
        type_ = type_.of_type
    return type_


# Which id a slot wants, from its name; None: any kind (node, setStatus ...).
SLOT_KINDS: dict[str, tuple[str, ...]] = {
    "spaceId": ("space",),
    "spaceIds": ("space",),
    "agentId": ("agent",),
    "runId": ("run",),
    "toolId": ("tool", "mcp_tool", "moved_tool"),
    "toolIds": ("tool", "mcp_tool"),
    "activatedToolIds": ("tool", "mcp_tool", "moved_tool"),
    "knowledgeBaseId": ("knowledge_base",),
    "knowledgeBaseIds": ("knowledge_base",),
    "mountedKnowledgeBaseIds": ("knowledge_base",),
    "skillId": ("skill",),
    "boundSkillIds": ("skill",),
}


def _is_id_slot(name: str, type_: Any) -> bool:
    named = get_named_type(type_)
    return name in SLOT_KINDS or (name == "id" and named.name == "ID") or (named.name == "ID" and name.endswith("Id"))


@dataclass
class Slot:
    path: tuple[str, ...]
    candidates: list[str]
    is_list: bool


class Walker:
    def __init__(self, schema: GraphQLSchema, world: World) -> None:
        self.schema = schema
        self.world = world
        self.guarded = {name for name in GUARDED if name in schema.type_map}

    # ---- arguments

    def candidates(self, name: str) -> list[str]:
        kinds = SLOT_KINDS.get(name)
        if kinds is None:
            kinds = tuple(self.world.foreign)
        found = [self.world.foreign[kind] for kind in kinds if kind in self.world.foreign]
        for kind in kinds:
            found.extend(self.world.linking.get(kind, []))
        if name in ("spaceId", "spaceIds"):
            found.insert(0, self.world.space_a)  # own space, foreign objects
        if kinds == tuple(self.world.foreign):
            found.extend(ids for values in self.world.linking.values() for ids in values)
        return list(dict.fromkeys(found))

    def value(self, type_: GraphQLInputType, path: tuple[str, ...], slots: list[Slot]) -> Any:
        if isinstance(type_, GraphQLNonNull):
            return self.value(type_.of_type, path, slots)
        name = path[-1]
        if _is_id_slot(name, type_):
            is_list = isinstance(type_, GraphQLList)
            slots.append(Slot(path, self.candidates(name), is_list))
            return None  # filled per variant
        if isinstance(type_, GraphQLList):
            return [self.value(type_.of_type, (*path, "0"), slots)]
        if isinstance(type_, GraphQLInputObjectType):
            built: dict[str, Any] = {}
            for field_name, input_field in type_.fields.items():
                required = isinstance(input_field.type, GraphQLNonNull) and input_field.default_value is Undefined
                if required or _is_id_slot(field_name, input_field.type):
                    built[field_name] = self.value(input_field.type, (*path, field_name), slots)
            return built
        if isinstance(type_, GraphQLEnumType):
            return next(iter(type_.values))
        assert isinstance(type_, GraphQLScalarType)
        return {
            "Int": 10 if name == "first" else 1,
            "Float": 0.5,
            "Boolean": False,
            "DateTime": "2020-01-01T00:00:00+00:00",
            "JSON": {},
        }.get(type_.name, "x")

    def variants(self, field: GraphQLField) -> Iterator[dict[str, Any]]:
        """Argument values: each id slot in turn runs through its candidates, the others at their first."""
        slots: list[Slot] = []
        base: dict[str, Any] = {}
        for name, argument in field.args.items():
            required = isinstance(argument.type, GraphQLNonNull) and argument.default_value is Undefined
            if required or _is_id_slot(name, argument.type):
                base[name] = self.value(argument.type, (name,), slots)
        seen: set[str] = set()
        for varied in range(max(len(slots), 1)):
            for candidate_index in range(len(slots[varied].candidates) if slots else 1):
                values = json.loads(json.dumps(base))
                for index, slot in enumerate(slots):
                    chosen = slot.candidates[candidate_index if index == varied else 0]
                    _set(values, slot.path, [chosen] if slot.is_list else chosen)
                key = json.dumps(values, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    yield values

    # ---- selections

    def selection(self, type_: GraphQLOutputType, levels: int, path: frozenset[str]) -> str:
        named = _unwrap(type_)
        if isinstance(named, (GraphQLScalarType, GraphQLEnumType)):
            return ""
        if isinstance(named, (GraphQLInterfaceType, GraphQLUnionType)):
            possible = self.schema.get_possible_types(named)
            parts = [f"... on {item.name} {{ {self._fields(item, levels, path)} }}" for item in possible]
            return "{ __typename " + " ".join(parts) + " }"
        return "{ " + self._fields(named, levels, path) + " }"

    def _fields(self, type_: GraphQLObjectType, levels: int, path: frozenset[str]) -> str:
        entering = type_.name in self.guarded
        here = path | {type_.name} if entering else path
        remaining = levels - 1 if entering else levels
        parts = ["__typename"]
        for name, field_def in type_.fields.items():
            if any(isinstance(argument.type, GraphQLNonNull) for argument in field_def.args.values()):
                continue  # nothing here needs one; a field that does would need values
            target = _unwrap(field_def.type)
            # Aliased by type: fragments on Node may select same-named fields of different types.
            alias = name if name == "id" else f"{type_.name}_{name}: {name}"
            if isinstance(target, (GraphQLScalarType, GraphQLEnumType)):
                parts.append(alias)
                continue
            if isinstance(target, GraphQLObjectType) and target.name in here:
                continue
            if remaining < 0 or (remaining == 0 and self._reaches_guarded(target)):
                continue
            parts.append(alias + " " + self.selection(field_def.type, remaining, here))
        return " ".join(parts)

    def _reaches_guarded(self, type_: GraphQLNamedType) -> bool:
        if isinstance(type_, (GraphQLInterfaceType, GraphQLUnionType)):
            return True
        if not isinstance(type_, GraphQLObjectType):
            return False
        if type_.name in self.guarded:
            return True
        return any(
            _unwrap(field_def.type).name in self.guarded
            or (
                isinstance(_unwrap(field_def.type), GraphQLObjectType)
                and _unwrap(field_def.type).name.endswith(("Connection", "Edge"))
            )
            for field_def in type_.fields.values()
        )

    def operations(self, root: GraphQLObjectType, keyword: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
        for name, field_def in root.fields.items():
            selection = self.selection(field_def.type, MAX_LEVELS, frozenset())
            for values in self.variants(field_def):
                declared = ", ".join(f"${arg}: {field_def.args[arg].type}" for arg in values)
                passed = ", ".join(f"{arg}: ${arg}" for arg in values)
                header = f"{keyword} Op({declared})" if declared else keyword
                call = f"{name}({passed})" if passed else name
                yield name, f"{header} {{ {call} {selection} }}", values


def _set(values: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    target: Any = values
    for part in path[:-1]:
        target = target[int(part)] if part.isdigit() else target[part]
    last = path[-1]
    if last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value


# ---------------------------------------------------------------- the scan


def foreign_sightings(world: World, data: Any, path: str = "", linked: bool = False) -> Iterator[Sighting]:
    """Every B object or marker in an answer; ``linked`` when a guarded object holds it."""
    if isinstance(data, dict):
        if data.get("id") in world.foreign_ids:
            yield Sighting(path, str(data["id"]), linked)
        holder = linked or data.get("__typename") in GUARDED
        for key, value in data.items():
            yield from foreign_sightings(world, value, f"{path}.{key}" if path else key, holder)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from foreign_sightings(world, value, f"{path}[{index}]", linked)
    elif isinstance(data, str) and MARK in data:
        yield Sighting(path, data[:80], linked)


@dataclass(frozen=True)
class Sighting:
    path: str
    what: str
    linked: bool


@dataclass
class Runner:
    schema: Any
    services: Any
    settings: Settings

    def context(self, principal: Principal) -> Context:
        services = self.services
        return Context(
            session_factory=services.session_factory,
            settings=self.settings,
            secret_box=services.secret_box,
            viewer=principal,
            gateway=services.gateway,
            knowledge=services.knowledge,
            ingestor=services.ingestor,
            runtime=services.runtime,
            pipelines=services.pipelines,
            mcp_pool=services.mcp_pool,
            bus=services.bus,
            egress=services.egress,
        )

    async def run(self, principal: Principal, query: str, values: dict[str, Any]) -> tuple[Any, list[Any]]:
        result = await self.schema.execute(query, variable_values=values, context_value=self.context(principal))
        return result.data, list(result.errors or [])


async def principal_of(session_factory: async_sessionmaker[AsyncSession], raw: str) -> Principal:
    async with session_factory() as session:
        principal = await spaces_service.authenticate(session, raw)
    assert principal is not None
    return principal


@pytest.fixture
async def matrix(
    gql: GraphQLClient, keys: Keys, session_factory: async_sessionmaker[AsyncSession], app_and_services: Any
) -> AsyncIterator[tuple[World, Runner, Walker, dict[str, Principal]]]:
    world = await build_world(gql, keys, session_factory)
    services = app_and_services.state.services
    settings = services.settings.model_copy(
        update={
            "graphql_max_depth": 100,
            "graphql_max_tokens": 1_000_000,
            "graphql_max_aliases": 1_000,
            # Every field of every type in one operation: far over the cost limit, on purpose.
            "graphql_max_cost": 10**15,
        }
    )
    schema = build_schema(settings)
    principals = {
        role.value: await principal_of(session_factory, await keys.for_space(world.space_a, role))
        for role in RESTRICTED_ROLES
    }
    principals["ADMIN"] = await principal_of(session_factory, await keys.admin())
    yield world, Runner(schema, services, settings), Walker(schema._schema, world), principals


def _describe(errors: list[Any]) -> list[str]:
    return [f"{error.message} at {error.path} {error.extensions}" for error in errors]


class TestCrossSpaceMatrix:
    async def test_no_query_or_mutation_shows_another_space_s_objects(self, matrix: Any) -> None:
        world, runner, walker, principals = matrix
        schema = walker.schema
        operations = [
            *walker.operations(schema.query_type, "query"),
            *walker.operations(schema.mutation_type, "mutation"),
        ]
        assert len({name for name, _, _ in operations}) == len(schema.query_type.fields) + len(
            schema.mutation_type.fields
        )
        leaks: list[str] = []
        for role in (role.value for role in RESTRICTED_ROLES):
            for name, query, values in operations:
                data, errors = await runner.run(principals[role], query, values)
                invalid = [error for error in errors if not error.path]
                assert not invalid, f"generated {name} is not valid: {_describe(invalid)[:3]}\n{query[:1500]}"
                internal = [error for error in errors if (error.extensions or {}).get("code") == "INTERNAL_ERROR"]
                assert not internal, f"{role} {name} {values}: {_describe(internal)}"
                leaks.extend(
                    f"{role} {name}({json.dumps(values)}): {sighting.path} -> {sighting.what}"
                    for sighting in foreign_sightings(world, data)
                )
        assert not leaks, "objects of another space reached:\n" + "\n".join(leaks[:40])

    async def test_the_walk_reaches_every_kind_of_foreign_object_through_links_as_admin(self, matrix: Any) -> None:
        world, runner, walker, principals = matrix
        schema = walker.schema
        reached: set[str] = set()
        linked: set[str] = set()
        for _, query, values in walker.operations(schema.query_type, "query"):
            data, _ = await runner.run(principals["ADMIN"], query, values)
            for sighting in foreign_sightings(world, data):
                reached.add(sighting.what)
                if sighting.linked:
                    linked.add(sighting.what)
        assert {kind for kind, object_id in world.foreign.items() if object_id not in reached} == set()
        # Calls, keys and pipelines are linked from no other object; every other kind is.
        unlinked = {kind for kind, object_id in world.foreign.items() if object_id not in linked}
        assert unlinked == {"tool_call", "api_key", "pipeline"}, f"never reached through a link: {unlinked}"
        # The defect this matrix was written for: a refused call's link to the tool.
        data, _ = await runner.run(
            principals["ADMIN"],
            "query Op($id: ID!) { node(id: $id) { ... on ToolCall { tool { id } } } }",
            {"id": world.linking["tool_call"][0]},
        )
        assert data["node"]["tool"]["id"] == world.foreign["tool"]

    async def test_subscriptions_show_no_foreign_object(self, matrix: Any, gql: GraphQLClient, keys: Keys) -> None:
        world, runner, walker, principals = matrix
        root = walker.schema.subscription_type
        member_a = gql.as_key(await keys.for_space(world.space_a, Role.MEMBER))
        invoke = """mutation I($input: InvokeToolInput!) { invokeTool(input: $input) { status } }"""
        leaks: list[str] = []
        delivered = 0
        for role in (role.value for role in RESTRICTED_ROLES):
            for name, query, values in walker.operations(root, "subscription"):
                stream = await runner.schema.subscribe(
                    query, variable_values=values, context_value=runner.context(principals[role])
                )
                if not hasattr(stream, "__anext__"):
                    errors = list(stream.errors or [])
                    assert all(error.path for error in errors), _describe(errors)
                    continue
                events: list[Any] = []

                async def read(into: list[Any], source: Any = stream) -> None:
                    async for event in source:
                        into.append(event)

                reader = asyncio.create_task(read(events))
                await asyncio.sleep(0.05)
                if name == "toolCalls":
                    # A call in B, then a call in A to B's tool: the second must arrive, the first must not.
                    await gql.execute(
                        invoke,
                        {
                            "input": {
                                "spaceId": world.space_b,
                                "toolId": "bt_calculator",
                                "arguments": {"expression": "2"},
                            }
                        },
                    )
                    await member_a.execute(
                        invoke, {"input": {"spaceId": world.space_a, "toolId": world.foreign["tool"], "arguments": {}}}
                    )
                await asyncio.sleep(QUIET_S)
                reader.cancel()
                await asyncio.gather(reader, return_exceptions=True)
                await stream.aclose()
                for event in events:
                    internal = [e for e in event.errors or [] if (e.extensions or {}).get("code") == "INTERNAL_ERROR"]
                    assert not internal, _describe(internal)
                    delivered += 1
                    leaks.extend(
                        f"{role} {name}({json.dumps(values)}): {sighting.path} -> {sighting.what}"
                        for sighting in foreign_sightings(world, event.data)
                    )
        assert delivered > 0, "no subscription delivered anything: the walk proved nothing"
        assert not leaks, "objects of another space reached:\n" + "\n".join(leaks[:40])
