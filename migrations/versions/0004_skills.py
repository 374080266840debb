"""skills: channel history, canary share, usage counters, SKILL.md extras

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29 19:45:00.000000

Adds ``skill_definition.canary_percent`` and ``skill_md_extra``, the
``skill_channel_event`` history, the ``skill_usage`` counters (per skill, version and
UTC day) and a partial unique index keeping one PRODUCTION and at most one CANDIDATE
version per skill. Existing skills get a CREATED event for their PRODUCTION version,
so every skill's history starts somewhere.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import app.db

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIVE_CHANNELS = "channel IN ('PRODUCTION', 'CANDIDATE')"


def upgrade() -> None:
    # Plain ALTER TABLE, not batch mode: SQLite adds columns in place, while a batch
    # "recreate" would DROP skill_definition, which skill_version's foreign key forbids
    # as soon as a skill exists.
    op.add_column(
        "skill_definition", sa.Column("canary_percent", sa.Integer(), server_default=sa.text("0"), nullable=False)
    )
    op.add_column(
        "skill_definition",
        sa.Column(
            "skill_md_extra",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
    )
    op.create_index(
        "uq_skill_version_live_channel",
        "skill_version",
        ["skill_id", "channel"],
        unique=True,
        sqlite_where=sa.text(LIVE_CHANNELS),
        postgresql_where=sa.text(LIVE_CHANNELS),
    )

    op.create_table(
        "skill_channel_event",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("skill_id", sa.String(length=64), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("from_version", sa.String(length=32), nullable=True),
        sa.Column("to_version", sa.String(length=32), nullable=True),
        sa.Column("canary_percent", sa.Integer(), nullable=True),
        sa.Column("actor", sa.String(length=64), nullable=True),
        sa.Column("created_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["skill_id"], ["skill_definition.skill_id"], name=op.f("fk_skill_channel_event_skill_id_skill_definition")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_skill_channel_event")),
    )
    with op.batch_alter_table("skill_channel_event", schema=None) as batch_op:
        batch_op.create_index("ix_skill_channel_event_skill_id", ["skill_id", "id"], unique=False)

    op.create_table(
        "skill_usage",
        sa.Column("skill_id", sa.String(length=64), nullable=False),
        sa.Column("version", sa.String(length=32), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("injected_count", sa.Integer(), nullable=False),
        sa.Column("matched_count", sa.Integer(), nullable=False),
        sa.Column("last_injected_at", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("last_matched_at", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["skill_id"], ["skill_definition.skill_id"], name=op.f("fk_skill_usage_skill_id_skill_definition")
        ),
        sa.PrimaryKeyConstraint("skill_id", "version", "day", name=op.f("pk_skill_usage")),
    )
    with op.batch_alter_table("skill_usage", schema=None) as batch_op:
        batch_op.create_index("ix_skill_usage_day", ["day"], unique=False)

    # Every existing skill's history starts with its PRODUCTION version. The ids sort
    # before any app.ids.new_id id ("skc_0000…" < "skc_01…"), so these come first.
    op.execute(
        "INSERT INTO skill_channel_event (id, skill_id, action, channel, to_version, actor, created_at) "
        "SELECT 'skc_000000000000' || substr(skill_id, 1, 48), skill_id, 'CREATED', 'PRODUCTION', "
        "version, created_by, created_at FROM skill_version WHERE channel = 'PRODUCTION'"
    )


def downgrade() -> None:
    with op.batch_alter_table("skill_usage", schema=None) as batch_op:
        batch_op.drop_index("ix_skill_usage_day")

    op.drop_table("skill_usage")
    with op.batch_alter_table("skill_channel_event", schema=None) as batch_op:
        batch_op.drop_index("ix_skill_channel_event_skill_id")

    op.drop_table("skill_channel_event")
    op.drop_index("uq_skill_version_live_channel", table_name="skill_version")
    # ALTER TABLE … DROP COLUMN in place (SQLite 3.35+), for the same reason as above.
    op.drop_column("skill_definition", "skill_md_extra")
    op.drop_column("skill_definition", "canary_percent")
