"""Alarms: rung from the shared clock thread into their loop, on time, once per setting."""

from __future__ import annotations

import asyncio
import functools
import gc
import subprocess
import sys
import threading
import time
import weakref

import pytest

from adecore_lsp import _alarm
from adecore_lsp._alarm import Alarm


class Rings:
    """Records when and in which thread an alarm's callback ran."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.threads: list[int] = []
        self.event = asyncio.Event()

    def __call__(self) -> None:
        self.times.append(time.monotonic())
        self.threads.append(threading.get_ident())
        self.event.set()


async def test_an_alarm_rings_in_its_loop_not_before_its_time() -> None:
    """The callback runs in the loop's thread, at or after the time set, and once."""
    rings = Rings()
    alarm = Alarm(rings)
    due = time.monotonic() + 0.05
    alarm.set(due)
    assert alarm.due == due
    await asyncio.wait_for(rings.event.wait(), 2)
    assert rings.times[0] >= due
    assert rings.threads == [threading.get_ident()]
    assert alarm.due == float("inf")
    await asyncio.sleep(0.05)
    assert len(rings.times) == 1
    alarm.close()


async def test_setting_again_replaces_the_time() -> None:
    """An earlier time rings early; a later one keeps the old time from ringing."""
    rings = Rings()
    alarm = Alarm(rings)
    start = time.monotonic()
    alarm.set(start + 60)
    alarm.set(start + 0.02)
    await asyncio.wait_for(rings.event.wait(), 2)
    assert time.monotonic() - start < 30
    rings.event.clear()
    later = time.monotonic()
    alarm.set(later + 0.02)
    alarm.set(later + 0.15)
    await asyncio.wait_for(rings.event.wait(), 2)
    assert rings.times[1] >= later + 0.15
    assert len(rings.times) == 2
    alarm.close()


async def test_alarms_ring_in_time_order() -> None:
    """Several alarms of one loop ring earliest first."""
    order: list[int] = []
    done = asyncio.Event()
    now = time.monotonic()

    def ring(n: int) -> None:
        order.append(n)
        if len(order) == 4:
            done.set()

    alarms = [Alarm(functools.partial(ring, n)) for n in range(4)]
    for n, delay in enumerate((0.08, 0.02, 0.06, 0.04)):
        alarms[n].set(now + delay)
    await asyncio.wait_for(done.wait(), 2)
    assert order == [1, 3, 2, 0]
    for alarm in alarms:
        alarm.close()


async def test_a_closed_alarm_never_rings_and_lets_go_of_its_callback() -> None:
    """close() stops the alarm for good and drops the callback, so nothing is kept alive."""
    rings = Rings()
    alarm = Alarm(rings)
    alarm.set(time.monotonic() + 0.02)
    alarm.close()
    alarm.set(time.monotonic() + 0.01)  # ignored once closed
    watcher = weakref.ref(rings)
    del rings
    gc.collect()
    assert watcher() is None
    await asyncio.sleep(0.08)
    assert alarm.due == float("inf")


async def test_a_closed_loop_does_not_stop_the_clock() -> None:
    """An alarm whose loop was closed is skipped; other loops' alarms still ring."""
    orphan = Alarm(lambda: None)

    async def set_orphan() -> None:
        orphan.set(time.monotonic() + 0.05)

    # Set in a loop of another thread, which asyncio.run closes before the alarm is due.
    await asyncio.to_thread(asyncio.run, set_orphan())
    rings = Rings()
    alarm = Alarm(rings)
    alarm.set(time.monotonic() + 0.15)  # after the orphan has rung into its closed loop
    await asyncio.wait_for(rings.event.wait(), 2)
    assert orphan.due == float("inf")  # it rang, and nothing came of it
    alarm.close()


async def test_moved_alarms_leave_a_bounded_heap() -> None:
    """Each move leaves a stale entry; the heap is pruned before they pile up."""
    alarm = Alarm(lambda: None)
    start = time.monotonic() + 3600
    for n in range(10_000):
        alarm.set(start - n)
    clock = _alarm._CLOCK
    assert len(clock._heap) <= 2 * len(clock._live) + _alarm._COMPACT_AT + 1
    alarm.close()


def test_a_forked_child_gets_a_clock_of_its_own() -> None:
    """After fork, the child's alarms ring although the parent's clock thread is not there."""
    script = """
import asyncio, os, sys, time
from adecore_lsp._alarm import Alarm

async def ring_once():
    event = asyncio.Event()
    alarm = Alarm(event.set)
    alarm.set(time.monotonic() + 0.02)
    await asyncio.wait_for(event.wait(), 2)
    alarm.close()

asyncio.run(ring_once())  # the parent's clock thread is running now
pid = os.fork()
if pid == 0:
    try:
        asyncio.run(ring_once())
    except BaseException:
        os._exit(1)
    os._exit(0)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""
    if not hasattr(__import__("os"), "fork"):
        pytest.skip("no fork on this platform")
    result = subprocess.run(
        [sys.executable, "-W", "ignore::DeprecationWarning", "-c", script],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
