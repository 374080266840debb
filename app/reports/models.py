"""The health report's rollups: the call log and the runs aggregated per space and hour
(and per day), so that a report reads a few thousand rows whatever the size of the log.

Built by ``app.reports.rollup.catch_up`` from the raw rows of closed hours; never written
by the call path. Rows are immutable once written: an hour is rolled up once, when it is
closed (see ``app.reports.rollup``).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UtcDateTime

#: ``space_id`` of the rows that aggregate every space (read by ADMIN's every-space report only).
ALL_SPACES = "*"
#: ``grain``: an hour's rows, a UTC day's rows (the sum of its 24 hours).
HOUR = "H"
DAY = "D"


class CallRollup(Base):
    """Calls per space, period, tool, status and error code ('' for none); calls waiting for approval left out."""

    __tablename__ = "report_call_rollup"
    # A day is summed from its hours, of every space at once.
    __table_args__ = (Index("ix_report_call_rollup_period", "grain", "period_start"),)

    space_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    grain: Mapped[str] = mapped_column(String(1), primary_key=True)
    period_start: Mapped[datetime] = mapped_column(UtcDateTime, primary_key=True)
    tool_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), primary_key=True)
    error_code: Mapped[str] = mapped_column(String(64), primary_key=True)
    calls: Mapped[int] = mapped_column(Integer)


class LatencyRollup(Base):
    """Calls per space, period and latency bucket (``app.reports.rollup.bucket_of``): the p95's histogram."""

    __tablename__ = "report_latency_rollup"
    # A day is summed from its hours, of every space at once.
    __table_args__ = (Index("ix_report_latency_rollup_period", "grain", "period_start"),)

    space_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    grain: Mapped[str] = mapped_column(String(1), primary_key=True)
    period_start: Mapped[datetime] = mapped_column(UtcDateTime, primary_key=True)
    bucket: Mapped[int] = mapped_column(Integer, primary_key=True)
    calls: Mapped[int] = mapped_column(Integer)


class RunRollup(Base):
    """Runs started per space and period, per skill version served and status. The row
    with ``skill_id`` '' counts every run (with or without skills); channel '' is none."""

    __tablename__ = "report_run_rollup"
    # A day is summed from its hours, of every space at once.
    __table_args__ = (Index("ix_report_run_rollup_period", "grain", "period_start"),)

    space_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    grain: Mapped[str] = mapped_column(String(1), primary_key=True)
    period_start: Mapped[datetime] = mapped_column(UtcDateTime, primary_key=True)
    skill_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    version: Mapped[str] = mapped_column(String(200), primary_key=True)
    channel: Mapped[str] = mapped_column(String(32), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), primary_key=True)
    runs: Mapped[int] = mapped_column(Integer)


class RollupState(Base):
    """One row (id 1): every hour before ``frontier`` is rolled up, except the open ones."""

    __tablename__ = "report_rollup_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    frontier: Mapped[datetime | None] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class OpenHour(Base):
    """An hour before the frontier not rolled up yet: a run started in it had not finished.
    Reports read it from the raw rows; each catch-up tries it again."""

    __tablename__ = "report_rollup_open_hour"

    hour_start: Mapped[datetime] = mapped_column(UtcDateTime, primary_key=True)
