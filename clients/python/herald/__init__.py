"""A client for herald's HTTP API, on the Python standard library alone."""

from herald.client import Client, is_batch_item_error
from herald.errors import HeraldError
from herald.version import __version__
from herald.webhooks import DEFAULT_TOLERANCE_SECONDS, WebhookVerificationError, verify_webhook

__all__ = [
    "Client",
    "DEFAULT_TOLERANCE_SECONDS",
    "HeraldError",
    "WebhookVerificationError",
    "__version__",
    "is_batch_item_error",
    "verify_webhook",
]
