"""rollups of the health report: calls, latency histogram and runs per space and hour (and day)

Revision ID: 0013
Revises: 0011
Create Date: 2026-12-01 22:10:00

With an index on the start of calls and of runs, which the catch-up reads by hour across
spaces, and one on (grain, period) per rollup table. The tables start empty; existing rows
are rolled up by the first catch-up (``app.reports.rollup.catch_up``: the server's, every
minute, or ``quiver report``'s), a day per transaction. Until then a report reads the raw
rows, as before: it is correct either way.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import app.db

revision: str = "0013"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _period() -> list[sa.Column[object]]:
    return [
        sa.Column("space_id", sa.String(length=64), nullable=False),
        sa.Column("grain", sa.String(length=1), nullable=False),
        sa.Column("period_start", app.db.UtcDateTime(timezone=True), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "report_call_rollup",
        *_period(),
        sa.Column("tool_id", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error_code", sa.String(length=64), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "space_id", "grain", "period_start", "tool_id", "status", "error_code", name=op.f("pk_report_call_rollup")
        ),
    )
    op.create_table(
        "report_latency_rollup",
        *_period(),
        sa.Column("bucket", sa.Integer(), nullable=False),
        sa.Column("calls", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("space_id", "grain", "period_start", "bucket", name=op.f("pk_report_latency_rollup")),
    )
    op.create_table(
        "report_run_rollup",
        *_period(),
        sa.Column("skill_id", sa.String(length=200), nullable=False),
        sa.Column("version", sa.String(length=200), nullable=False),
        sa.Column("channel", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("runs", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint(
            "space_id",
            "grain",
            "period_start",
            "skill_id",
            "version",
            "channel",
            "status",
            name=op.f("pk_report_run_rollup"),
        ),
    )
    for table in ("report_call_rollup", "report_latency_rollup", "report_run_rollup"):
        op.create_index(f"ix_{table}_period", table, ["grain", "period_start"])
    # The catch-up reads closed hours of every space.
    op.create_index("ix_tool_call_started_at", "tool_call", ["started_at"])
    op.create_index("ix_agent_run_started_at", "agent_run", ["started_at"])
    op.create_table(
        "report_rollup_state",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("frontier", app.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("updated_at", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_report_rollup_state")),
    )
    op.create_table(
        "report_rollup_open_hour",
        sa.Column("hour_start", app.db.UtcDateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("hour_start", name=op.f("pk_report_rollup_open_hour")),
    )


def downgrade() -> None:
    op.drop_index("ix_agent_run_started_at", table_name="agent_run")
    op.drop_index("ix_tool_call_started_at", table_name="tool_call")
    op.drop_table("report_rollup_open_hour")
    op.drop_table("report_rollup_state")
    op.drop_table("report_run_rollup")
    op.drop_table("report_latency_rollup")
    op.drop_table("report_call_rollup")
