"""indexes of the health report: the call log by space and day, runs by space and start

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 18:50:00

SQLite: expression indexes on the call's UTC day (``substr(started_at, 1, 10)``; SQLite
stores UTC text), in the order the report groups by, so it aggregates without sorting and
reads each day's slowest calls in order. PostgreSQL: one covering index on (space, start),
which its hash aggregates and ``percentile_cont`` read.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DAY = sa.text("substr(started_at, 1, 10)")


def upgrade() -> None:
    if op.get_context().dialect.name == "sqlite":
        op.create_index(
            "ix_tool_call_report_groups",
            "tool_call",
            ["space_id", DAY, "tool_id", "status", "error_code", "started_at"],
        )
        op.create_index(
            "ix_tool_call_report_latency", "tool_call", ["space_id", DAY, "latency_ms", "started_at", "status"]
        )
    else:
        op.create_index(
            "ix_tool_call_report",
            "tool_call",
            ["space_id", "started_at"],
            postgresql_include=["tool_id", "status", "error_code", "latency_ms"],
        )
    op.create_index("ix_agent_run_space_started", "agent_run", ["space_id", "started_at"])


def downgrade() -> None:
    op.drop_index("ix_agent_run_space_started", table_name="agent_run")
    if op.get_context().dialect.name == "sqlite":
        op.drop_index("ix_tool_call_report_latency", table_name="tool_call")
        op.drop_index("ix_tool_call_report_groups", table_name="tool_call")
    else:
        op.drop_index("ix_tool_call_report", table_name="tool_call")
