"""A server whose tools fork children without exec and terminate them."""

import multiprocessing
import os
import time

from toolwire import Server

server = Server("forker", version="1")


_slow_start = False


def _start_slowly():
    if _slow_start:  # this child is still in its at-fork hooks when its SIGTERM arrives
        time.sleep(1.0)


os.register_at_fork(after_in_child=_start_slowly)


def _sleep():
    time.sleep(60)


def _square(n):
    return n * n


def _fork_and_terminate() -> str:
    child = multiprocessing.get_context("fork").Process(target=_sleep)
    child.start()
    time.sleep(0.2)
    child.terminate()
    child.join(20)
    return f"exitcode={child.exitcode}"


@server.tool
def terminate_a_child() -> str:
    """Fork a child, then terminate it."""
    return _fork_and_terminate()


@server.tool
def terminate_a_slow_starting_child() -> str:
    """Fork a child that is still in its at-fork hooks when it is terminated."""
    global _slow_start
    _slow_start = True  # read by the child the fork makes meanwhile
    try:
        return _fork_and_terminate()
    finally:
        _slow_start = False


@server.tool
def pool_squares() -> list[int]:
    """Square with a fork pool (its `with` block terminates the workers)."""
    with multiprocessing.get_context("fork").Pool(2) as pool:
        return pool.map(_square, range(5))


@server.tool
def ping() -> str:
    """Answer pong."""
    return "pong"
