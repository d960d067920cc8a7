"""`run_loop`: toolwire's uvicorn serving runs on the event loop uvicorn's config asks for.

uvicorn's `loop="auto"` means uvloop when it is installed; toolwire owns its `uvicorn.Server`
and runs it itself, so it must honour the config's loop factory as `uvicorn.Server.run`
would, or installing uvloop would change nothing.
"""

from __future__ import annotations

import asyncio
import importlib.util

import pytest
import uvicorn

from toolwire.transports.http.run import run_loop

made: list[asyncio.AbstractEventLoop] = []


class MarkedLoop(asyncio.SelectorEventLoop):
    """A loop this test can recognise."""


def marked_loop() -> asyncio.AbstractEventLoop:
    loop = MarkedLoop()
    made.append(loop)
    return loop


async def _running_loop_type() -> type:
    return type(asyncio.get_running_loop())


def test_the_configs_loop_factory_runs_the_server() -> None:
    config = uvicorn.Config(app=None, loop=f"{__name__}:marked_loop")
    assert run_loop(config, _running_loop_type()) is MarkedLoop
    assert len(made) == 1 and made[0].is_closed()


def test_the_asyncio_setting_gives_asyncios_own_loop() -> None:
    config = uvicorn.Config(app=None, loop="asyncio")
    assert issubclass(run_loop(config, _running_loop_type()), asyncio.BaseEventLoop)


@pytest.mark.skipif(importlib.util.find_spec("uvloop") is None, reason="uvloop is not installed")
def test_auto_picks_uvloop_when_it_is_installed() -> None:
    import uvloop

    config = uvicorn.Config(app=None, loop="auto")
    assert run_loop(config, _running_loop_type()) is uvloop.Loop
