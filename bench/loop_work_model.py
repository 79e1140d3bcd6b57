"""How much work per sample the run's event loop can do beside its HTTP exchange before the 10 ms
case falls behind the bare client, in one process and with the exchange in a process of its own.

A model, not evalui: W microseconds of CPU (a busy loop holding the interpreter lock) stand for
what evalui does per sample on its loop besides the exchange (judging, packing, storing, counting).
All 3,641 single-turn request bodies at C = 64 against the 10 ms bench/fast_peer.py, for each W:

- ``one process``: an aiohttp client that spends W after each answer, on its loop;
- ``exchange apart``: the same aiohttp client in a forked child process that only exchanges; the
  parent hands it each body over a socket pair, gets the answer back and spends W.

Each is timed beside the bare client (W = 0, one process), best of REPEATS, interleaved. The
question it answers (issue 41): does a process for the HTTP exchange pay on this machine, or must
the loop's own work per sample shrink? engine_budget.py gives evalui's own W (its loop CPU per
sample minus the bare client's). Nothing is asserted.

Run: cd bench && ../.venv/bin/python loop_work_model.py   (EVALUI_BENCH_REPEATS, default 3;
EVALUI_BENCH_WORK_US, default "0,60,100,140,180")
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import socket
import statistics
import struct
import tempfile
import time
from pathlib import Path

from engine_ceiling import bare_aiohttp, request_bodies
from fast_peer import FastPeer

from evalui.benchmarks.bfcl.scoring.single_turn import CATEGORIES

REPEATS = int(os.environ.get("EVALUI_BENCH_REPEATS", "3"))
WORK_US = [int(w) for w in os.environ.get("EVALUI_BENCH_WORK_US", "0,60,100,140,180").split(",")]
CONCURRENCY, LATENCY_S = 64, 0.010
FRAME = struct.Struct("!II")  # call id, payload length
HEADERS = {"content-type": "application/json"}


def spend(seconds: float) -> None:
    """Hold the interpreter for ``seconds`` of this thread's CPU, as the loop's own work does."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


async def one_process(url: str, bodies: list[bytes], work_s: float) -> None:
    import aiohttp

    gate = asyncio.Semaphore(CONCURRENCY)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONCURRENCY)) as session:
        async def one(body: bytes) -> None:
            async with gate:
                async with session.post(url, data=body, headers=HEADERS) as reply:
                    json.loads(await reply.read())
                spend(work_s)

        await asyncio.gather(*(one(body) for body in bodies))


def exchanger(channel: socket.socket, url: str) -> None:
    """The child: every framed body it reads is posted, and its answer framed back."""
    import aiohttp

    async def serve() -> None:
        reader, writer = await asyncio.open_unix_connection(sock=channel)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=CONCURRENCY)) as session:
            async def one(call: int, body: bytes) -> None:
                async with session.post(url, data=body, headers=HEADERS) as reply:
                    answer = await reply.read()
                writer.write(FRAME.pack(call, len(answer)) + answer)

            tasks = set()
            while True:
                try:
                    call, size = FRAME.unpack(await reader.readexactly(FRAME.size))
                    body = await reader.readexactly(size)
                except asyncio.IncompleteReadError:
                    return
                task = asyncio.ensure_future(one(call, body))
                tasks.add(task)
                task.add_done_callback(tasks.discard)

    asyncio.run(serve())


async def exchange_apart(channel: socket.socket, bodies: list[bytes], work_s: float) -> None:
    loop = asyncio.get_running_loop()
    reader, writer = await asyncio.open_unix_connection(sock=channel)
    waiting: dict[int, asyncio.Future] = {}

    async def answers() -> None:
        while True:
            try:
                call, size = FRAME.unpack(await reader.readexactly(FRAME.size))
                waiting.pop(call).set_result(await reader.readexactly(size))
            except asyncio.IncompleteReadError:
                return

    reading = asyncio.ensure_future(answers())
    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(call: int, body: bytes) -> None:
        async with gate:
            waiting[call] = answer = loop.create_future()
            writer.write(FRAME.pack(call, len(body)) + body)
            json.loads(await answer)
            spend(work_s)

    await asyncio.gather(*(one(call, body) for call, body in enumerate(bodies)))
    writer.close()
    reading.cancel()


def timed_apart(url: str, bodies: list[bytes], work_s: float) -> float:
    parent, child = socket.socketpair()
    process = multiprocessing.get_context("fork").Process(target=exchanger, args=(child, url), daemon=True)
    process.start()
    child.close()
    try:
        time.sleep(1.0)  # the child's imports, outside the timing
        began = time.perf_counter()
        asyncio.run(exchange_apart(parent, bodies, work_s))
        return time.perf_counter() - began
    finally:
        parent.close()
        process.join(5)
        if process.is_alive():
            process.kill()


def timed(coroutine) -> float:
    began = time.perf_counter()
    asyncio.run(coroutine)
    return time.perf_counter() - began


def main() -> None:
    categories = list(CATEGORIES)
    bodies = request_bodies(categories, None)
    print(f"loop work model: {len(bodies)} requests, C = {CONCURRENCY}, {LATENCY_S * 1000:.0f} ms "
          f"(best of {REPEATS}; machine: {os.cpu_count()} cores, shared)")
    times: dict[tuple[str, int], list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        peer = FastPeer(categories, LATENCY_S, Path(folder) / "peer.log")
        url = peer.base_url + "/chat/completions"
        try:
            for _ in range(REPEATS):
                times.setdefault(("bare", 0), []).append(timed(bare_aiohttp(url, bodies, CONCURRENCY)))
                for work_us in WORK_US:
                    work_s = work_us / 1e6
                    times.setdefault(("one process", work_us), []).append(timed(one_process(url, bodies, work_s)))
                    times.setdefault(("exchange apart", work_us), []).append(timed_apart(url, bodies, work_s))
        finally:
            peer.stop()
    bare, bare_median = min(times[("bare", 0)]), statistics.median(times[("bare", 0)])
    print(f"  bare aiohttp client: best {bare:.2f} s, median {bare_median:.2f} s")
    print(f"  {'W (us)':>7s}  {'one process':>24s}  {'exchange apart':>24s}   (best s, x bare; median x bare)")
    for work_us in WORK_US:
        cells = []
        for label in ("one process", "exchange apart"):
            runs = times[(label, work_us)]
            cells.append(f"{min(runs):5.2f} s {min(runs) / bare:5.2f} x; {statistics.median(runs) / bare_median:4.2f} x")
        print(f"  {work_us:7d}  {cells[0]:>24s}  {cells[1]:>24s}")


if __name__ == "__main__":
    main()
