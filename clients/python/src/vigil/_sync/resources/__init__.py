# Generated from src/vigil/_async/resources/__init__.py by scripts/generate_sync.py: do not edit.
from .alerts import Alerts
from .chat import Chat
from .connections import Connections
from .dashboards import Dashboards, DashboardWidgets
from .datasets import Datasets
from .embed import Embed, EmbedSettingsResource, EmbedTokens
from .exports import Exports
from .history import History
from .integrations import Integrations
from .projects import Projects
from .usage import Usage
from .users import Users
from .webhooks import WebhookDeliveries, Webhooks

__all__ = [
    "Alerts",
    "Chat",
    "Connections",
    "Dashboards",
    "DashboardWidgets",
    "Datasets",
    "Embed",
    "EmbedSettingsResource",
    "EmbedTokens",
    "Exports",
    "History",
    "Integrations",
    "Projects",
    "Usage",
    "Users",
    "WebhookDeliveries",
    "Webhooks",
]
