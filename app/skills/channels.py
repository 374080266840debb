"""Channel moves: publish a candidate, promote it, roll production back, set the canary share.

Each move locks the skill row, moves channels with explicit UPDATEs in an order that
never holds two PRODUCTION (or two CANDIDATE) rows (a partial unique index backs this
up), keeps ``skill_definition.prompt/version`` equal to PRODUCTION, and records one
``skill_channel_event``.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import DomainError
from app.principal import Principal
from app.skills import repository
from app.skills.models import CANDIDATE, PRODUCTION, RETIRED, SkillDefinition, SkillVersion
from app.skills.service import check_prompt, new_version_number, record, require_manageable
from app.validation import check_range

SKILL_FIELD = ["input", "skillId"]


def _path(name: str) -> list[str]:
    return ["input", name]


def _in_channel(versions: list[SkillVersion], channel: str) -> SkillVersion | None:
    return next((row for row in versions if row.channel == channel), None)


def _check_canary(percent: int) -> int:
    return check_range(percent, 0, 100, _path("canaryPercent"))


async def publish_version(
    session: AsyncSession,
    principal: Principal,
    skill_id: str,
    *,
    prompt: str | None,
    version: str | None,
    canary_percent: int | None,
    default_canary_percent: int,
    prompt_limit: int,
) -> tuple[SkillDefinition, SkillVersion]:
    """Make a version the CANDIDATE: a new one from ``prompt``, or an existing retired one by ``version``.

    The previous candidate, if any, is retired. PRODUCTION is untouched.
    """
    skill = await require_manageable(session, principal, skill_id, lock=True, field=SKILL_FIELD)
    percent = _check_canary(canary_percent if canary_percent is not None else default_canary_percent)
    versions = await repository.versions_of(session, skill.skill_id)
    previous = _in_channel(versions, CANDIDATE)
    if prompt is None:
        if version is None:
            raise DomainError(
                "REQUIRED", "Give a prompt for a new version, or the version to publish.", _path("prompt")
            )
        target = next((row for row in versions if row.version == version), None)
        if target is None:
            raise DomainError("NOT_FOUND", f"Skill {skill_id!r} has no version {version!r}.", _path("version"))
        if target.channel == PRODUCTION:
            raise DomainError("CONFLICT", f"Version {version} is already in PRODUCTION.", _path("version"))
        if previous is not None and previous.version != target.version:
            await repository.set_channel(session, skill.skill_id, previous.version, RETIRED)
        await repository.set_channel(session, skill.skill_id, target.version, CANDIDATE)
        await session.refresh(target)
    else:
        text = check_prompt(prompt, prompt_limit)
        number = await new_version_number(session, skill.skill_id, version, _path("version"))
        if previous is not None:
            await repository.set_channel(session, skill.skill_id, previous.version, RETIRED)
        target = SkillVersion(
            skill_id=skill.skill_id, version=number, channel=CANDIDATE, prompt=text, created_by=principal.key_id
        )
        await repository.add_version(session, target)
    skill.canary_percent = percent
    await repository.add_event(
        session,
        record(
            skill.skill_id,
            "CANDIDATE_PUBLISHED",
            CANDIDATE,
            principal.key_id,
            from_version=previous.version if previous else None,
            to_version=target.version,
            canary_percent=percent,
        ),
    )
    await session.flush()
    return skill, target


async def promote_candidate(session: AsyncSession, principal: Principal, skill_id: str) -> SkillDefinition:
    """CANDIDATE becomes PRODUCTION; the old PRODUCTION is retired and the canary share goes back to 0."""
    skill = await require_manageable(session, principal, skill_id, lock=True, field=SKILL_FIELD)
    versions = await repository.versions_of(session, skill.skill_id)
    candidate = _in_channel(versions, CANDIDATE)
    if candidate is None:
        raise DomainError("NO_CANDIDATE", f"Skill {skill_id!r} has no CANDIDATE version to promote.", _path("skillId"))
    previous = skill.version
    await repository.retire_channel(session, skill.skill_id, PRODUCTION)
    await repository.set_channel(session, skill.skill_id, candidate.version, PRODUCTION)
    skill.prompt = candidate.prompt
    skill.version = candidate.version
    skill.canary_percent = 0
    await repository.add_event(
        session,
        record(
            skill.skill_id,
            "PROMOTED",
            PRODUCTION,
            principal.key_id,
            from_version=previous,
            to_version=candidate.version,
        ),
    )
    await session.flush()
    return skill


async def rollback(session: AsyncSession, principal: Principal, skill_id: str, version: str | None) -> SkillDefinition:
    """PRODUCTION goes back to an earlier version: the given one, or the one it replaced last.

    The current PRODUCTION is retired; a CANDIDATE, if any, stays a candidate.
    """
    skill = await require_manageable(session, principal, skill_id, lock=True, field=SKILL_FIELD)
    versions = await repository.versions_of(session, skill.skill_id)
    current = _in_channel(versions, PRODUCTION)
    if version is None:
        version = await _previous_production(session, skill.skill_id, versions, current)
        if version is None:
            raise DomainError(
                "NO_EARLIER_VERSION",
                f"Skill {skill_id!r} has no earlier PRODUCTION version to return to.",
                _path("version"),
            )
    target = next((row for row in versions if row.version == version), None)
    if target is None:
        raise DomainError("NOT_FOUND", f"Skill {skill_id!r} has no version {version!r}.", _path("version"))
    if target.channel == PRODUCTION:
        raise DomainError("CONFLICT", f"Version {version} is already in PRODUCTION.", _path("version"))
    if target.channel == CANDIDATE:
        raise DomainError(
            "CONFLICT",
            f"Version {version} is the CANDIDATE: promote it instead of rolling back to it.",
            _path("version"),
        )
    if current is not None and target.created_at > current.created_at:
        raise DomainError(
            "NOT_EARLIER",
            f"Version {version} is newer than PRODUCTION {current.version}; publish it as a candidate.",
            _path("version"),
        )
    await repository.retire_channel(session, skill.skill_id, PRODUCTION)
    await repository.set_channel(session, skill.skill_id, target.version, PRODUCTION)
    previous = skill.version
    skill.prompt = target.prompt
    skill.version = target.version
    await repository.add_event(
        session,
        record(
            skill.skill_id,
            "ROLLED_BACK",
            PRODUCTION,
            principal.key_id,
            from_version=previous,
            to_version=target.version,
        ),
    )
    await session.flush()
    return skill


async def _previous_production(
    session: AsyncSession, skill_id: str, versions: list[SkillVersion], current: SkillVersion | None
) -> str | None:
    """The latest version PRODUCTION moved away from that is older than the current one."""
    by_version = {row.version: row for row in versions}
    events = (await repository.events_by_skill_ids(session, [skill_id])).get(skill_id, [])
    for event in reversed(events):
        if event.channel != PRODUCTION or event.from_version is None:
            continue
        row = by_version.get(event.from_version)
        if row is None or row.channel != RETIRED:
            continue
        if current is None or row.created_at < current.created_at:
            return row.version
    return None


async def set_canary(session: AsyncSession, principal: Principal, skill_id: str, percent: int) -> SkillDefinition:
    """Change the share of sessions served the CANDIDATE (kept when there is none yet)."""
    skill = await require_manageable(session, principal, skill_id, lock=True, field=SKILL_FIELD)
    percent = _check_canary(percent)
    versions = await repository.versions_of(session, skill.skill_id)
    candidate = _in_channel(versions, CANDIDATE)
    previous = skill.canary_percent
    skill.canary_percent = percent
    if previous != percent:
        await repository.add_event(
            session,
            record(
                skill.skill_id,
                "CANARY_CHANGED",
                CANDIDATE,
                principal.key_id,
                from_version=candidate.version if candidate else None,
                to_version=candidate.version if candidate else None,
                canary_percent=percent,
            ),
        )
    await session.flush()
    return skill
