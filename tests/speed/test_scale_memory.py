"""The scale ladder reads the peak resident memory of the part it measures: the peak is
reset between the claims' import and their recalls, so a large import batch does not
stand for the recalls' memory."""

from __future__ import annotations

import sys

import pytest

from cairn.bench.scale import _peak_rss_mb


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/status and clear_refs are Linux's")
def test_the_peak_falls_back_after_a_reset_once_the_memory_is_freed():
    block = bytearray(64 * 1024 * 1024)  # zero-filled by the allocator: touched, resident
    block[:: 4096] = b"x" * len(block[:: 4096])
    high = _peak_rss_mb()
    assert high is not None and high >= 64
    del block  # a block this large is its own mapping: freeing it returns it to the system
    assert (_peak_rss_mb(reset=True) or 0) > high - 1  # before the reset: the peak so far (counters are approximate)
    low = _peak_rss_mb()
    assert low is not None and low < high - 32  # without the reset the peak would still be `high`
