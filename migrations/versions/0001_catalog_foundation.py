"""catalog foundation

Revision ID: 0001
Revises:
Create Date: 2026-11-29 18:57:41.885642
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import app.db

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mcp_server",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("transport", sa.String(length=32), nullable=False),
        sa.Column("url", sa.Text(), nullable=True),
        sa.Column(
            "command", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=True
        ),
        sa.Column("auth_type", sa.String(length=32), nullable=False),
        sa.Column("auth_config", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("last_synced_at", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mcp_server")),
        sa.UniqueConstraint("name", name=op.f("uq_mcp_server_name")),
    )
    op.create_table(
        "space",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("is_system", sa.Boolean(), nullable=False),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_space")),
        sa.UniqueConstraint("name", name=op.f("uq_space_name")),
    )
    op.create_table(
        "agent",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("system_prompt", sa.Text(), nullable=False),
        sa.Column("max_steps", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column(
            "mounted_kb_ids",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "activated_tool_ids",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "bound_skill_ids",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["space_id"], ["space.id"], name=op.f("fk_agent_space_id_space")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent")),
    )
    with op.batch_alter_table("agent", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_space_id"), ["space_id"], unique=False)

    op.create_table(
        "api_key",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("space_id", sa.String(length=64), nullable=True),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=True),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["space_id"], ["space.id"], name=op.f("fk_api_key_space_id_space")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_key")),
        sa.UniqueConstraint("key_hash", name=op.f("uq_api_key_key_hash")),
    )
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_api_key_space_id"), ["space_id"], unique=False)

    op.create_table(
        "knowledge_base",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["space_id"], ["space.id"], name=op.f("fk_knowledge_base_space_id_space")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_knowledge_base")),
        sa.UniqueConstraint("space_id", "name", name="uq_knowledge_base_space_name"),
    )
    with op.batch_alter_table("knowledge_base", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_knowledge_base_space_id"), ["space_id"], unique=False)

    op.create_table(
        "mcp_server_space_binding",
        sa.Column("server_id", sa.String(length=64), nullable=False),
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["server_id"], ["mcp_server.id"], name=op.f("fk_mcp_server_space_binding_server_id_mcp_server")
        ),
        sa.ForeignKeyConstraint(["space_id"], ["space.id"], name=op.f("fk_mcp_server_space_binding_space_id_space")),
        sa.PrimaryKeyConstraint("server_id", "space_id", name=op.f("pk_mcp_server_space_binding")),
    )
    with op.batch_alter_table("mcp_server_space_binding", schema=None) as batch_op:
        batch_op.create_index("ix_mcp_server_space_binding_space_id", ["space_id", "server_id"], unique=False)

    op.create_table(
        "skill_definition",
        sa.Column("skill_id", sa.String(length=64), nullable=False),
        sa.Column("space_id", sa.String(length=64), nullable=True),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("category", sa.String(length=100), nullable=True),
        sa.Column(
            "tags", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=False
        ),
        sa.Column(
            "trigger_hints",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("boundary", sa.Text(), nullable=True),
        sa.Column(
            "tools", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=False
        ),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("version", sa.String(length=32), nullable=False),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["space_id"], ["space.id"], name=op.f("fk_skill_definition_space_id_space")),
        sa.PrimaryKeyConstraint("skill_id", name=op.f("pk_skill_definition")),
    )
    with op.batch_alter_table("skill_definition", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_skill_definition_name"), ["name"], unique=False)
        batch_op.create_index(batch_op.f("ix_skill_definition_space_id"), ["space_id"], unique=False)

    op.create_table(
        "tool_definition",
        sa.Column("tool_id", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("label", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column(
            "input_schema",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "output_schema",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column(
            "static_arguments",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("endpoint", sa.Text(), nullable=True),
        sa.Column("auth_type", sa.String(length=32), nullable=False),
        sa.Column("auth_config", sa.Text(), nullable=True),
        sa.Column("mcp_server_id", sa.String(length=64), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("side_effect", sa.String(length=8), nullable=False),
        sa.Column("timeout_ms", sa.Integer(), nullable=False),
        sa.Column("max_retries", sa.Integer(), nullable=False),
        sa.Column(
            "tags", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"), nullable=False
        ),
        sa.Column("group", sa.String(length=100), nullable=True),
        sa.Column(
            "allowed_roles",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("version", sa.String(length=32), nullable=False),
        sa.Column("owner", sa.String(length=200), nullable=True),
        sa.Column("owner_space_id", sa.String(length=64), nullable=True),
        sa.Column("drifted_at", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["mcp_server_id"], ["mcp_server.id"], name=op.f("fk_tool_definition_mcp_server_id_mcp_server")
        ),
        sa.ForeignKeyConstraint(["owner_space_id"], ["space.id"], name=op.f("fk_tool_definition_owner_space_id_space")),
        sa.PrimaryKeyConstraint("tool_id", name=op.f("pk_tool_definition")),
    )
    with op.batch_alter_table("tool_definition", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_tool_definition_mcp_server_id"), ["mcp_server_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_tool_definition_name"), ["name"], unique=False)
        batch_op.create_index(batch_op.f("ix_tool_definition_owner_space_id"), ["owner_space_id"], unique=False)

    op.create_table(
        "document",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("knowledge_base_id", sa.String(length=64), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("source", sa.Text(), nullable=True),
        sa.Column("content_hash", sa.String(length=64), nullable=True),
        sa.Column("chunk_count", sa.Integer(), nullable=False),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["knowledge_base_id"], ["knowledge_base.id"], name=op.f("fk_document_knowledge_base_id_knowledge_base")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_document")),
    )
    with op.batch_alter_table("document", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_document_knowledge_base_id"), ["knowledge_base_id"], unique=False)

    op.create_table(
        "skill_version",
        sa.Column("skill_id", sa.String(length=64), nullable=False),
        sa.Column("version", sa.String(length=32), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=64), nullable=True),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["skill_id"], ["skill_definition.skill_id"], name=op.f("fk_skill_version_skill_id_skill_definition")
        ),
        sa.PrimaryKeyConstraint("skill_id", "version", name=op.f("pk_skill_version")),
    )
    op.create_table(
        "tool_space_binding",
        sa.Column("tool_id", sa.String(length=200), nullable=False),
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["space_id"], ["space.id"], name=op.f("fk_tool_space_binding_space_id_space")),
        sa.ForeignKeyConstraint(
            ["tool_id"], ["tool_definition.tool_id"], name=op.f("fk_tool_space_binding_tool_id_tool_definition")
        ),
        sa.PrimaryKeyConstraint("tool_id", "space_id", name=op.f("pk_tool_space_binding")),
    )
    with op.batch_alter_table("tool_space_binding", schema=None) as batch_op:
        batch_op.create_index("ix_tool_space_binding_space_id", ["space_id", "tool_id"], unique=False)
    space = sa.table(
        "space",
        sa.column("id", sa.String),
        sa.column("name", sa.String),
        sa.column("label", sa.String),
        sa.column("is_system", sa.Boolean),
        sa.column("created_at", app.db.UtcDateTime()),
    )
    # The one system space: restricted builtins live here until an admin assigns them.
    op.bulk_insert(
        space,
        [
            {
                "id": "sp_system",
                "name": "system",
                "label": "System",
                "is_system": True,
                "created_at": datetime.now(UTC),
            }
        ],
    )


def downgrade() -> None:
    with op.batch_alter_table("tool_space_binding", schema=None) as batch_op:
        batch_op.drop_index("ix_tool_space_binding_space_id")

    op.drop_table("tool_space_binding")
    op.drop_table("skill_version")
    with op.batch_alter_table("document", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_document_knowledge_base_id"))

    op.drop_table("document")
    with op.batch_alter_table("tool_definition", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tool_definition_owner_space_id"))
        batch_op.drop_index(batch_op.f("ix_tool_definition_name"))
        batch_op.drop_index(batch_op.f("ix_tool_definition_mcp_server_id"))

    op.drop_table("tool_definition")
    with op.batch_alter_table("skill_definition", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_skill_definition_space_id"))
        batch_op.drop_index(batch_op.f("ix_skill_definition_name"))

    op.drop_table("skill_definition")
    with op.batch_alter_table("mcp_server_space_binding", schema=None) as batch_op:
        batch_op.drop_index("ix_mcp_server_space_binding_space_id")

    op.drop_table("mcp_server_space_binding")
    with op.batch_alter_table("knowledge_base", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_knowledge_base_space_id"))

    op.drop_table("knowledge_base")
    with op.batch_alter_table("api_key", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_api_key_space_id"))

    op.drop_table("api_key")
    with op.batch_alter_table("agent", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agent_space_id"))

    op.drop_table("agent")
    op.drop_table("space")
    op.drop_table("mcp_server")
