"""The resources as the API returns them, with snake_case attributes and `datetime` timestamps."""

from dataclasses import dataclass
from datetime import date as Date
from datetime import datetime
from typing import Any, Dict, List, Literal, Optional, TypedDict

Severity = Literal["critical", "high", "medium", "low", "info"]
AlertStatus = Literal["active", "acknowledged", "resolved"]
Role = Literal["admin", "member", "viewer"]
UserStatus = Literal["invited", "active", "deactivated"]
DbType = Literal["postgresql", "mysql"]
SslMode = Literal["disable", "prefer", "require"]
ConnectionStatus = Literal["pending", "connected", "error"]
DatasetStatus = Literal["importing", "ready", "failed"]
DeliveryStatus = Literal["pending", "delivered", "failed"]
ExportResource = Literal["alerts", "history", "dataset"]
ExportFormat = Literal["csv", "json", "xlsx"]
ExportStatus = Literal["pending", "running", "completed", "failed"]
WidgetKind = Literal["number", "line", "bar", "pie", "table", "alerts"]
EmbedTheme = Literal["light", "dark"]
Row = Dict[str, Any]


class WidgetInput(TypedDict):
    """A widget to create, as the API takes it: `query` is a structured query (`{"source": "alerts",
    "measure": {"fn": "count"}, "groupBy": "severity"}`, keys in the API's camelCase) or `{"sql": "SELECT …"}`;
    see docs/dashboards.md for every field."""

    title: str
    kind: WidgetKind
    query: Dict[str, Any]


@dataclass
class Project:
    id: str
    name: str
    area: Optional[str]
    description: Optional[str]
    created_at: datetime
    updated_at: datetime


@dataclass
class Alert:
    id: str
    project_id: str
    title: str
    description: Optional[str]
    severity: Severity
    status: AlertStatus
    area: Optional[str]
    value: Optional[str]
    threshold: Optional[str]
    assignee_id: Optional[str]
    created_at: datetime
    updated_at: datetime
    acknowledged_at: Optional[datetime]
    resolved_at: Optional[datetime]


@dataclass
class AlertTimelineEntry:
    """One recorded event of an alert. `actor` is who caused it, as the API returns it
    (`{"type": "user", "id", "email", "name"}` or `{"type": "apiKey", "id", "name"}`), or None when unknown."""

    event_id: str
    event: str
    at: datetime
    actor: Optional[Dict[str, Any]]
    assignee_id: Optional[str]


@dataclass
class AlertOpenCounts:
    """Open alerts (active or acknowledged) per severity."""

    critical: int
    high: int
    medium: int
    low: int
    info: int


@dataclass
class User:
    id: str
    email: str
    name: Optional[str]
    role: Role
    status: UserStatus
    created_at: datetime
    updated_at: datetime
    invite_url: Optional[str] = None
    """Only in the answer to an invitation: the one-time link where the person sets a password."""


@dataclass
class Webhook:
    id: str
    name: str
    url: str
    events: List[str]
    is_active: bool
    created_at: datetime
    updated_at: datetime
    disabled_reason: Optional[str]
    secret: Optional[str] = None
    """Only in the answers to creation and rotation: `whsec_…`, shown once."""


@dataclass
class DeliveryAttempt:
    number: int
    trigger: Literal["scheduled", "manual"]
    started_at: datetime
    duration_ms: int
    http_status: Optional[int]
    error: Optional[str]
    error_detail: Optional[str]
    response_body: Optional[str]
    request_headers: Optional[Dict[str, str]] = None
    """The request headers as sent, signatures included (None for attempts recorded before Vigil kept them)."""


@dataclass
class DeliveryPayload:
    event: str
    org_id: str
    timestamp: datetime
    data: Dict[str, Any]


@dataclass
class Delivery:
    id: str
    webhook_id: str
    event_id: str
    event: str
    status: DeliveryStatus
    attempts: List[DeliveryAttempt]
    next_attempt_at: Optional[datetime]
    created_at: datetime
    payload: DeliveryPayload


@dataclass
class Recovery:
    webhook_id: str
    since: datetime
    deliveries: int
    """How many failed deliveries are sent again."""


@dataclass
class DatasetColumn:
    name: str
    original_name: str
    type: str


