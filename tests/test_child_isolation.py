"""Code in the folder uno-table is started from never runs: every child process (the web's
fan-out, the /stats build, the MQTT sender) starts isolated from the current folder, in a
working folder it cannot write code into. The test plants a ``table/__init__.py`` in the
current folder, starts each child for real, and shows the planted file never ran."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from table import CHILD_FOLDER, child_command
from table.commands.service import command
from table.mqtt.sender_link import SENDER, RemotePublisher
from table.mqtt.settings import MqttSettings
from table.web.relay import Relay
from table.web.stats import build_in_child


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A current folder holding a ``table`` package of an attacker's; the file it writes
    when it runs."""
    marker = tmp_path / "ran.txt"
    (tmp_path / "table").mkdir()
    (tmp_path / "table" / "__init__.py").write_text(
        f"open({str(marker)!r}, 'a').write('planted code ran\\n')\n", encoding="utf-8")
    (tmp_path / "table" / "web").mkdir()
    (tmp_path / "table" / "web" / "__init__.py").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # even a path given in the environment
    return marker


def test_the_stats_build_runs_the_installed_package(planted: Path, tmp_path: Path,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "journal.sqlite").touch()  # a journal of no match yet: the report says so
    report = build_in_child(Path("journal.sqlite"), "en")  # relative to the current folder
    assert not planted.exists(), planted.read_text()
    assert "could not be built" not in caplog.text  # the child answered, as the real one
    assert "<html" in report.html.lower()


def test_the_fanout_runs_the_installed_package(planted: Path) -> None:
    async def start_and_stop() -> int | None:
        gone = asyncio.Event()
        relay = Relay(asyncio.get_running_loop(), 0, lambda page: None, gone.set)
        relay.stop(timeout=30)
        return relay.proc.returncode

    asyncio.run(start_and_stop())
    assert not planted.exists(), planted.read_text()


def test_the_mqtt_sender_runs_the_installed_package(planted: Path) -> None:
    pytest.importorskip("paho.mqtt")
    publisher = RemotePublisher(MqttSettings("127.0.0.1", 1, table="t1"), "t1")
    publisher.start()
    try:
        assert publisher.answered.wait(60), "the sender never reported"
    finally:
        publisher.close()
    assert not planted.exists(), planted.read_text()


def test_every_child_command_is_isolated() -> None:
    for words in (SENDER, child_command("table.web.fanout", "3"), command()):
        if words[0] == sys.executable or words[0].endswith("python") or "-m" in words:
            assert words[1] == "-I", words
    folder = Path(CHILD_FOLDER)
    assert folder.is_absolute() and (os.geteuid() == 0 or not os.access(folder, os.W_OK))
