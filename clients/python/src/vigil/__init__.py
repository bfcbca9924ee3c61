"""The official Python client for Vigil's REST API: `Vigil` (synchronous) and `AsyncVigil`.

    from vigil import Vigil

    with Vigil() as vigil:  # VIGIL_API_KEY and VIGIL_BASE_URL from the environment
        for alert in vigil.alerts.list(status="active"):
            print(alert.title, alert.created_at)
"""

from . import webhooks
from ._async import AsyncPage, AsyncPaginator, AsyncVigil
from ._async._response import AsyncAPIResponse
from ._core import NOT_GIVEN, NotGiven, RequestOptions
from ._errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    ConflictError,
    InternalServerError,
    NotFoundError,
    PlanRequiredError,
    RateLimitError,
    ValidationError,
    VigilError,
    WebhookVerificationError,
)
from ._models import (
    Alert,
    AlertmanagerResult,
    ChatAnswer,
    Connection,
    Dashboard,
    DashboardData,
    Dataset,
    DatasetColumn,
    Delivery,
    DeliveryAttempt,
    DeliveryPayload,
    EmbedSettings,
    EmbedToken,
    Export,
    HistoryEntry,
    Project,
    Recovery,
    Usage,
    UsageDay,
    UsageLimits,
    UsagePeriod,
    UsageStored,
    UsageTotals,
    User,
    Webhook,
    WebhookEvent,
    Widget,
    WidgetInput,
    WidgetResult,
)
from ._sync import Page, Vigil
from ._sync._response import APIResponse
from ._version import __version__

__all__ = [
    "__version__",
    "Vigil",
    "AsyncVigil",
    "Page",
    "AsyncPage",
    "AsyncPaginator",
    "NOT_GIVEN",
    "NotGiven",
    "RequestOptions",
    "APIResponse",
    "AsyncAPIResponse",
    "webhooks",
    "VigilError",
    "APIError",
    "APIConnectionError",
    "APITimeoutError",
    "AuthenticationError",
    "PlanRequiredError",
    "NotFoundError",
    "ConflictError",
    "ValidationError",
    "RateLimitError",
    "InternalServerError",
    "WebhookVerificationError",
    "Alert",
    "AlertmanagerResult",
    "ChatAnswer",
    "Connection",
    "Dashboard",
    "DashboardData",
    "Dataset",
    "DatasetColumn",
    "Delivery",
    "DeliveryAttempt",
    "DeliveryPayload",
    "EmbedSettings",
    "EmbedToken",
    "Export",
    "HistoryEntry",
    "Project",
    "Recovery",
    "Usage",
    "UsageDay",
    "UsageLimits",
    "UsagePeriod",
    "UsageStored",
    "UsageTotals",
    "User",
    "Webhook",
    "WebhookEvent",
    "Widget",
    "WidgetInput",
    "WidgetResult",
]
