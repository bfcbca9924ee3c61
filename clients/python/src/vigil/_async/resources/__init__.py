from .alerts import AsyncAlerts
from .chat import AsyncChat
from .connections import AsyncConnections
from .datasets import AsyncDatasets
from .exports import AsyncExports
from .history import AsyncHistory
from .projects import AsyncProjects
from .usage import AsyncUsage
from .users import AsyncUsers
from .webhooks import AsyncWebhookDeliveries, AsyncWebhooks

__all__ = [
    "AsyncAlerts",
    "AsyncChat",
    "AsyncConnections",
    "AsyncDatasets",
    "AsyncExports",
    "AsyncHistory",
    "AsyncProjects",
    "AsyncUsage",
    "AsyncUsers",
    "AsyncWebhookDeliveries",
    "AsyncWebhooks",
]
