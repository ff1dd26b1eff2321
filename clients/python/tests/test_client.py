"""The Python client against a real herald: each send, the message log read back and
paged through, a real webhook post verified, and the Idempotency-Key every send carries.

Needs a running herald whose webhook posts may go to loopback (HERALD_FETCH_ALLOW_PRIVATE=true):
    HERALD_URL=http://127.0.0.1:8080 HERALD_ADMIN_TOKEN=... python3 clients/python/tests/test_client.py
test/clients/python-client.test.ts starts one and runs this file."""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import time
import unittest
import urllib.error
import urllib.request
import uuid
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from herald import Client, HeraldError, WebhookVerificationError, is_batch_item_error, verify_webhook  # noqa: E402

HERALD_URL = os.environ.get("HERALD_URL", "")
ADMIN_TOKEN = os.environ.get("HERALD_ADMIN_TOKEN", "")
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")

EMAIL = {
    "to": [{"email": "ana@example.org"}],
    "from": {"email": "news@example.com", "name": "Example News"},
    "replyTo": {"email": "help@example.com", "name": "Help desk"},
    "subject": "Hello from herald",
    "body": "<p>It works.</p>",
}
SMS = {"message": "Your code is 1234", "mobile_numbers": ["+5215512345678"]}


def admin(method: str, path: str, body: Any = None) -> Any:
    """A call to herald's operator API, which the client does not cover."""
    request = urllib.request.Request(
        HERALD_URL + path,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {ADMIN_TOKEN}", "Content-Type": "application/json"},
        method=method,
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


class Account:
    """An account with 100 messages, 10.00 of balance at 0.05 a WhatsApp message, example.com verified and a
    template; 1000 requests a second unless ``rate_limit_per_second`` says."""

    def __init__(self, rate_limit_per_second: int = 1000) -> None:
        opened = admin("POST", "/admin/v1/accounts", {
            "name": f"python client {uuid.uuid4()}", "messagesLeft": 100, "rateLimitPerSecond": rate_limit_per_second,
            "balance": 10, "whatsappPrice": 0.05,
        })
        self.id = opened["account"]["id"]
        self.api_key = opened["apiKey"]["apiKey"]
        admin("POST", f"/admin/v1/accounts/{self.id}/domains", {"domain": "example.com", "verified": True})
        template = admin("POST", f"/admin/v1/accounts/{self.id}/whatsapp-templates", {
            "name": "otp_code", "body": "Hi {{1}}, your code is {{2}}",
        })
        self.template_id = template["templateId"]

    def messages_left(self) -> int:
        return admin("GET", f"/admin/v1/accounts/{self.id}")["messagesLeft"]


class LoopbackServer:
    """A ThreadingHTTPServer on 127.0.0.1 whose every request goes to ``handle``."""

    def __init__(self, handle: Callable[[BaseHTTPRequestHandler, bytes], None]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                handle(self, self.rfile.read(length))

            do_GET = do_POST = do_PUT = _any

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class WebhookReceiver(LoopbackServer):
    """Answers 204 to every post and keeps each raw body with its headers."""

    def __init__(self) -> None:
        self.posts: list[tuple[bytes, dict[str, str]]] = []
        self.arrived = threading.Condition()

        def receive(handler: BaseHTTPRequestHandler, body: bytes) -> None:
            with self.arrived:
                self.posts.append((body, dict(handler.headers.items())))
                self.arrived.notify_all()
            handler.send_response(204)
            handler.end_headers()

        super().__init__(receive)

    def post(self, text: str, timeout: float = 20.0) -> tuple[bytes, dict[str, str]]:
        """The first post whose body contains ``text``."""
        with self.arrived:
            found = self.arrived.wait_for(lambda: next((p for p in self.posts if text.encode() in p[0]), None), timeout)
        if found is None:
            raise AssertionError(f"no post with {text} within {timeout} s; received {len(self.posts)}")
        return found


class LosingProxy(LoopbackServer):
    """Passes requests on to herald; the first ``lose`` answers are dropped (the connection closed instead)."""

    def __init__(self, lose: int) -> None:
        self.keys: list[str | None] = []
        self.lost = 0

        def forward(handler: BaseHTTPRequestHandler, body: bytes) -> None:
            self.keys.append(handler.headers.get("Idempotency-Key"))
            headers = {k: v for k, v in handler.headers.items() if k.lower() not in ("host", "connection", "content-length")}
            request = urllib.request.Request(HERALD_URL + handler.path, data=body or None, headers=headers, method=handler.command)
            try:
                with urllib.request.urlopen(request, timeout=10) as answer:
                    status, payload = answer.status, answer.read()
            except urllib.error.HTTPError as refused:
                status, payload = refused.code, refused.read()
            if self.lost < lose:
                self.lost += 1
                handler.close_connection = True
                return
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            handler.end_headers()
            handler.wfile.write(payload)

        super().__init__(forward)


def one_webhook_post() -> tuple[bytes, dict[str, str], str, str]:
    """Sets a new account's webhook to a receiver, sends an SMS, and returns its first post, the secret and the msgid."""
    client = Client(HERALD_URL, Account().api_key)
    receiver = WebhookReceiver()
    try:
        settings = client.set_webhook_settings({"url": receiver.url})
        msgid = client.send_sms(SMS)["messages"][0]["msgid"]
        body, headers = receiver.post(msgid)
        return body, headers, settings["secret"], msgid
    finally:
        receiver.close()


class ClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.account = Account()
        self.client = Client(HERALD_URL, self.account.api_key)

    def test_an_email_an_sms_and_a_whatsapp_template_are_read_back_by_msgid(self) -> None:
        email = self.client.send_email(EMAIL)
        sms = self.client.send_sms(SMS)
        whatsapp = self.client.send_whatsapp_template(
            {"destination": "+5215512345679", "templateId": self.account.template_id, "params": ["Ana", "1234"]}
        )
        self.assertEqual(
            [email["message"], sms["messages_left"], whatsapp["current_balance"]],
            ["Email queued for delivery", 98, 9.95],
        )
        msgids = [email["to"][0]["msgid"], sms["messages"][0]["msgid"], whatsapp["msgid"]]
        read = [self.client.get_message(msgid) for msgid in msgids]
        self.assertEqual(
            [[m["msgid"], m["channel"], m["recipient"]] for m in read],
            [[msgids[0], "email", "ana@example.org"], [msgids[1], "sms", "+5215512345678"], [msgids[2], "whatsapp", "5215512345679"]],
        )

    def test_iter_messages_follows_the_cursors_through_every_page_newest_first(self) -> None:
        numbers = [f"+521550000000{n}" for n in range(1, 6)]
        sent = self.client.send_sms({"message": "Hello", "mobile_numbers": numbers})
        pages = []
        list_messages = self.client.list_messages

        def counted(**query: Any) -> dict[str, Any]:
            pages.append(query)
            return list_messages(**query)

        self.client.list_messages = counted  # type: ignore[method-assign]
        seen = [m["msgid"] for m in self.client.iter_messages(channel="sms", limit=2)]
        self.assertEqual(len(pages), 3)
        everything = list_messages(channel="sms", limit=500)
        self.assertEqual(seen, [m["msgid"] for m in everything["data"]])
        self.assertEqual(sorted(seen), sorted(m["msgid"] for m in sent["messages"]))

    def test_a_real_webhook_post_verifies_with_the_accounts_secret(self) -> None:
        body, headers, secret, msgid = one_webhook_post()
        event = verify_webhook(body, headers, secret)
        self.assertEqual(event["data"]["msgid"], msgid)
        self.assertTrue(event["type"].startswith("sms."))

    def test_a_webhook_post_changed_by_one_character_does_not_verify(self) -> None:
        body, headers, secret, _ = one_webhook_post()
        tampered = body.replace(b'"sms"', b'"SMS"')
        self.assertNotEqual(tampered, body)
        with self.assertRaisesRegex(WebhookVerificationError, "^no signature matches$"):
            verify_webhook(tampered, headers, secret)

    def test_a_webhook_post_signed_more_than_five_minutes_ago_does_not_verify(self) -> None:
        body, headers, secret, _ = one_webhook_post()
        signed_at = int(headers["webhook-timestamp"])
        with self.assertRaisesRegex(WebhookVerificationError, "^webhook-timestamp is too old$"):
            verify_webhook(body, headers, secret, now=signed_at + 301)
        self.assertTrue(verify_webhook(body, headers, secret, now=signed_at + 299)["type"].startswith("sms."))

    def test_a_send_repeated_with_the_same_idempotency_key_is_billed_once(self) -> None:
        first = self.client.send_sms(SMS, idempotency_key="order-1001")
        again = self.client.send_sms(SMS, idempotency_key="order-1001")
        self.assertEqual(again, first)
        self.assertEqual(self.account.messages_left(), 99)

    def test_a_send_whose_answer_was_lost_is_retried_with_the_clients_key_and_billed_once(self) -> None:
        proxy = LosingProxy(lose=1)
        try:
            sent = Client(proxy.url, self.account.api_key).send_sms(SMS)
        finally:
            proxy.close()
        self.assertEqual(len(proxy.keys), 2)
        self.assertRegex(proxy.keys[0] or "", UUID)
        self.assertEqual(proxy.keys[1], proxy.keys[0])
        self.assertEqual(self.account.messages_left(), 99)
        listed = self.client.list_messages(channel="sms")
        self.assertEqual([m["msgid"] for m in listed["data"]], [sent["messages"][0]["msgid"]])

    def test_two_sends_without_a_key_are_two_messages(self) -> None:
        first = self.client.send_sms(SMS)
        second = self.client.send_sms(SMS)
        self.assertNotEqual(first["messages"][0]["msgid"], second["messages"][0]["msgid"])
        self.assertEqual(self.account.messages_left(), 98)

    def test_a_refused_key_is_a_herald_error_with_403_and_the_interfaces_text(self) -> None:
        with self.assertRaises(HeraldError) as raised:
            Client(HERALD_URL, "not-a-key").send_email(EMAIL)
        self.assertEqual([raised.exception.status, raised.exception.kind, str(raised.exception)], [403, "authentication", "Invalid API Key "])

    def test_a_refused_email_is_a_herald_error_with_400_the_text_and_the_offending_addresses(self) -> None:
        with self.assertRaises(HeraldError) as raised:
            self.client.send_email({**EMAIL, "to": [{"email": "ana@"}]})
        error = raised.exception
        self.assertEqual(
            [error.status, error.kind, error.message, error.offending],
            [400, "validation", "The recipient address has the wrong structure!", [{"email": "ana@"}]],
        )

    def test_a_send_above_the_accounts_rate_is_a_herald_error_with_429_the_text_and_retry_after(self) -> None:
        client = Client(HERALD_URL, Account(rate_limit_per_second=1).api_key, retries=0)
        client.send_sms(SMS)
        with self.assertRaises(HeraldError) as raised:
            client.send_sms(SMS)
        error = raised.exception
        self.assertEqual(
            [error.status, error.kind, error.message, error.retry_after],
            [429, "rate_limit", "Ha excedido el límite de peticiones permitidas por segundo.", 1.0],
        )

    def test_a_send_above_the_accounts_rate_is_sent_once_retry_after_has_passed(self) -> None:
        client = Client(HERALD_URL, Account(rate_limit_per_second=1).api_key)
        client.send_sms(SMS)
        started = time.monotonic()
        second = client.send_sms(SMS)
        self.assertGreaterEqual(time.monotonic() - started, 0.9)
        self.assertEqual(second["messages_left"], 98)

    def test_a_whatsapp_session_message_without_an_open_session_is_a_herald_error_with_400(self) -> None:
        with self.assertRaises(HeraldError) as raised:
            self.client.send_whatsapp_message({"destination": "+5215512345678", "message": "Your order has shipped."})
        error = raised.exception
        self.assertEqual([error.status, error.kind, error.message], [400, "application", "No open session with this destination"])

    def test_an_email_batch_with_one_invalid_item_is_answered_item_by_item_and_billed_for_the_accepted_ones(self) -> None:
        items = [EMAIL, {**EMAIL, "subject": ""}, {**EMAIL, "to": [{"email": "bea@example.org"}]}]
        batch = self.client.send_email_batch(items, idempotency_key="batch-2001")
        self.assertEqual(
            [[i["status"], i["message"]] if is_batch_item_error(i) else [i["message"], [t["email"] for t in i["to"]]] for i in batch["data"]],
            [["Email queued for delivery", ["ana@example.org"]], [400, "Subject missing or empty!"], ["Email queued for delivery", ["bea@example.org"]]],
        )
        self.assertEqual(self.account.messages_left(), 98)

    def test_an_email_batch_replayed_with_the_same_idempotency_key_bills_nothing(self) -> None:
        items = [EMAIL, {**EMAIL, "subject": ""}, {**EMAIL, "to": [{"email": "bea@example.org"}]}]
        first = self.client.send_email_batch(items, idempotency_key="batch-2002")
        again = self.client.send_email_batch(items, idempotency_key="batch-2002")
        self.assertEqual(again, first)
        self.assertEqual(self.account.messages_left(), 98)

    def test_an_atomic_sms_batch_with_one_invalid_item_is_a_herald_error_with_its_index(self) -> None:
        items = [SMS, {"message": "Hello", "mobile_numbers": ["12"]}]
        with self.assertRaises(HeraldError) as raised:
            self.client.send_sms_batch(items, atomic=True)
        self.assertEqual([raised.exception.status, raised.exception.body["index"]], [400, 1])
        self.assertEqual(self.account.messages_left(), 100)

    def test_an_sms_scheduled_with_a_datetime_is_cancelled_and_its_message_given_back(self) -> None:
        sent = self.client.send_sms({**SMS, "send_at": datetime.now(timezone.utc) + timedelta(hours=1)})
        msgid = sent["messages"][0]["msgid"]
        self.assertEqual([self.client.get_message(msgid)["status"], self.account.messages_left()], ["scheduled", 99])
        cancelled = self.client.cancel_scheduled(msgid)
        self.assertEqual(cancelled, {"msgid": msgid, "status": "cancelled", "refunded": {"messages": 1, "balance": 0}})
        self.assertEqual([self.client.get_message(msgid)["status"], self.account.messages_left()], ["cancelled", 100])

    def test_a_scheduled_sms_is_moved_to_a_new_time_with_reschedule(self) -> None:
        sent = self.client.send_sms({**SMS, "send_at": datetime.now(timezone.utc) + timedelta(hours=1)})
        msgid = sent["messages"][0]["msgid"]
        later = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(hours=2)
        expected = later.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        self.assertEqual(self.client.reschedule(msgid, later), {"msgid": msgid, "status": "scheduled", "send_at": expected})
        read = self.client.get_message(msgid)
        self.assertEqual([read["status"], read["send_at"]], ["scheduled", expected])

    def test_a_naive_datetime_as_send_at_is_refused_before_sending(self) -> None:
        with self.assertRaisesRegex(ValueError, "^send_at: a datetime needs a timezone"):
            self.client.send_sms({**SMS, "send_at": datetime.now() + timedelta(hours=1)})
        self.assertEqual(self.account.messages_left(), 100)

    def test_a_webhook_endpoints_test_event_verifies_with_that_endpoints_secret(self) -> None:
        first, receiver = WebhookReceiver(), WebhookReceiver()
        try:
            first_secret = self.client.set_webhook_settings({"url": first.url})["secret"]
            url = receiver.url + "/hooks/analytics"
            endpoint = self.client.create_webhook_endpoint({"url": url, "description": "Analytics", "event_types": ["sms.delivered"]})
            self.assertEqual(
                [endpoint["url"], endpoint["description"], endpoint["event_types"], endpoint["first"]],
                [url, "Analytics", ["sms.delivered"], False],
            )
            self.assertNotEqual(endpoint["secret"], first_secret)
            self.client.send_webhook_test_event(endpoint["id"], "webhook.test")
            body, headers = receiver.post("webhook.test")
        finally:
            first.close()
            receiver.close()
        self.assertEqual(verify_webhook(body, headers, endpoint["secret"])["type"], "webhook.test")
        with self.assertRaisesRegex(WebhookVerificationError, "^no signature matches$"):
            verify_webhook(body, headers, first_secret)
        self.assertEqual(first.posts, [])

    def test_a_webhook_endpoint_is_listed_changed_and_deleted(self) -> None:
        receiver = WebhookReceiver()
        try:
            self.client.set_webhook_settings({"url": receiver.url})
            endpoint = self.client.create_webhook_endpoint({"url": receiver.url, "description": "Analytics"})
            self.assertEqual([e["id"] for e in self.client.list_webhook_endpoints()["data"]], [self.account.id, endpoint["id"]])
            changed = self.client.update_webhook_endpoint(endpoint["id"], {"description": "Billing", "enabled": False})
            self.assertEqual([changed["description"], changed["enabled"], changed["disabled_reason"]], ["Billing", False, "disabled by the account"])
            self.assertIsNone(self.client.delete_webhook_endpoint(endpoint["id"]))
            self.assertEqual([e["id"] for e in self.client.list_webhook_endpoints()["data"]], [self.account.id])
        finally:
            receiver.close()


if __name__ == "__main__":
    if not HERALD_URL or not ADMIN_TOKEN:
        sys.exit("set HERALD_URL and HERALD_ADMIN_TOKEN to a running herald and its admin token")
    unittest.main(verbosity=2)
