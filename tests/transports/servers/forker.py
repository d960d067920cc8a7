"""A server whose tools fork children without exec and terminate them."""

import multiprocessing
import time

from toolwire import Server

server = Server("forker", version="1")


def _sleep():
    time.sleep(60)


def _square(n):
    return n * n


@server.tool
def terminate_a_child() -> str:
    """Fork a child, then terminate it."""
    child = multiprocessing.get_context("fork").Process(target=_sleep)
    child.start()
    time.sleep(0.2)
    child.terminate()
    child.join(20)
    return f"exitcode={child.exitcode}"


@server.tool
def pool_squares() -> list[int]:
    """Square with a fork pool (its `with` block terminates the workers)."""
    with multiprocessing.get_context("fork").Pool(2) as pool:
        return pool.map(_square, range(5))


@server.tool
def ping() -> str:
    """Answer pong."""
    return "pong"
