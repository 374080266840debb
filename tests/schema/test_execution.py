"""The shortened field execution (schema/execution.py) answers exactly what graphql-core's own does."""

from __future__ import annotations

import enum
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import strawberry
from strawberry.extensions import ParserCache, SchemaExtension
from strawberry.scalars import JSON
from strawberry.types import ExecutionResult

from schema import execution
from schema.execution import FastExecutionContext, precompute


@strawberry.enum(description="A colour.")
class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@strawberry.type(description="A child.")
class Child:
    id: strawberry.ID
    name: str


@strawberry.interface(description="Something with a name.")
class Named:
    name: str


@strawberry.type(description="An object type with an interface (Strawberry checks its values' type).")
class Pet(Named):
    id: strawberry.ID


@strawberry.type(description="Another type of the interface.")
class Toy(Named):
    id: strawberry.ID


class SubPet(Pet):
    """A plain Python subclass: Strawberry's check (an isinstance) takes it as a Pet."""


CALLS: list[str] = []


@strawberry.type(description="Every kind of field the shortcuts handle, and some they do not.")
class Item:
    id: strawberry.ID
    name: str
    count: int
    ratio: float
    flag: bool
    colour: Colour
    tags: list[str]
    colours: list[Colour]
    maybe: str | None
    payload: JSON
    when: datetime
    must: str  # set to None in some tests: a non-null field with a null value
    child: Child
    maybe_child: Child | None
    kids: list[Child]
    maybe_kids: list[Child | None] | None
    pets: list[Pet] = strawberry.field(default_factory=list)

    @strawberry.field
    def shouted(self) -> str:
        CALLS.append("shouted")
        return self.name.upper()

    @strawberry.field
    async def children(self) -> list[Child]:
        CALLS.append("children")
        return [Child(id=strawberry.ID(f"{self.id}-c{number}"), name=f"child {number}") for number in range(2)]

    @strawberry.field
    async def best(self) -> Child | None:
        CALLS.append("best")
        return Child(id=strawberry.ID(f"{self.id}-best"), name="best")

    @strawberry.field
    def echo(self, text: str) -> str:
        return text


def make_item(number: int, **overrides: Any) -> Item:
    values: dict[str, Any] = {
        "id": strawberry.ID(f"it_{number}"),
        "name": f"item {number}",
        "count": number,
        "ratio": number / 3,
        "flag": number % 2 == 0,
        "colour": Colour.RED if number % 2 else Colour.BLUE,
        "tags": ["a", f"t{number}"],
        "colours": [Colour.RED, Colour.BLUE],
        "maybe": None if number % 2 else "present",
        "payload": JSON({"number": number, "nested": [1, 2.5, None, "x"], "big": 10**30}),
        "when": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        "must": "here",
        "child": Child(id=strawberry.ID(f"c{number}"), name=f"child of {number}"),
        "maybe_child": None if number % 2 else Child(id=strawberry.ID(f"m{number}"), name="maybe"),
        "kids": [Child(id=strawberry.ID(f"k{number}-{kid}"), name=f"kid {kid}") for kid in range(3)],
        "maybe_kids": None if number % 3 == 0 else [Child(id=strawberry.ID("mk"), name="mk"), None],
    }
    values.update(overrides)
    return Item(**values)


ITEMS: list[Item] = []


@strawberry.type
class Query:
    @strawberry.field
    def items(self) -> list[Item]:
        return ITEMS


class ResolveMiddleware(SchemaExtension):
    def resolve(self, _next: Any, root: Any, info: Any, *args: Any, **kwargs: Any) -> Any:
        return _next(root, info, *args, **kwargs)


FAST = strawberry.Schema(query=Query, execution_context_class=FastExecutionContext)
PLAIN = strawberry.Schema(query=Query)
FAST_WITH_MIDDLEWARE = strawberry.Schema(
    query=Query, execution_context_class=FastExecutionContext, extensions=[ResolveMiddleware]
)

EVERYTHING = """
{ items { id name count ratio flag colour tags colours maybe payload when must shouted
          again: name children { id name } echo(text: "hi")
          child { id name } maybeChild { id name } kids { id name } maybeKids { id name }
          kidNames: kids { name } best { id name } } }
"""


async def both(query: str, items: list[Item]) -> tuple[ExecutionResult, ExecutionResult]:
    ITEMS[:] = items
    return await FAST.execute(query), await PLAIN.execute(query)


def as_comparable(result: ExecutionResult) -> tuple[Any, list[tuple[str, Any]]]:
    errors = [(error.message, error.path) for error in result.errors or []]
    return result.data, sorted(errors, key=str)


