"""Settings, read from the environment (prefix ``QUIVER_``)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url


class Settings(BaseSettings):
    """Every knob of the service. Defaults give the embedded SQLite setup."""

    model_config = SettingsConfigDict(env_prefix="QUIVER_", extra="ignore")

    database_url: str = "sqlite+aiosqlite:///./quiver.db"
    admin_token: str | None = None
    secret_key: str | None = None
    redis_url: str | None = None

    skill_prompt_max_chars: int = 2000
    page_size_max: int = 100

    graphql_max_depth: int = 12
    graphql_max_aliases: int = 30
    graphql_max_tokens: int = 5000
    graphiql: bool = True

    log_level: str = "INFO"

    # Hosts a CUSTOM endpoint or MCP URL may reach even when they resolve to a
    # loopback, private or link-local address (comma-separated).
    egress_allowlist: str = ""
    # Default quotas per space and tool (a tool may set its own).
    tool_rate_limit: str = "600/minute"
    tool_max_concurrency: int = 32

    @property
    def egress_hosts(self) -> set[str]:
        return {host.strip() for host in self.egress_allowlist.split(",") if host.strip()}

    @cached_property
    def is_sqlite(self) -> bool:
        return make_url(self.database_url).get_backend_name() == "sqlite"

    @cached_property
    def data_dir(self) -> Path:
        """Folder beside the SQLite file (current directory for other databases)."""
        url = make_url(self.database_url)
        if self.is_sqlite and url.database and url.database != ":memory:":
            return Path(url.database).resolve().parent
        return Path.cwd()
