"""Settings, read from the environment (prefix ``QUIVER_``)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url


class Settings(BaseSettings):
    """Every knob of the service. Defaults give the embedded SQLite setup."""

    # An empty QUIVER_* variable counts as unset (its default applies).
    model_config = SettingsConfigDict(env_prefix="QUIVER_", extra="ignore", env_ignore_empty=True)

    database_url: str = "sqlite+aiosqlite:///./quiver.db"
    # PostgreSQL: longest a statement or a connect may take in the server before the request
    # is answered DATABASE_UNAVAILABLE (0: no bound; a hung database held mutations for ever).
    database_timeout_s: float = Field(default=60.0, ge=0)
    # Where call-log rows kept during a database outage are also written (app.gateway.spool);
    # unset: beside the SQLite file (``<file>.spool``), or ``./quiver-spool`` on PostgreSQL.
    spool_dir: Path | None = None
    admin_token: str | None = None
    secret_key: str | None = None
    redis_url: str | None = None
    # Set by `quiver serve --workers N` (N > 1) without Redis, for its workers: the supervisor's
    # event broker (app.events.local_broker) on a Unix socket, which carries what Redis would.
    event_broker_url: str | None = None
    # The event bus PINGs its listening connection this often and ends it (as a reset one) when
    # the answer does not come within the command time-out: a black-holed connection (packets
    # dropped, no reset) is noticed instead of listening to nothing for ever (app.events.redis_bus).
    event_bus_ping_s: float = Field(default=5.0, ge=0.1, le=3600)

    skill_prompt_max_chars: int = 2000
    # Skills: an agent with more bound skills than this gets only the best matches for
    # the message injected (dynamic routing); at or under it, all of them.
    skill_routing_limit: int = 8
    # Over the limit, skills scoring below this for the message are not injected.
    skill_routing_min_score: float = 0.05
    # Canary share (0-100) a candidate gets when publishSkillVersion names none.
    skill_canary_default_percent: int = 0
    # matchSkills without minScore: a plain cut at this score instead of the calibrated
    # per-request gate (app.skills.matching); unset: the gate decides.
    skill_match_min_score: float | None = None
    # Use the knowledge embeddings provider (QUIVER_EMBEDDINGS) for skill matching too.
    skill_match_embeddings: bool = True
    # Re-rank skill matches with this chat model on the OpenAI-compatible endpoint; unset: off.
    skill_rerank_model: str | None = None
    skill_rerank_timeout_s: float = 10.0
    page_size_max: int = 100

    graphql_max_depth: int = 12
    graphql_max_aliases: int = 30
    graphql_max_tokens: int = 5000
    # Most fields one operation may resolve, computed before it runs (schema/limits.py).
    # The heaviest query allowed is what another tenant waits behind (bench/noisy_neighbour.py);
    # a page of 100 tools or agents with every field fits (tests/schema/test_request_limits.py)
    # and so does every console operation (tests/console/test_operation_costs.py).
    graphql_max_cost: int = 7_500
    # A query (not a mutation: tools and models bound those) still running after this is answered QUERY_TIMEOUT.
    graphql_timeout_s: float = 15.0
    # invokeTool's and invokeAgent's known documents over POST /graphql answered from a compiled plan
    # (schema/gateway/hot_path.py).
    graphql_hot_path: bool = True
    # Request bodies and WebSocket messages to /graphql, and how deeply their JSON may nest.
    max_request_bytes: int = 2 * 1024 * 1024
    max_json_depth: int = 64
    # A POST /graphql body still arriving after this long is answered 408 REQUEST_TIMEOUT: a client
    # that stops half-way held its connection for ever, and the tenant's later large bodies waited
    # behind it in the heavy line. 0: no limit.
    request_body_timeout_s: float = 30.0
    # A POST to /graphql whose body is at least this large (or of undeclared length) waits until
    # the same tenant's earlier such requests are read, parsed, validated and costed (executing
    # them does not hold the line): a tenant sending many large bodies at once has them parsed one
    # at a time instead of filling the loop for everyone (bench/noisy_neighbour.py). 0: no line.
    heavy_request_bytes: int = 8 * 1024
    # While another tenant (space; ADMIN key) is being served, at most this many requests of a
    # tenant execute at once; its others wait in its own queue (at most tenant_queue_max, each at
    # most tenant_queue_timeout_s, then 429 BUSY). Alone, a tenant is never held (schema/fairness.py).
    # 0: no cap.
    tenant_concurrency: int = 1
    tenant_queue_max: int = 256
    tenant_queue_timeout_s: float = 10.0
    # At most this many subscriptions of a tenant run at once in a process over WebSockets (one
    # joining an alike subscription's shared stream does not count; a query sent over the socket
    # does while it runs); past it a new one is answered with an error (TOO_MANY_SUBSCRIPTIONS),
    # the socket stays open. Each is a bus subscriber that every event on its topic wakes
    # (schema/fairness.py OperationCap). 0: no cap.
    max_subscriptions_per_tenant: int = 100
    # At most this many GraphQL WebSockets of a tenant (space; each ADMIN key its own) are open at
    # once in a process; past it connection_init is answered by closing the socket (4013,
    # TOO_MANY_WEBSOCKETS). 0: no cap (schema/websocket_admission.py).
    max_websockets_per_tenant: int = 100
    # A WebSocket not authenticated (connection_init) within this many seconds is closed (4408);
    # at most max_pending_websockets wait at once in a process, past it the longest waiting is
    # closed (4408, TOO_MANY_PENDING_WEBSOCKETS). 0: no bound on how many wait.
    websocket_init_timeout_s: float = 10.0
    # At most this many /mcp streams of a tenant (GET streams and subscriptions/listen, each open
    # while its client listens) at once in a process, whichever of its keys opened them; past it
    # 429 / a JSON-RPC error, TOO_MANY_STREAMS (app/mcp_server/endpoint.py). 0: no cap.
    max_mcp_streams_per_tenant: int = 100
    max_pending_websockets: int = 1_000
    # Longest text input (characters) by kind: names, labels, ids, tags …; descriptions;
    # search queries; prompts and agent messages; document and SKILL.md texts; anything else.
    max_name_chars: int = 200
    max_description_chars: int = 4_000
    max_query_chars: int = 4_000
    max_prompt_chars: int = 32_000
    max_document_chars: int = 500_000
    max_text_chars: int = 10_000
    # Longest list input (ids, tags, trigger hints, scopes, a command, include …), in items.
    max_list_items: int = 500
    # Largest arguments, result, error message and detail a call-log row stores (each, in bytes
    # of JSON); larger ones are stored cut, with a marker and their size (the caller gets them whole).
    call_log_max_bytes: int = 64 * 1024
    # The same for what the agent runtime stores: a run's output and error, each trace stage's
    # details, conversation turns and agent-to-agent messages (cut with a marker and their size).
    run_log_max_bytes: int = 64 * 1024
    # `quiver serve` on a loop that holds back a tenant past its share of it while another
    # tenant is served (app/scheduling.py). Off: in two pairs of runs of bench/noisy_neighbour.py
    # it lowered the quiet tenant's p99 in one and its p50 in the other, never both (bench/README.md).
    fair_loop: bool = False
    graphiql: bool = True

    log_level: str = "INFO"
    # When set, GET /metrics needs `Authorization: Bearer <metrics_token>`; unset: open.
    metrics_token: str | None = None

    # Hosts a CUSTOM endpoint or MCP URL may reach even when they resolve to a
    # loopback, private or link-local address (comma-separated).
    egress_allowlist: str = ""
    # Default quotas per space and tool (a tool may set its own).
    tool_rate_limit: str = "600/minute"
    tool_max_concurrency: int = 32
    # MCP discovery, when a tool's description or schema changed since the last sync:
    # "flag" sets its drifted_at; "disable" also disables it until an admin re-activates it.
    mcp_drift: Literal["flag", "disable"] = "flag"
    # Tools, MCP server rows and API keys are cached per replica and dropped on every
    # catalog commit (on other replicas through the event bus); this bounds an entry's
    # life when a change is not heard of (a CLI process beside a server without Redis).
    catalog_cache_ttl_s: float = 5.0
    # Answers of catalog listings (pages of tools with their catalog fields), kept per API key
    # until the next catalog change or catalog_cache_ttl_s (schema/listing_cache.py); 0 turns it off.
    listing_cache_mb: float = 32.0
    # Quiver's MCP endpoints (/mcp/spaces/{id}, /mcp/agents/{id}): tools and prompts per list page.
    mcp_page_size: int = 100

    # The agent runtime: any OpenAI-compatible endpoint; unset means no model is configured.
    openai_base_url: str | None = None
    openai_api_key: str | None = None
    model_timeout_s: float = 60.0
    # Stream model replies (MESSAGE_DELTA events on agentRunEvents).
    model_stream: bool = False
    prompt_budget_chars: int = 24_000
    knowledge_context_chars: int = 6_000
    history_turns: int = 5
    tool_parallelism: int = 4
    # Most tool calls one model reply may ask for; the others are refused (TOO_MANY_TOOL_CALLS), not
    # run: a reply asking for 5,000 ran 5,000 calls (and their rows) before the model's next turn.
    max_tool_calls_per_step: int = 64
    delegation_depth_limit: int = 3
    # bt_send_message waits for the other agent's run: its own cap instead of the builtin 5 s.
    delegation_timeout_s: float = 120.0
    # A replica's lease on the runs it executes; a RUNNING run whose lease ran out (its replica
    # died) is taken over by a live replica, found at start-up and every half lease.
    run_lease_s: float = 30.0
    # A tool call waiting for approval is refused after this long (24 h).
    approval_timeout_s: float = 86_400.0
    # The server rolls the call log and the runs up for the health report this often (0: never).
    report_rollup_interval_s: float = 60.0
    # Run traces are kept this many days, then pruned by the server.
    trace_retention_days: float = 30.0
    # OpenTelemetry (not prefixed): with an OTLP/HTTP endpoint, runs are also exported as spans.
    otel_endpoint: str | None = Field(
        default=None, validation_alias=AliasChoices("OTEL_EXPORTER_OTLP_ENDPOINT", "otel_endpoint")
    )
    otel_service_name: str = Field(
        default="quiver", validation_alias=AliasChoices("OTEL_SERVICE_NAME", "otel_service_name")
    )
    # Message content in the spans (the GenAI conventions' opt-in), from the already scrubbed trace.
    otel_capture_content: bool = Field(
        default=False,
        validation_alias=AliasChoices("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "otel_capture_content"),
    )

    # Knowledge bases: chunking (characters), embeddings, search and the prompt context block.
    chunk_size: int = 800
    chunk_overlap: int = 100
    embeddings: str = "none"  # none | local (the embeddings extra) | openai
    embeddings_model: str = "text-embedding-3-small"  # for openai
    embeddings_base_url: str | None = None  # an OpenAI-compatible endpoint; None: api.openai.com
    embeddings_api_key: str | None = None
    embeddings_batch_size: int = 64
    # The local model embeds the first this many characters of each passage (title and
    # headings first); 0: all of it. See README "Knowledge bases".
    embeddings_passage_chars: int = 350
    # ... and the first this many characters of a search query or a skill request (a request is
    # 4,000 characters at most; realistic ones are under 200): 4,000 characters cost the model
    # about 150 ms of CPU that other tenants' requests wait behind. 0: all of it.
    embeddings_query_chars: int = 1_000
    # A skill request longer than this is read by the local model as its first and last sentences
    # (the ask is mostly at one end of a long message), each scored as a short request.
    # 0: embedded from its first embeddings_query_chars, as knowledge search.
    skill_request_chars: int = 300
    knowledge_search_timeout_s: float = 4.0  # per knowledge base, below the builtin cap of 5 s
    # The prompt's knowledge block is budgeted by knowledge_context_chars (above).
    knowledge_context_top_k: int = 6

    @property
    def egress_hosts(self) -> set[str]:
        return {host.strip() for host in self.egress_allowlist.split(",") if host.strip()}

    @cached_property
    def is_sqlite(self) -> bool:
        return make_url(self.database_url).get_backend_name() == "sqlite"

    @cached_property
    def call_spool_dir(self) -> Path | None:
        """The call-log spool folder; None for an in-memory SQLite database (it cannot be away)."""
        if self.spool_dir is not None:
            return self.spool_dir.resolve()
        url = make_url(self.database_url)
        if self.is_sqlite:
            if not url.database or url.database == ":memory:":
                return None
            database = Path(url.database).resolve()
            return database.with_name(database.name + ".spool")
        return Path.cwd() / "quiver-spool"

    @cached_property
    def data_dir(self) -> Path:
        """Folder beside the SQLite file (current directory for other databases)."""
        url = make_url(self.database_url)
        if self.is_sqlite and url.database and url.database != ":memory:":
            return Path(url.database).resolve().parent
        return Path.cwd()
