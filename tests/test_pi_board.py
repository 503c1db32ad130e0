"""rpi-lgpio's RPi.GPIO on every Pi, on purpose: doctor reads the board's model and the
installed module, and says when the original is there instead (or too).

The installations are folders laid out as pip leaves them: ``RPi/GPIO/__init__.py`` as the
package that wrote it last has it (the first lines of RPi.GPIO 0.7.1's and rpi-lgpio 0.6's),
and a ``.dist-info`` folder per installed package.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from daemon_harness import write_config

from sim.hardware.ptys import PtyReader
from table.commands import doctor as doctor_module
from table.commands.cli import main
from table.commands.doctor import check_gpio_library
from table.readers import pi_board

ROOT = Path(__file__).resolve().parent.parent

MODULE = {  # the start of each package's RPi/GPIO/__init__.py
    "RPi.GPIO": '"""This package provides a Python module to control the GPIO on a Raspberry Pi"""'
                "\nfrom RPi._GPIO import *\nVERSION = '0.7.1'\n",
    "rpi-lgpio": "import os\nimport sys\nimport struct\nimport warnings\n\nimport lgpio\n",
}
DIST_INFO = {"RPi.GPIO": "RPi.GPIO-0.7.1.dist-info", "rpi-lgpio": "rpi_lgpio-0.6.dist-info"}
PI5 = "Raspberry Pi 5 Model B Rev 1.0"
PI4 = "Raspberry Pi 4 Model B Rev 1.4"


def site(tmp_path: Path, *installed: str) -> list[str]:
    """A site-packages where ``installed`` were installed in that order."""
    folder = tmp_path / "site-packages"
    for package in installed:
        (folder / "RPi/GPIO").mkdir(parents=True, exist_ok=True)
        (folder / "RPi/__init__.py").write_text("")
        (folder / "RPi/GPIO/__init__.py").write_text(MODULE[package])
        info = folder / DIST_INFO[package]
        info.mkdir()
        version = info.name.split("-")[1].removesuffix(".dist-info")
        info.joinpath("METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n")
    folder.mkdir(exist_ok=True)
    return [str(folder)]


def model(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "model"
    path.write_bytes(name.encode() + b"\0")  # as the device tree has it
    return path


BOARDS = [PI5, "Raspberry Pi 500 Rev 1.0", "Raspberry Pi Compute Module 5 Rev 1.0", PI4,
          "Raspberry Pi 400 Rev 1.0", "Raspberry Pi Compute Module 4 Rev 1.0",
          "Raspberry Pi 3 Model B Plus Rev 1.3", "Raspberry Pi Zero 2 W Rev 1.0",
          "Raspberry Pi Model B Plus Rev 1.2"]


@pytest.mark.parametrize("board", BOARDS)
def test_every_board_has_rpi_lgpio(board: str) -> None:
    """The original's edge detection fails on Bookworm's kernels 6.6+ on every board."""
    assert (pi_board.wanted(board), pi_board.extra(pi_board.wanted(board))) == ("rpi-lgpio", "pi")


def test_the_pi_extra_never_brings_the_original_rpi_gpio() -> None:
    """What pip installs for ``.[pi]`` (and the old ``.[pi5]``): lgpio under RPi.GPIO's API and
    gpiozero, and neither the original RPi.GPIO nor mfrc522, which would pull it in."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    for name in ("pi", "pi5"):
        names = {re.split(r"[<>=\[ ;]", req)[0].lower() for req in extras[name]}
        assert {"rpi-lgpio", "lgpio", "gpiozero"} <= names, name
        assert not names & {"rpi.gpio", "mfrc522"}, name


@pytest.mark.parametrize("board", [PI5, PI4])
def test_a_pi_with_the_original_rpi_gpio_is_told_what_to_do(tmp_path: Path, board: str) -> None:
    found = check_gpio_library(model(tmp_path, board), site(tmp_path, "RPi.GPIO"))
    assert [f.line() for f in found] == [
        f"FIX  RPi.GPIO: RPi.GPIO's is installed; a {board} needs rpi-lgpio's\n"
        "       -> pip uninstall -y RPi.GPIO rpi-lgpio; then, in the checkout, "
        "pip install -e '.[pi]' && pip install --no-deps mfrc522==0.0.7 "
        "(docs/hardware.md: Setting up the Pi)"]


def test_both_installed_is_found_whichever_came_last(tmp_path: Path) -> None:
    """The order pip happened to install them in decides the module: said either way."""
    original_last = check_gpio_library(model(tmp_path, PI4),
                                       site(tmp_path / "a", "rpi-lgpio", "RPi.GPIO"))
    assert [f.what for f in original_last] == [f"RPi.GPIO: RPi.GPIO's is installed; a {PI4} "
                                               "needs rpi-lgpio's"]
    assert "pip install -e '.[pi]'" in original_last[0].fix
    lgpio_last = check_gpio_library(model(tmp_path, PI4),
                                    site(tmp_path / "b", "RPi.GPIO", "rpi-lgpio"))
    assert [(f.ok, f.what) for f in lgpio_last] == [
        (False, "RPi.GPIO: rpi-lgpio's, but RPi.GPIO is installed too and the next install of "
                "either decides which one is imported")]


@pytest.mark.parametrize("board", [PI5, PI4])
def test_rpi_lgpio_alone_is_ok(tmp_path: Path, board: str) -> None:
    found = check_gpio_library(model(tmp_path, board), site(tmp_path, "rpi-lgpio"))
    assert [(f.ok, f.what) for f in found] == [(True, f"RPi.GPIO: rpi-lgpio's, as a {board} "
                                                      "needs")]


def test_none_installed_and_off_a_pi(tmp_path: Path) -> None:
    found = check_gpio_library(model(tmp_path, PI5), site(tmp_path))
    assert [(f.ok, f.what) for f in found] == [
        (False, f"RPi.GPIO: not installed; a {PI5} needs rpi-lgpio's")]
    assert check_gpio_library(tmp_path / "no-model", site(tmp_path)) == []
    assert check_gpio_library(model(tmp_path, "Generic x86 PC"), site(tmp_path)) == []


def test_doctor_checks_it_for_a_table_with_gpio(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(pi_board, "MODEL_FILE", model(tmp_path, PI5))
    monkeypatch.setattr(doctor_module, "check_reader", lambda spec, timeout, *more: [])
    PtyReader(tmp_path / "pad")
    plain = write_config(tmp_path)
    main(["doctor", "--config", str(plain)])
    assert "RPi.GPIO" not in capsys.readouterr().out  # serial readers only: no GPIO
    buttons = write_config(tmp_path, extra='\n[controls]\npin_factory = "mock"\nbuzzer = 26\n')
    main(["doctor", "--config", str(buttons)])
    # This machine's own installation has the original (the test extra's mfrc522 pulls it).
    assert f"FIX  RPi.GPIO: RPi.GPIO's is installed; a {PI5} needs rpi-lgpio's" in (
        capsys.readouterr().out)