@dataclass
class Dataset:
    id: str
    project_id: str
    name: str
    table_name: str
    status: DatasetStatus
    source: Literal["upload", "connection"]
    connection_id: Optional[str]
    row_count: int
    columns: List[DatasetColumn]
    size_bytes: int
    error: Optional[str]
    created_at: datetime
    updated_at: datetime


@dataclass
class Connection:
    id: str
    name: str
    db_type: DbType
    host: str
    port: int
    database: str
    username: str
    ssl_mode: SslMode
    status: ConnectionStatus
    last_error: Optional[str]
    last_checked_at: Optional[datetime]
    created_at: datetime
    updated_at: datetime


@dataclass
class ChatAnswer:
    answer: str
    tokens: int
    model: str
    project_id: str
    query_id: str
    sql: Optional[str] = None
    rows: Optional[List[Row]] = None


@dataclass
class HistoryEntry:
    id: str
    project_id: str
    question: str
    answer: str
    sql: Optional[str]
    row_count: int
    tokens: int
    model: str
    status: Literal["completed", "incomplete"]
    duration_ms: int
    api_key_id: Optional[str]
    user_id: Optional[str]
    created_at: datetime
    rows: Optional[List[Row]] = None
    """Only from `history.retrieve`: up to 100 rows of the last statement."""


@dataclass
class UsagePeriod:
    start: datetime
    end: datetime


@dataclass
class UsageTotals:
    api_requests: int
    ai_questions: int
    tokens: int
    exports: int
    datasets_created: int
    rows_imported: int


@dataclass
class UsageDay(UsageTotals):
    date: Date


@dataclass
class UsageStored:
    datasets: int
    rows: int
    bytes: int


@dataclass
class UsageLimits:
    """`None` is unlimited."""

    requests_per_minute: int
    ai_questions_per_month: Optional[int]
    tokens_per_month: Optional[int]
    datasets: Optional[int]
    rows_stored: Optional[int]
    exports_per_month: Optional[int]


@dataclass
class Usage:
    org_id: str
    plan: str
    period: UsagePeriod
    totals: UsageTotals
    stored: UsageStored
    days: List[UsageDay]
    limits: UsageLimits


@dataclass
class Export:
    id: str
    resource: ExportResource
    format: ExportFormat
    project_id: Optional[str]
    dataset_id: Optional[str]
    filters: Dict[str, Any]
    status: ExportStatus
    error: Optional[str]
    file_name: Optional[str]
    size_bytes: Optional[int]
    row_count: Optional[int]
    created_at: datetime
    updated_at: datetime
    completed_at: Optional[datetime]
    expires_at: Optional[datetime]


@dataclass
class Widget:
    id: str
    title: str
    kind: WidgetKind
    query: Dict[str, Any]
    """As sent: a structured query (camelCase keys, as in the API) or `{"sql": …}`."""


@dataclass
class Dashboard:
    id: str
    project_id: str
    name: str
    description: Optional[str]
    widgets: List[Widget]
    created_at: datetime
    updated_at: datetime


@dataclass
class WidgetResult:
    id: str
    title: str
    kind: WidgetKind
    columns: List[str]
    """For charts: the first column is the label, the second the value."""
    rows: List[Row]
    truncated: bool
    error: Optional[str]
    """Why this widget has no result (the dashboard's other widgets still have theirs)."""


@dataclass
class DashboardData:
    dashboard_id: str
    refreshed_at: datetime
    widgets: List[WidgetResult]


@dataclass
class EmbedToken:
    id: str
    dashboard_id: str
    theme: Optional[EmbedTheme]
    created_at: datetime
    expires_at: datetime
    revoked_at: Optional[datetime]
    token: Optional[str] = None
    """Only in the answer to `embed.tokens.create`: the signed token, shown once."""
    embed_url: Optional[str] = None
    """Only in the answer to `embed.tokens.create`: the iframe page for this dashboard and token."""


@dataclass
class EmbedSettings:
    allowed_origins: List[str]
    """Origins (`scheme://host[:port]`) allowed to embed; empty: any origin (the token is the gate)."""
    updated_at: Optional[datetime]


@dataclass
class WebhookEvent:
    """A verified webhook delivery's body."""

    event: str
    org_id: str
    timestamp: datetime
    data: Dict[str, Any]
    id: Optional[str] = None
    """The delivery id (`webhook-id`, `X-Service-Delivery`): the same on every attempt, for deduplication."""
