"""Verifying a post from herald (Standard Webhooks, docs/webhooks.md): HMAC-SHA256 with
the secret's bytes over ``<webhook-id>.<webhook-timestamp>.<raw body>``, compared in
constant time with each ``v1,<base64>`` of webhook-signature (two during a secret's
rotation), and webhook-timestamp within a tolerance of the receiver's clock."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import time
from typing import Any, Mapping

#: Five minutes, as the Standard Webhooks libraries allow.
DEFAULT_TOLERANCE_SECONDS = 300


class WebhookVerificationError(Exception):
    """The post is not herald's, or is too old or too new."""


def _header(headers: Mapping[str, Any], name: str) -> str:
    value = headers.get(name)
    if value is None:
        value = next((v for k, v in headers.items() if k.lower() == name), None)
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    if not isinstance(value, str) or value == "":
        raise WebhookVerificationError(f"missing {name} header")
    return value


def _secret_key(secret: str) -> bytes:
    encoded = secret[len("whsec_"):] if secret.startswith("whsec_") else secret
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        key = b""
    if not key:
        raise WebhookVerificationError("the secret is empty or not base64")
    return key


def _decoded(signature: str) -> bytes | None:
    try:
        return base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        return None


def verify_webhook(
    body: bytes | str,
    headers: Mapping[str, Any],
    secret: str,
    *,
    tolerance: float = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> dict[str, Any]:
    """Checks a post's signature and timestamp and returns its event ``{type, timestamp, data}``.

    ``body`` must be the raw bytes received: a parsed and re-serialised body does not
    verify. ``headers`` may be a dict or ``http.server``'s message (names in any case).
    ``now`` is the receiver's clock in seconds since the epoch (the current time unless given).
    Raises WebhookVerificationError when the post does not verify.
    """
    message_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signatures = _header(headers, "webhook-signature")
    if not re.fullmatch(r"\d{1,15}", timestamp):
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds")
    clock = int(time.time() if now is None else now)
    if clock - int(timestamp) > tolerance:
        raise WebhookVerificationError("webhook-timestamp is too old")
    if int(timestamp) - clock > tolerance:
        raise WebhookVerificationError("webhook-timestamp is in the future")

    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    expected = hmac.new(_secret_key(secret), f"{message_id}.{timestamp}.".encode("utf-8") + raw, hashlib.sha256).digest()
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        given = _decoded(signature) if version == "v1" else None
        if given is not None and hmac.compare_digest(given, expected):
            break
    else:
        raise WebhookVerificationError("no signature matches")
    try:
        event = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise WebhookVerificationError("the body is not JSON") from error
    if not isinstance(event, dict):
        raise WebhookVerificationError("the body is not a JSON object")
    return event
