"""Sync tool bodies in process: the cost of one call through a server's `SyncBudget`.

Run from the repository root:

    .venv/bin/python -m tests.benchmarks.bench_sync_calls [--calls 5000]

`operator.add(2, 3)` through `run_sync_within(budget, ...)`, after 500 uncounted calls:
sequentially, then 32 at a time; wall time and CPU time (the process's) per call. Prints
numbers only, asserts nothing about time.
"""

from __future__ import annotations

import argparse
import asyncio
import operator
import time

from toolwire.tools.threads import SyncBudget, run_sync_within


async def _measure(calls: int) -> str:
    budget = SyncBudget(8)
    for _ in range(500):
        assert await run_sync_within(budget, operator.add, (2, 3), {}) == 5
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        await run_sync_within(budget, operator.add, (2, 3), {})
    sequential = ((time.perf_counter() - wall) / calls, (time.process_time() - cpu) / calls)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls // 32):
        batch = (run_sync_within(budget, operator.add, (2, 3), {}) for _ in range(32))
        assert await asyncio.gather(*batch) == [5] * 32
    done = calls // 32 * 32
    concurrent = ((time.perf_counter() - wall) / done, (time.process_time() - cpu) / done)
    budget.retire()
    return (
        f"sequential: wall {sequential[0] * 1e6:.1f} us, cpu {sequential[1] * 1e6:.1f} us | "
        f"32 at a time: wall {concurrent[0] * 1e6:.1f} us, cpu {concurrent[1] * 1e6:.1f} us"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000, help="calls per measurement")
    print(asyncio.run(_measure(parser.parse_args().calls)))


if __name__ == "__main__":
    main()
