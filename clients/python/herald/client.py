"""herald's sends, message log, schedules and webhooks over urllib.request.

Every send carries an Idempotency-Key (a random UUID unless given), so a send whose
answer was lost is retried without a second message or a second charge. Request and
answer bodies are the JSON of herald's OpenAPI document (``/openapi.json``), as dicts."""

from __future__ import annotations

import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime
from typing import Any, Iterator, Mapping, Sequence

from herald.errors import HeraldError
from herald.version import __version__

_RETRIED_STATUSES = frozenset({429, 503})
_FIRST_BACKOFF = 0.2
# What a lost connection looks like to urllib: refused, reset, closed without an answer, timed out.
_CONNECTION_FAILURES = (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout, TimeoutError)


class Client:
    """A client of one herald for one API key.

    ``retries``: attempts after the first when a call that is safe to repeat (a send,
    which carries its Idempotency-Key; a read; a PUT or PATCH) got no answer, a 503, a 429, or for a
    send a 409 (its key still being served). ``timeout``: seconds allowed for one
    attempt. ``max_retry_wait``: the longest Retry-After (seconds) waited for.

    A send's ``send_at`` (and a batch item's) may be a timezone-aware ``datetime``: it is
    sent as its ISO 8601 text.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        retries: int = 2,
        timeout: float = 30.0,
        max_retry_wait: float = 10.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.retries = retries
        self.timeout = timeout
        self.max_retry_wait = max_retry_wait

    # ---- sends ----

    def send_email(self, request: Mapping[str, Any], *, idempotency_key: str | None = None) -> dict[str, Any]:
        """POST /v1/email: ``{message, to: [{email, msgid}]}``, one msgid per recipient."""
        return self._send("/v1/email", request, idempotency_key)

    def send_sms(self, request: Mapping[str, Any], *, idempotency_key: str | None = None) -> dict[str, Any]:
        """POST /v1/sms/send: one msgid per number, and the messages left."""
        return self._send("/v1/sms/send", request, idempotency_key)

    def send_whatsapp_template(self, request: Mapping[str, Any], *, idempotency_key: str | None = None) -> dict[str, Any]:
        """POST /v1/whatsapp/sendTemplateMessage: an approved template with its parameters."""
        return self._send("/v1/whatsapp/sendTemplateMessage", request, idempotency_key)

    def send_whatsapp_message(self, request: Mapping[str, Any], *, idempotency_key: str | None = None) -> dict[str, Any]:
        """POST /v1/whatsapp/sendMessage: free text, within 24 hours of the destination's last message."""
        return self._send("/v1/whatsapp/sendMessage", request, idempotency_key)

    # ---- batch sends ----

    def send_email_batch(
        self, items: Sequence[Mapping[str, Any]], *, atomic: bool = False, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """POST /v1/email/batch: 1 to 500 email bodies under one Idempotency-Key. ``data`` answers each in order:
        its single send's body, or its refusal ``{status, message, ...}`` (see ``is_batch_item_error``).
        ``atomic``: any refused item refuses the whole batch (a HeraldError whose body has the item's ``index``)."""
        return self._send("/v1/email/batch", list(items), idempotency_key, query={"atomic": True} if atomic else None)

    def send_sms_batch(
        self, items: Sequence[Mapping[str, Any]], *, atomic: bool = False, idempotency_key: str | None = None
    ) -> dict[str, Any]:
        """POST /v1/sms/batch: 1 to 500 SMS bodies under one Idempotency-Key, answered item by item as send_email_batch."""
        return self._send("/v1/sms/batch", list(items), idempotency_key, query={"atomic": True} if atomic else None)

    # ---- scheduled sends ----

    def cancel_scheduled(self, msgid: str) -> dict[str, Any]:
        """DELETE /v1/messages/{msgid}/schedule: ``{msgid, status: "cancelled", refunded}``, never sent, its cost given back."""
        return self._call("DELETE", f"/v1/messages/{urllib.parse.quote(msgid, safe='')}/schedule")

    def reschedule(self, msgid: str, send_at: datetime | str) -> dict[str, Any]:
        """PATCH /v1/messages/{msgid}/schedule: ``{msgid, status: "scheduled", send_at}``; ``send_at`` in the future,
        at most 72 hours ahead (a datetime must carry its timezone)."""
        return self._call("PATCH", f"/v1/messages/{urllib.parse.quote(msgid, safe='')}/schedule", body={"send_at": send_at})

    # ---- the message log ----

    def get_message(self, msgid: str) -> dict[str, Any]:
        """GET /v1/messages/{msgid}: the message, its status and its events."""
        return self._call("GET", f"/v1/messages/{urllib.parse.quote(msgid, safe='')}")

    def list_messages(self, **query: Any) -> dict[str, Any]:
        """GET /v1/messages: one page ``{data, next_cursor}``, newest first; pass ``next_cursor`` as ``cursor`` for the next."""
        return self._call("GET", "/v1/messages", query=query)

    def iter_messages(self, **query: Any) -> Iterator[dict[str, Any]]:
        """Every message that matches, newest first, a page (``limit``, default 50) at a time, following the cursors."""
        query.pop("cursor", None)
        cursor = None
        while True:
            page = self.list_messages(**query, **({} if cursor is None else {"cursor": cursor}))
            yield from page["data"]
            cursor = page.get("next_cursor")
            if cursor is None:
                return

    # ---- webhook settings ----

    def get_webhook_settings(self) -> dict[str, Any]:
        """GET /v1/webhooks: the URL, the secret to verify posts with, the event filter."""
        return self._call("GET", "/v1/webhooks")

    def set_webhook_settings(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        """PUT /v1/webhooks: ``{url, events?}`` (url None: none); returns the settings with the secret."""
        return self._call("PUT", "/v1/webhooks", body=settings)

    # ---- webhook endpoints ----

    def list_webhook_endpoints(self) -> dict[str, Any]:
        """GET /v1/webhooks/endpoints: ``{data}``, the first endpoint (when it has a URL), then the others, oldest first."""
        return self._call("GET", "/v1/webhooks/endpoints")

    def create_webhook_endpoint(self, endpoint: Mapping[str, Any]) -> dict[str, Any]:
        """POST /v1/webhooks/endpoints ``{url, description?, event_types?}``: the new endpoint with its own secret."""
        return self._call("POST", "/v1/webhooks/endpoints", body=endpoint)

    def update_webhook_endpoint(self, endpoint_id: str, changes: Mapping[str, Any]) -> dict[str, Any]:
        """PATCH /v1/webhooks/endpoints/{id}: changes only the fields given (``enabled: False`` stops it)."""
        return self._call("PATCH", f"/v1/webhooks/endpoints/{urllib.parse.quote(endpoint_id, safe='')}", body=changes)

    def delete_webhook_endpoint(self, endpoint_id: str) -> None:
        """DELETE /v1/webhooks/endpoints/{id}: the endpoint and its delivery log (the first: its URL cleared)."""
        self._call("DELETE", f"/v1/webhooks/endpoints/{urllib.parse.quote(endpoint_id, safe='')}")

    def send_webhook_test_event(self, endpoint_id: str, type: str = "webhook.test") -> dict[str, Any]:
        """POST /v1/webhooks/endpoints/{id}/test: a test event of ``type`` to this endpoint only; returns its delivery."""
        return self._call("POST", f"/v1/webhooks/endpoints/{urllib.parse.quote(endpoint_id, safe='')}/test", body={"type": type})

    # ---- the wire ----

    def _send(
        self, path: str, body: Any, idempotency_key: str | None, *, query: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        return self._call("POST", path, query=query, body=body, idempotency_key=idempotency_key or str(uuid.uuid4()))

    def _call(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        idempotency_key: str | None = None,
    ) -> Any:
        url = self.base_url + path
        pairs = {name: _query_text(value) for name, value in (query or {}).items() if value is not None}
        if pairs:
            url += "?" + urllib.parse.urlencode(pairs)
        headers = {
            "Authorization": f"Bearer {self._api_key}",
            "Accept": "application/json",
            "User-Agent": f"herald-client-python/{__version__}",
        }
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body, default=_json_value).encode("utf-8")
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        # A POST without a key might have been taken before its answer was lost: only a keyed one is repeated.
        # A DELETE that was taken would be answered 404 or 409 the second time, hiding what it did.
        repeatable = idempotency_key is not None if method == "POST" else method != "DELETE"

        attempt = 0
        while True:
            last = not repeatable or attempt >= self.retries
            request = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                    text = answer.read().decode("utf-8")
                    return json.loads(text) if text else None
            except urllib.error.HTTPError as refused:
                error = HeraldError(refused.code, _parsed(refused.read().decode("utf-8", "replace")), refused.headers)
                retried = refused.code in _RETRIED_STATUSES or (refused.code == 409 and idempotency_key is not None)
                wait = _FIRST_BACKOFF * 2**attempt if error.retry_after is None else error.retry_after
                if last or not retried or wait > self.max_retry_wait:
                    raise error from None
            except _CONNECTION_FAILURES:
                if last:
                    raise
                wait = _FIRST_BACKOFF * 2**attempt
            time.sleep(wait)
            attempt += 1


def is_batch_item_error(result: Mapping[str, Any]) -> bool:
    """Whether a batch item's answer is a refusal (its ``status`` and error body) rather than its single send's answer."""
    return isinstance(result.get("status"), int)


def _json_value(value: Any) -> Any:
    # A send_at given as a datetime goes as ISO 8601; herald needs its offset, so a naive one is refused here.
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError("send_at: a datetime needs a timezone, e.g. datetime.now(timezone.utc)")
        return value.isoformat()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _query_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
