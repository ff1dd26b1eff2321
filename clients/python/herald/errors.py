"""A refusal from herald as a typed error: the status, and the interface's error text
exactly as herald wrote it (``message`` of an application error, ``error`` of an
authentication error: ``"Invalid API Key "`` keeps its trailing space)."""

from __future__ import annotations

from typing import Any, Literal, Mapping

#: Which of the interface's error body shapes the answer had: ``application``
#: ``{message}`` (herald's own may add ``detail``), ``validation`` ``{message, error: [{email}]}``,
#: ``authentication`` ``{error}``, ``rate_limit`` ``{success: false, message, error}``, or
#: ``unknown`` (not JSON, or another shape: a proxy's page).
ErrorKind = Literal["application", "validation", "authentication", "rate_limit", "unknown"]


class HeraldError(Exception):
    """herald answered with a status that is not 2xx."""

    status: int
    kind: ErrorKind
    message: str
    #: herald's ``detail`` (``<field>: <what is wrong>``) when the answer had one.
    detail: str | None
    #: A validation error's offending values, e.g. ``[{"email": "ana@"}]``.
    offending: list[dict[str, str]]
    #: Seconds herald asked to wait (Retry-After on 429 and 503).
    retry_after: float | None
    #: The answer's x-request-id, which herald's log carries too.
    request_id: str | None
    #: The answer's body: parsed JSON, or the text when it was not JSON.
    body: Any

    def __init__(self, status: int, body: Any, headers: Mapping[str, str]) -> None:
        kind, text = _shape_of(body, status)
        super().__init__(text)
        self.status = status
        self.kind = kind
        self.message = text
        self.body = body
        self.detail = body.get("detail") if isinstance(body, dict) and isinstance(body.get("detail"), str) else None
        self.offending = []
        if kind == "validation":
            self.offending = [
                entry for entry in body["error"]
                if isinstance(entry, dict) and all(isinstance(v, str) for v in entry.values())
            ]
        self.retry_after = _seconds(headers.get("retry-after"))
        self.request_id = headers.get("x-request-id")

    def __repr__(self) -> str:
        return f"HeraldError(status={self.status}, kind={self.kind!r}, message={self.message!r})"


def _seconds(value: str | None) -> float | None:
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return seconds if seconds is not None and seconds >= 0 else None


def _shape_of(body: Any, status: int) -> tuple[ErrorKind, str]:
    if isinstance(body, dict):
        if body.get("success") is False and isinstance(body.get("message"), str):
            return "rate_limit", body["message"]
        if isinstance(body.get("message"), str):
            return ("validation" if isinstance(body.get("error"), list) else "application"), body["message"]
        if isinstance(body.get("error"), str):
            return "authentication", body["error"]
    if isinstance(body, str) and body.strip():
        return "unknown", body.strip()[:200]
    return "unknown", f"herald answered {status}"
