"""Tools, MCP servers and their space bindings."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JsonType, UtcDateTime, utcnow


class ToolDefinition(Base):
    __tablename__ = "tool_definition"

    tool_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    # The program identifier sent to the model.
    name: Mapped[str] = mapped_column(String(64), index=True)
    label: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text)
    input_schema: Mapped[dict[str, Any]] = mapped_column(JsonType)
    output_schema: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    # Platform-held argument values, merged in by the gateway and hidden from the model.
    static_arguments: Mapped[dict[str, Any]] = mapped_column(JsonType, default=dict)
    type: Mapped[str] = mapped_column(String(16))
    endpoint: Mapped[str | None] = mapped_column(Text)
    auth_type: Mapped[str] = mapped_column(String(32), default="NONE")
    # Fernet token of the JSON auth configuration (secret included); never returned.
    auth_config: Mapped[str | None] = mapped_column(Text)
    mcp_server_id: Mapped[str | None] = mapped_column(ForeignKey("mcp_server.id"), index=True)
    status: Mapped[str] = mapped_column(String(16), default="ACTIVE")
    side_effect: Mapped[str] = mapped_column(String(8), default="READ")
    # When an agent's call waits for a person: NEVER, ALWAYS, or WRITE_ONLY (when side_effect is WRITE).
    approval: Mapped[str] = mapped_column(String(16), default="NEVER")
    timeout_ms: Mapped[int] = mapped_column(Integer, default=10_000)
    max_retries: Mapped[int] = mapped_column(Integer, default=1)
    tags: Mapped[list[str]] = mapped_column(JsonType, default=list)
    group: Mapped[str | None] = mapped_column(String(100))
    allowed_roles: Mapped[list[str]] = mapped_column(JsonType, default=list)
    version: Mapped[str] = mapped_column(String(32), default="1.0.0")
    owner: Mapped[str | None] = mapped_column(String(200))
    # Quotas per space and tool; null takes the defaults from settings.
    rate_limit: Mapped[str | None] = mapped_column(String(64))
    max_concurrency: Mapped[int | None] = mapped_column(Integer)
    # Space of the SPACE_ADMIN who created it; null for platform-owned tools.
    owner_space_id: Mapped[str | None] = mapped_column(ForeignKey("space.id"), index=True)
    # When discovery last saw the description or schema change (MCP drift).
    drifted_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    # CUSTOM tools: how the arguments become a request (method, path, query, headers, body;
    # see app.gateway.executors.http). Null: POST the arguments as JSON.
    request_mapping: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    # Tools imported from a document (importOpenApi): which one ("openapi:<title>") and which
    # operation in it (operationId, else "METHOD /path"): a re-import updates them in place.
    import_source: Mapped[str | None] = mapped_column(String(200))
    import_key: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)


class ToolSpaceBinding(Base):
    """No row for a tool: visible everywhere. Rows: visible only in those spaces."""

    __tablename__ = "tool_space_binding"

    tool_id: Mapped[str] = mapped_column(ForeignKey("tool_definition.tool_id"), primary_key=True)
    space_id: Mapped[str] = mapped_column(ForeignKey("space.id"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    # The primary key serves look-ups by tool; this one serves "what is bound to space S".
    __table_args__ = (Index("ix_tool_space_binding_space_id", "space_id", "tool_id"),)


class McpServer(Base):
    __tablename__ = "mcp_server"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    transport: Mapped[str] = mapped_column(String(32))
    url: Mapped[str | None] = mapped_column(Text)
    command: Mapped[list[str] | None] = mapped_column(JsonType)
    auth_type: Mapped[str] = mapped_column(String(32), default="NONE")
    auth_config: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="ACTIVE")
    last_synced_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)


class McpServerSpaceBinding(Base):
    """The same rule as tool bindings, inherited by every tool of the server."""

    __tablename__ = "mcp_server_space_binding"

    server_id: Mapped[str] = mapped_column(ForeignKey("mcp_server.id"), primary_key=True)
    space_id: Mapped[str] = mapped_column(ForeignKey("space.id"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    __table_args__ = (Index("ix_mcp_server_space_binding_space_id", "space_id", "server_id"),)
