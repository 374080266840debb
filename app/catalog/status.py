"""setStatus: one entry point dispatching on the id's prefix."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.agents.models import Agent
from app.agents.service import set_agent_status
from app.errors import NotFoundError
from app.mcp.service import set_server_status
from app.principal import Principal
from app.skills.models import SkillDefinition
from app.skills.service import set_skill_status
from app.tools.models import McpServer, ToolDefinition
from app.tools.service import set_tool_status
from app.validation import check_status

StatusTarget = ToolDefinition | McpServer | SkillDefinition | Agent


def kind_of(identifier: str) -> str | None:
    """Which catalog object an id names, from its prefix (docs/conventions.md, "Identifiers")."""
    if identifier.startswith("mcp_"):
        return "tool" if "__" in identifier else "mcp_server"
    if identifier.startswith(("bt_", "ct_")):
        return "tool"
    if identifier.startswith(("sk_", "sku_")):
        return "skill"
    prefixes = {
        "sp_": "space",
        "ag_": "agent",
        "kb_": "knowledge_base",
        "doc_": "document",
        "run_": "agent_run",
        "tc_": "tool_call",
        "key_": "api_key",
    }
    for prefix, kind in prefixes.items():
        if identifier.startswith(prefix):
            return kind
    return None


async def set_status(session: AsyncSession, principal: Principal, identifier: str, status: str) -> StatusTarget:
    check_status(status, ["input", "status"])
    kind = kind_of(identifier)
    if kind == "tool":
        return await set_tool_status(session, principal, identifier, status)
    if kind == "mcp_server":
        return await set_server_status(session, principal, identifier, status)
    if kind == "skill":
        return await set_skill_status(session, principal, identifier, status)
    if kind == "agent":
        return await set_agent_status(session, principal, identifier, status)
    raise NotFoundError("Tool, MCP server, skill or agent", identifier, ["input", "id"])
