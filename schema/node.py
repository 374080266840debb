"""The Relay Node interface: ids are the catalog's prefixed ids."""

from __future__ import annotations

import strawberry


@strawberry.interface(description="An object with a globally unique id; fetch any of them with `node(id:)`.")
class Node:
    id: strawberry.ID = strawberry.field(
        description="Prefixed id (sp_, ag_, kb_, bt_, ct_, mcp_, sk_, sku_, doc_, run_, tc_, key_)."
    )
