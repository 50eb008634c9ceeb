"""`cairn setup claude-code`: merge into existing settings, idempotent, exact uninstall."""

from __future__ import annotations

import json
import shutil

import pytest

from cairn.cli import main
from cairn.host import setup
from testkit.host import HOST_DATA

FIXTURES = HOST_DATA / "fixtures"
CAIRN = ["/opt/cairn/bin/cairn", "--db", "/home/dev/.local/share/cairn/cairn.db"]


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "shop"
    (root / ".claude").mkdir(parents=True)
    shutil.copy(FIXTURES / "settings_existing.json", root / ".claude" / "settings.json")
    shutil.copy(FIXTURES / "mcp_existing.json", root / ".mcp.json")
    return root


def install(project, home, uninstall=False):
    return setup.apply(setup.plan(scope="project", cairn=CAIRN, project=project, home=home, uninstall=uninstall))


def test_setup_merges_without_clobbering(project, tmp_path):
    before = json.loads((project / ".claude" / "settings.json").read_text())
    done = install(project, tmp_path)
    assert [c.action for c, _ in done] == ["updated", "updated"]
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["permissions"] == before["permissions"]
    assert settings["hooks"]["PreToolUse"] == before["hooks"]["PreToolUse"]
    prompt_hooks = [h["command"] for g in settings["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert prompt_hooks == ["/usr/local/bin/prompt-logger", setup.hook_command(CAIRN, "user-prompt-submit")]
    assert settings["hooks"]["SessionEnd"][0]["hooks"][0]["command"].endswith("hook claude-code session-end")
    servers = json.loads((project / ".mcp.json").read_text())["mcpServers"]
    assert set(servers) == {"github", "cairn"}
    assert servers["cairn"] == {"type": "stdio", "command": CAIRN[0], "args": [*CAIRN[1:], "mcp"]}
    backups = [b for _, b in done]
    assert all(b is not None and b.exists() for b in backups)
    assert json.loads(backups[0].read_text()) == before


def test_setup_is_idempotent_byte_for_byte(project, tmp_path):
    install(project, tmp_path)
    first = {p: p.read_bytes() for p in (project / ".claude" / "settings.json", project / ".mcp.json")}
    again = install(project, tmp_path)
    assert [c.action for c, _ in again] == ["unchanged", "unchanged"]
    assert {p: p.read_bytes() for p in first} == first


def test_uninstall_removes_exactly_what_setup_added(project, tmp_path):
    original = {p: json.loads(p.read_text()) for p in (project / ".claude" / "settings.json", project / ".mcp.json")}
    install(project, tmp_path)
    install(project, tmp_path, uninstall=True)
    assert {p: json.loads(p.read_text()) for p in original} == original


def test_uninstall_leaves_a_look_alike_that_is_not_ours(project, tmp_path):
    path = project / ".claude" / "settings.json"
    doc = json.loads(path.read_text())
    doc["hooks"]["Stop"] = [{"hooks": [{"type": "command", "command": "echo cairn hooked"}]}]
    path.write_text(json.dumps(doc))
    install(project, tmp_path, uninstall=True)
    assert json.loads(path.read_text())["hooks"]["Stop"] == doc["hooks"]["Stop"]


def test_a_fresh_project_gets_new_files(tmp_path):
    root = tmp_path / "empty"
    root.mkdir()
    done = install(root, tmp_path)
    assert [c.action for c, _ in done] == ["created", "created"] and all(b is None for _, b in done)
    assert "UserPromptSubmit" in json.loads((root / ".claude" / "settings.json").read_text())["hooks"]


def test_a_broken_settings_file_is_refused_and_untouched(project, tmp_path, capsys, monkeypatch):
    path = project / ".claude" / "settings.json"
    path.write_text("{ not json")
    monkeypatch.chdir(project)
    assert main(["setup", "claude-code"]) == 1
    assert "not valid JSON" in capsys.readouterr().err
    assert path.read_text() == "{ not json"
    assert json.loads((project / ".mcp.json").read_text()) == json.loads((FIXTURES / "mcp_existing.json").read_text())


def test_dry_run_prints_a_diff_and_writes_nothing(project, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(tmp_path))
    before = (project / ".claude" / "settings.json").read_bytes()
    assert main(["--db", str(tmp_path / "c.db"), "setup", "claude-code", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "+" in out and "hook claude-code user-prompt-submit" in out
    assert (project / ".claude" / "settings.json").read_bytes() == before
    assert not list(project.rglob("*.cairn-backup"))


def test_user_scope_writes_to_the_home_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert main(["--json", "setup", "claude-code", "--user"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [c["path"] for c in doc["changes"]] == [str(tmp_path / ".claude" / "settings.json"), str(tmp_path / ".claude.json")]
    assert (tmp_path / ".claude.json").exists()


def test_the_setup_commands_of_docs_agents_run_as_written(tmp_path, monkeypatch, capsys):
    """docs/agents.md's set-up block: every command parses and runs (dry-run added where the
    line does not already say what to do, so the test writes only under tmp_path)."""
    import re
    import shlex

    doc = (HOST_DATA.parent.parent / "docs" / "agents.md").read_text(encoding="utf-8")
    lines = [re.sub(r"\s+#.*$", "", line).strip() for line in doc.splitlines() if line.startswith("cairn setup claude-code")]
    assert len(lines) >= 4
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    for line in lines:
        argv = shlex.split(line)[1:]
        assert main(["--db", str(tmp_path / "c.db"), *argv]) == 0, line
    capsys.readouterr()