async def test_every_field_kind_answers_as_the_ordinary_path() -> None:
    fast, plain = await both(EVERYTHING, [make_item(number) for number in range(5)])
    assert fast.errors is None
    assert as_comparable(fast) == as_comparable(plain)
    assert fast.data is not None
    first = fast.data["items"][0]
    assert list(first) == [
        "id",
        "name",
        "count",
        "ratio",
        "flag",
        "colour",
        "tags",
        "colours",
        "maybe",
        "payload",
        "when",
        "must",
        "shouted",
        "again",
        "children",
        "echo",
        "child",
        "maybeChild",
        "kids",
        "maybeKids",
        "kidNames",
        "best",
    ]
    assert first["colour"] == "BLUE" and first["payload"]["big"] == 10**30
    assert first["kids"][2] == {"id": "k0-2", "name": "kid 2"} and first["kidNames"][1] == {"name": "kid 1"}
    assert fast.data["items"][1]["maybeChild"] is None and first["maybeKids"] is None


async def test_values_that_do_not_complete_raise_the_same_errors() -> None:
    bad = [
        make_item(1, must=None),  # null in a non-null field
        make_item(2, count=2**40),  # beyond GraphQL's 32-bit Int
        make_item(3, tags=["ok", None]),  # null item in [String!]!
        make_item(4, colour="not a colour"),
        make_item(5),
        make_item(7, child=None),  # null in a non-null object field
        make_item(8, kids=[Child(id=strawberry.ID("k"), name="k"), None]),  # null item in [Child!]!
        make_item(9, kids=["not a child"]),  # a value of another type
        make_item(10, child=Child(id=strawberry.ID("c"), name=None)),  # type: ignore[arg-type]  # null deep inside
        make_item(11, maybe_child=Child(id=strawberry.ID("c"), name=None)),  # type: ignore[arg-type]  # nulls maybeChild
        make_item(12, maybe_kids=[Child(id=strawberry.ID("c"), name=None), None]),  # type: ignore[arg-type]
        make_item(13, maybe_child="not a child"),
    ]
    for item in bad:
        fast, plain = await both(EVERYTHING, [item, make_item(6)])
        assert as_comparable(fast) == as_comparable(plain)
    fast, _ = await both(EVERYTHING, bad[:5])
    assert fast.errors and len(fast.errors) == 1  # the first error nulls the whole non-null list
    fast, plain = await both(EVERYTHING, [make_item(11, maybe_child=Child(id=strawberry.ID("c"), name=None))])  # type: ignore[arg-type]
    assert as_comparable(fast) == as_comparable(plain)
    assert fast.data is not None and fast.data["items"][0]["maybeChild"] is None
    assert [error.path for error in fast.errors or []] == [["items", 0, "maybeChild", "name"]]


async def test_a_precomputed_value_replaces_the_resolver() -> None:
    items = [make_item(number) for number in range(3)]
    for item in items:
        precompute(item, "shouted", f"PRE {item.name}")
        precompute(item, "children", [Child(id=strawberry.ID("pre"), name="precomputed")])
        precompute(item, "best", None)
    CALLS.clear()
    ITEMS[:] = items
    fast = await FAST.execute(EVERYTHING)
    assert fast.errors is None and fast.data is not None
    assert CALLS == []
    assert fast.data["items"][1]["shouted"] == "PRE item 1"
    assert fast.data["items"][1]["children"] == [{"id": "pre", "name": "precomputed"}]
    assert fast.data["items"][1]["best"] is None
    # The ordinary path ignores what was precomputed: it always asks the resolver.
    plain = await PLAIN.execute(EVERYTHING)
    assert plain.data is not None and plain.data["items"][1]["shouted"] == "ITEM 1"
    assert "shouted" in CALLS


async def test_field_middleware_turns_every_shortcut_off() -> None:
    items = [make_item(number) for number in range(2)]
    for item in items:
        precompute(item, "shouted", "PRE")
    ITEMS[:] = items
    CALLS.clear()
    result = await FAST_WITH_MIDDLEWARE.execute(EVERYTHING)
    assert result.errors is None and result.data is not None
    assert result.data["items"][0]["shouted"] == "ITEM 0"
    assert CALLS.count("shouted") == 2


#: Only fields the compiled selections handle (schema/execution.py): read or precomputed leaves,
#: objects and short lists of them, __typename; the whole item is completed at once.
COMPILABLE = """
{ items { __typename id name count ratio flag colour tags colours maybe payload when must shouted
          again: name children { __typename id name } child { id name } maybeChild { id name }
          kids { id name } maybeKids { id name } kidNames: kids { name } best { id name } } }
"""


