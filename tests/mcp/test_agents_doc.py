"""docs/agents.md: every copy-paste block is run as written, with only the placeholder
paths (the checkout, the database) replaced by this test's."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from cairn import Cairn
from cairn.mcp.http import PATH

pytestmark = pytest.mark.slow

DOC = Path(__file__).parents[2] / "docs" / "agents.md"
CHECKOUT = "/home/you/cairn"
DB = "/home/you/.local/share/cairn/cairn.db"
CAIRN = Path(sys.executable).parent / "cairn"  # the console script of the environment running the suite


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)


async def remember_through(command: str, args: list[str], env: dict[str, str], label: str = "") -> set[str]:
    async with Client(StdioServerParameters(command=command, args=args, env=env), read_timeout_seconds=60) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        result = await client.call_tool("memory_remember", {"content": f"Configured through {args} {label}", "kind": "fact"})
        assert not result.is_error, result.content
    return names


def test_the_json_configurations_start_a_working_server(tmp_path):
    configs = [json.loads(b) for b in blocks("json")]
    assert len(configs) == 3  # .mcp.json, Claude Desktop, Cursor
    db = tmp_path / "cairn.db"
    for number, config in enumerate(configs):
        server = config["mcpServers"]["cairn"]
        assert server["command"] == f"{CHECKOUT}/.venv/bin/cairn" and server["env"] == {"CAIRN_DB": DB}
        names = anyio.run(remember_through, str(CAIRN), server["args"], {"CAIRN_DB": str(db)}, f"block {number}")
        assert "memory_recall" in names
    with Cairn(db, space="my-project") as project, Cairn(db) as default:
        assert project.list().total == 1  # the .mcp.json block serves its own space
        assert default.list().total == 2


def test_the_claude_code_command_starts_a_working_server(tmp_path):
    [add] = [line for b in blocks("sh") for line in b.splitlines() if line.startswith("claude mcp add cairn --scope")]
    words = shlex.split(add)
    options, command = words[:words.index("--")], words[words.index("--") + 1:]
    key, value = options[options.index("-e") + 1].split("=", 1)
    assert command[0] == "$(pwd)/.venv/bin/cairn" and (key, value) == ("CAIRN_DB", "$HOME/.local/share/cairn/cairn.db")
    db = tmp_path / "cairn.db"
    anyio.run(remember_through, str(CAIRN), command[1:], {"CAIRN_DB": str(db)})
    with Cairn(db) as cairn:
        assert cairn.list().total == 1


def test_the_python_client_example_runs(tmp_path):
    [example] = blocks("python")
    script = tmp_path / "client.py"
    script.write_text(example.replace(".venv/bin/cairn", str(CAIRN)).replace(DB, str(tmp_path / "cairn.db")))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "quoted text is data" in done.stdout and '"The user indents Python code with tabs, not spaces"' in done.stdout


def test_the_http_block_matches_the_server():
    [http] = [b for b in blocks("sh") if "--http" in b]
    assert "cairn mcp --http 127.0.0.1:8765" in http
    assert f"http://127.0.0.1:8765{PATH}" in http and '"Authorization: Bearer $CAIRN_MCP_TOKEN"' in http
    assert "export CAIRN_MCP_TOKEN=" in http


def test_the_readme_gives_the_same_one_command_set_up():
    readme = (DOC.parents[1] / "README.md").read_text(encoding="utf-8")
    [add] = [line for b in blocks("sh") for line in b.splitlines() if line.startswith("claude mcp add cairn --scope")]
    assert add in readme and "docs/agents.md" in readme
