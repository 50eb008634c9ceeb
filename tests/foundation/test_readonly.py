"""A read-only database: reads work, every write is refused with one line, nothing changes."""

from __future__ import annotations

import os

import pytest

from cairn import Cairn, StoreUnavailable
from testkit import run_cli_process
from testkit.db import db_fingerprint


def test_store_opened_read_only_refuses_writes(db_path, clock):
    with Cairn(db_path, now=clock) as c:
        mid = c.remember("Readable but not writable", kind="fact").memory.id
    before = db_fingerprint(db_path)
    with Cairn(db_path, read_only=True, now=clock) as ro:
        assert ro.get(mid).content == "Readable but not writable"
        with pytest.raises(StoreUnavailable) as err:
            ro.remember("Must not be written", kind="fact")
        assert "read-only" in str(err.value)
        with pytest.raises(StoreUnavailable):
            ro.forget(mid)
    assert db_fingerprint(db_path) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_file_is_a_clean_refusal(db_path):
    with Cairn(db_path) as c:
        c.remember("Readable but not writable", kind="fact")
    os.chmod(db_path, 0o400)
    try:
        result = run_cli_process("--db", str(db_path), "remember", "Must not be written", "--kind", "fact")
    finally:
        os.chmod(db_path, 0o600)
    assert result.returncode == 1 and result.stderr.count("\n") == 1