def precomputed_items(items: list[Item]) -> list[Item]:
    for item in items:
        precompute(item, "shouted", item.name.upper())
        precompute(item, "children", [Child(id=strawberry.ID(f"{item.id}-c{n}"), name=f"child {n}") for n in range(2)])
        precompute(item, "best", Child(id=strawberry.ID(f"{item.id}-best"), name="best"))
    return items


class CountingContext(FastExecutionContext):
    """Counts the fields that went through graphql-core's per-field execution."""

    executed: list[str] = []

    def execute_field(self, parent_type: Any, *args: Any, **kwargs: Any) -> Any:
        CountingContext.executed.append(parent_type.name)
        return super().execute_field(parent_type, *args, **kwargs)


COUNTING = strawberry.Schema(query=Query, execution_context_class=CountingContext)


async def test_a_compiled_selection_answers_as_the_ordinary_path() -> None:
    ITEMS[:] = precomputed_items([make_item(number) for number in range(6)])
    CountingContext.executed.clear()
    CALLS.clear()
    fast = await COUNTING.execute(COMPILABLE)
    plain = await PLAIN.execute(COMPILABLE)
    assert fast.errors is None
    assert as_comparable(fast) == as_comparable(plain)
    assert CountingContext.executed == ["Query"]  # every item, and what it holds, compiled
    assert sorted(CALLS) == sorted(["shouted", "children", "best"] * 6)  # the ordinary path's resolvers only
    assert fast.data is not None and fast.data["items"][0]["__typename"] == "Item"
    assert fast.data["items"][0]["children"][1] == {"__typename": "Child", "id": "it_0-c1", "name": "child 1"}


async def test_values_a_compiled_selection_cannot_complete_take_the_ordinary_path() -> None:
    bad = [
        make_item(1, must=None),
        make_item(2, count=2**40),
        make_item(3, tags=["ok", None]),
        make_item(4, colour="not a colour"),
        make_item(7, child=None),
        make_item(8, kids=[Child(id=strawberry.ID("k"), name="k"), None]),
        make_item(9, kids=["not a child"]),
        make_item(10, child=Child(id=strawberry.ID("c"), name=None)),  # type: ignore[arg-type]
        make_item(11, maybe_child=Child(id=strawberry.ID("c"), name=None)),  # type: ignore[arg-type]
        make_item(12, maybe_kids=[Child(id=strawberry.ID("c"), name=None), None]),  # type: ignore[arg-type]
        make_item(13, maybe_child="not a child"),
        make_item(14, kids=[Child(id=strawberry.ID(f"k{n}"), name=f"kid {n}") for n in range(40)]),  # a long list
        # The inline checks of Int, DateTime and JSON (schema.execution._exact_type) against the
        # completer's answers: an Int at and beyond its edges, a bool or a float as an Int, a time
        # that is not a datetime, naive or in another zone, JSON null where none may be, falsy JSON.
        make_item(15, count=2**31 - 1),
        make_item(16, count=-(2**31)),
        make_item(17, count=2**31),
        make_item(18, count=True),
        make_item(19, count=3.0),
        make_item(20, count=3.5),
        make_item(21, when="2026-01-02"),
        make_item(22, when=datetime(2026, 1, 2, 3, 4, 5)),
        make_item(23, when=datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=timezone(timedelta(hours=-3)))),
        make_item(24, when=date(2026, 1, 2)),
        make_item(25, payload=None),
        make_item(26, payload=JSON(False)),
        make_item(27, payload=JSON(0)),
        make_item(28, payload=JSON("")),
        make_item(29, payload=JSON([])),
        # Lists of leaves taken in one pass when every item has its usual type (str, an enum member):
        # anything else item by item, as graphql-core does.
        make_item(30, tags=["ok", 5]),
        make_item(31, tags=("a", "b")),
        make_item(32, tags=[]),
        make_item(33, tags=["a", True]),
        make_item(34, colours=[Colour.RED, "red"]),
        make_item(35, colours=[Colour.BLUE, None]),
        make_item(36, colours=[]),
        make_item(37, colours=[Colour.BLUE, "BLUE"]),
    ]
    for item in bad:
        precomputed_items([item])
        for query in (COMPILABLE, EVERYTHING):
            ITEMS[:] = [item, *precomputed_items([make_item(6)])]
            fast, plain = await FAST.execute(query), await PLAIN.execute(query)
            assert as_comparable(fast) == as_comparable(plain), (item.id, query)
    ITEMS[:] = precomputed_items([make_item(11, maybe_child=Child(id=strawberry.ID("c"), name=None))])  # type: ignore[arg-type]
    fast = await FAST.execute(COMPILABLE)
    assert fast.data is not None and fast.data["items"][0]["maybeChild"] is None
    assert [error.path for error in fast.errors or []] == [["items", 0, "maybeChild", "name"]]


