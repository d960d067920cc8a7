"""`RequestsInFlight` on its own: the table of a session's running requests, driven without a
session, on a real event loop, its frames read back as JSON."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from toolwire.protocol.session.requests_in_flight import Backlog, CallInFlight, RequestsInFlight
from toolwire.protocol.wire.jsonrpc import INVALID_PARAMS, FrameKind, ProtocolError, RequestId

Sent = list[tuple[dict[str, Any], RequestId | None]]


def _run(body: Callable[[RequestsInFlight, Backlog, Sent], Awaitable[None]]) -> Sent:
    sent: Sent = []

    async def send(frame: bytes, kind: FrameKind, request_id: RequestId | None) -> None:
        assert kind is FrameKind.REPLY
        sent.append((json.loads(frame), request_id))

    async def main() -> None:
        backlog = Backlog()
        requests = RequestsInFlight(send, backlog)
        await body(requests, backlog, sent)
        await requests.wait()

    asyncio.run(main())
    return sent


def _call(request_id: RequestId) -> CallInFlight:
    async def send(frame: bytes, kind: FrameKind, request_id: RequestId | None) -> None:
        raise AssertionError("nothing reports in these tests")

    return CallInFlight(send, None, None, request_id)


def test_a_request_is_in_the_table_until_its_reply_and_counted_by_the_backlog() -> None:
    seen: list[tuple[int, int]] = []

    async def body(requests: RequestsInFlight, backlog: Backlog, sent: Sent) -> None:
        release = asyncio.Event()

        async def work() -> dict[str, Any]:
            await release.wait()
            return {"value": 7}

        requests.answer_in_task(_call(1), work)
        await asyncio.sleep(0)
        seen.append((len(requests), backlog.calls))
        release.set()
        await requests.wait()
        seen.append((len(requests), backlog.calls))

    sent = _run(body)
    assert seen == [(1, 1), (0, 0)]
    assert sent == [({"jsonrpc": "2.0", "id": 1, "result": {"value": 7}}, 1)]


def test_a_protocol_error_is_its_reply_and_any_other_failure_an_internal_error() -> None:
    async def body(requests: RequestsInFlight, backlog: Backlog, sent: Sent) -> None:
        async def refused() -> dict[str, Any]:
            raise ProtocolError(INVALID_PARAMS, "bad 'x'", {"field": "x"})

        async def broken() -> dict[str, Any]:
            raise RuntimeError("secret detail")

        requests.answer_in_task(_call("a"), refused)
        requests.answer_in_task(_call("b"), broken)

    replies = {request_id: frame for frame, request_id in _run(body)}
    assert replies["a"]["error"] == {
        "code": INVALID_PARAMS,
        "message": "bad 'x'",
        "data": {"field": "x"},
    }
    assert replies["b"]["error"] == {"code": -32603, "message": "Internal error"}


def test_an_id_in_flight_is_a_duplicate_until_its_request_ends() -> None:
    answers: list[bool] = []

    async def body(requests: RequestsInFlight, backlog: Backlog, sent: Sent) -> None:
        async def work() -> dict[str, Any]:
            return {}

        answers.append(requests.is_duplicate(5))
        requests.answer_in_task(_call(5), work)
        answers.append(requests.is_duplicate(5))
        await requests.wait()
        answers.append(requests.is_duplicate(5))

    _run(body)
    assert answers == [False, True, False]


def test_a_cancelled_request_sends_nothing_and_is_reported_unanswered_once_over() -> None:
    events: list[str] = []

    async def body(requests: RequestsInFlight, backlog: Backlog, sent: Sent) -> None:
        requests.unanswered = lambda request_id: events.append(f"unanswered {request_id}")

        async def work() -> dict[str, Any]:
            try:
                await asyncio.sleep(60)
            finally:
                events.append("work ended")
            return {}

        requests.answer_in_task(_call(3), work)
        await asyncio.sleep(0)
        events.append(f"cancel 3: {requests.cancel(3)}")
        events.append(f"cancel 4: {requests.cancel(4)}")
        await requests.wait()

    assert _run(body) == []
    assert events == ["cancel 3: True", "cancel 4: False", "work ended", "unanswered 3"]


def test_refusing_all_answers_each_once_with_the_error() -> None:
    async def body(requests: RequestsInFlight, backlog: Backlog, sent: Sent) -> None:
        async def work() -> dict[str, Any]:
            await asyncio.sleep(60)
            return {"late": True}

        for request_id in (1, 2):
            requests.answer_in_task(_call(request_id), work)
        await asyncio.sleep(0)
        assert await requests.refuse_all(-32000, "Server shutting down") == 2
        await requests.wait()
        assert len(requests) == 0

    sent = _run(body)
    assert sorted(request_id for _, request_id in sent) == [1, 2]
    for frame, request_id in sent:
        assert frame == {
            "jsonrpc": "2.0",
            "id": request_id,
            "error": {"code": -32000, "message": "Server shutting down"},
        }
