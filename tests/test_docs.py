"""The docs keep up with the code: every rules option and preset in docs/rules.md, with its
values, default and the sentence it rests on."""

from __future__ import annotations

import re
from pathlib import Path

from table.rules.options import PRESETS, SPECS, OptionSpec

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def sections(text: str, level: str = "###") -> dict[str, str]:
    """Each heading of ``level`` (its text) to the text under it, up to the next heading."""
    out: dict[str, str] = {}
    heading = None
    for line in text.splitlines():
        if line.startswith("#"):
            heading = line[len(level) + 1:].strip() if line.split(" ", 1)[0] == level else None
            if heading is not None:
                out[heading] = ""
        elif heading is not None:
            out[heading] += line + "\n"
    return out


def word(value: str | int | bool) -> str:
    """A value as the docs and the configuration write it."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def option_problems(spec: OptionSpec, body: str) -> list[str]:
    problems = []
    flat = " ".join(body.split())
    if f"Default `{word(spec.default)}`." not in flat:
        problems.append(f"no 'Default `{word(spec.default)}`.'")
    for choice in spec.choices:
        if f"`{choice}`" not in flat:
            problems.append(f"value `{choice}` not described")
    number = isinstance(spec.default, int) and not isinstance(spec.default, bool)
    if number and f"from {spec.low} to {spec.high}" not in flat:
        problems.append(f"range 'from {spec.low} to {spec.high}' not given")
    if not re.search(r"\[00\d\][^「]*「", flat) and "No seed sentence" not in flat:
        problems.append("no seed sentence quoted with its source, and no 'No seed sentence'")
    return problems


def test_every_rules_option_is_in_docs_rules_with_its_values_default_and_seed() -> None:
    documented = sections((DOCS / "rules.md").read_text(encoding="utf-8"))
    wrong = []
    for name, spec in SPECS.items():
        body = documented.get(f"`{name}`")
        if body is None:
            wrong.append(f"{name}: no '### `{name}`' section in docs/rules.md")
            continue
        wrong += [f"{name}: {problem}" for problem in option_problems(spec, body)]
    assert not wrong, "\n".join(wrong)


def test_docs_rules_documents_no_option_the_engine_lacks() -> None:
    documented = sections((DOCS / "rules.md").read_text(encoding="utf-8"))
    names = {h.strip("`") for h in documented if re.fullmatch(r"`[a-z0-9_]+`", h)}
    assert names - set(SPECS) == set()


def test_every_preset_is_in_docs_rules_with_what_it_sets() -> None:
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    rows = {m[1]: m[2] for m in re.finditer(r"^\| `([a-z-]+)` \|(.*)$", text, re.M)}
    wrong = []
    for preset, overrides in PRESETS.items():
        if preset not in rows:
            wrong.append(f"{preset}: no row in the presets table")
            continue
        wrong += [f"{preset}: `{key}={word(value)}` missing" for key, value in overrides.items()
                  if f"`{key}={word(value)}`" not in rows[preset]]
    assert not wrong, "\n".join(wrong)