async def test_a_missing_precomputed_value_calls_the_resolver() -> None:
    items = precomputed_items([make_item(number) for number in range(3)])
    del vars(items[1])["best"]
    ITEMS[:] = items
    CALLS.clear()
    fast = await FAST.execute(COMPILABLE)
    assert fast.errors is None and fast.data is not None
    assert CALLS == ["best"]
    assert fast.data["items"][1]["best"] == {"id": "it_1-best", "name": "best"}


FAST_PARSED_ONCE = strawberry.Schema(
    query=Query, execution_context_class=FastExecutionContext, extensions=[lambda: ParserCache(maxsize=16)]
)
WITH_DIRECTIVE = """
query Items($with: Boolean!) { items { id name child { id name @include(if: $with) } kids { id } } }
"""


async def test_requests_of_one_document_share_its_compiled_selections() -> None:
    """A document parsed once (the parser cache) is compiled once; each request still answers
    from its own objects."""
    execution._SHARED_COMPILED.clear()
    for numbers in (range(3), range(5, 9)):
        ITEMS[:] = precomputed_items([make_item(number) for number in numbers])
        fast, plain = await FAST_PARSED_ONCE.execute(COMPILABLE), await PLAIN.execute(COMPILABLE)
        assert fast.errors is None and as_comparable(fast) == as_comparable(plain)
        shared = len(execution._SHARED_COMPILED)
        assert shared >= 2  # Item and Child, at least
    assert len(execution._SHARED_COMPILED) == shared  # the second request compiled nothing new
    ITEMS[:] = precomputed_items([make_item(1, must=None), make_item(2)])  # a value only the slow path completes
    fast, plain = await FAST_PARSED_ONCE.execute(COMPILABLE), await PLAIN.execute(COMPILABLE)
    assert fast.errors and as_comparable(fast) == as_comparable(plain)


async def test_a_document_whose_selections_depend_on_variables_is_not_shared() -> None:
    execution._SHARED_COMPILED.clear()
    ITEMS[:] = [make_item(number) for number in range(3)]
    for include in (True, False, True):
        variables = {"with": include}
        fast = await FAST_PARSED_ONCE.execute(WITH_DIRECTIVE, variable_values=variables)
        plain = await PLAIN.execute(WITH_DIRECTIVE, variable_values=variables)
        assert fast.errors is None and as_comparable(fast) == as_comparable(plain)
        assert fast.data is not None and ("name" in fast.data["items"][0]["child"]) is include
    assert execution._SHARED_COMPILED == {}


PETS = """{ items { id pets { __typename id name } } }"""


async def test_values_of_a_type_with_an_interface_are_checked_as_strawberry_checks_them() -> None:
    """Strawberry checks the type of an interface implementation's values (``isinstance``, or the
    type an object was cast to with ``strawberry.cast``); the compiled selection takes an instance
    of exactly the class, not cast, without the check, and asks the check for anything else: the
    answers and errors are graphql-core's."""
    cases = [
        [Pet(id=strawberry.ID("p1"), name="rex"), Pet(id=strawberry.ID("p2"), name="tom")],
        [SubPet(id=strawberry.ID("p3"), name="sub")],
        [strawberry.cast(Pet, Pet(id=strawberry.ID("p4"), name="cast as itself"))],
        [strawberry.cast(Toy, Pet(id=strawberry.ID("p5"), name="cast as a toy"))],
        [Toy(id=strawberry.ID("t1"), name="a toy")],
    ]
    for pets in cases:
        ITEMS[:] = precomputed_items([make_item(1, pets=pets), make_item(2)])
        fast, plain = await FAST.execute(PETS), await PLAIN.execute(PETS)
        assert as_comparable(fast) == as_comparable(plain), pets
    ITEMS[:] = precomputed_items([make_item(1, pets=cases[0]), make_item(2)])
    CountingContext.executed.clear()
    fast = await COUNTING.execute(PETS)
    assert fast.errors is None and fast.data is not None
    assert fast.data["items"][0]["pets"][1] == {"__typename": "Pet", "id": "p2", "name": "tom"}
    assert CountingContext.executed == ["Query"]  # the pets compiled, without graphql-core's steps
    ITEMS[:] = precomputed_items([make_item(1, pets=cases[3])])
    fast = await FAST.execute(PETS)
    assert fast.data is None and fast.errors  # a cast to another type is refused, as graphql-core refuses it
