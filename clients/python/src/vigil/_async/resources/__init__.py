from .alerts import AsyncAlerts
from .chat import AsyncChat
from .connections import AsyncConnections
from .dashboards import AsyncDashboards, AsyncDashboardWidgets
from .datasets import AsyncDatasets
from .embed import AsyncEmbed, AsyncEmbedSettingsResource, AsyncEmbedTokens
from .exports import AsyncExports
from .history import AsyncHistory
from .integrations import AsyncIntegrations
from .projects import AsyncProjects
from .usage import AsyncUsage
from .users import AsyncUsers
from .webhooks import AsyncWebhookDeliveries, AsyncWebhooks

__all__ = [
    "AsyncAlerts",
    "AsyncChat",
    "AsyncConnections",
    "AsyncDashboards",
    "AsyncDashboardWidgets",
    "AsyncDatasets",
    "AsyncEmbed",
    "AsyncEmbedSettingsResource",
    "AsyncEmbedTokens",
    "AsyncExports",
    "AsyncHistory",
    "AsyncIntegrations",
    "AsyncProjects",
    "AsyncUsage",
    "AsyncUsers",
    "AsyncWebhookDeliveries",
    "AsyncWebhooks",
]
