"""The docs keep up with the code: every rules option and preset in docs/rules.md, with its
values, default and the sentence it rests on; every command in the README's command table and
every option of it somewhere in the docs; every link and every path named in them pointing at
something that exists; the layout page naming every module and the import direction the layout
test enforces; and a README under 10 KB."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

from test_layout import ALLOWED

from table.commands.cli import build_parser
from table.rules.options import PRESETS, SPECS, OptionSpec

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
# Paths of the repository named in the docs, in backticks: `table/rules/engine.py`.
REPO_PATH = re.compile(r"`((?:table|sim|firmware_bridge|tests|bench|hw_tests|examples|docs|\.ci)"
                       r"/[\w./-]*)`")


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


def without_code_blocks(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def anchors(text: str) -> set[str]:
    """The anchors GitHub makes of a page's headings."""
    seen: dict[str, int] = {}
    out = set()
    for line in without_code_blocks(text).splitlines():
        if not line.startswith("#"):
            continue
        slug = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_the_readme_is_under_10_kb() -> None:
    size = len(README.read_bytes())
    assert size < 10 * 1024, f"README.md is {size} bytes: move the detail into docs/"


def test_every_link_of_the_readme_and_the_docs_reaches_a_file_and_a_heading() -> None:
    wrong = []
    for page in PAGES:
        text = without_code_blocks(page.read_text(encoding="utf-8"))
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT)}: ({target})"
            if not file.exists():
                wrong.append(f"{where}: no file {path}")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text()):
                wrong.append(f"{where}: no heading #{anchor} in {path or page.name}")
    assert not wrong, "\n".join(wrong)


def test_every_path_the_docs_name_exists() -> None:
    wrong = [f"{page.relative_to(ROOT)}: `{path}`" for page in PAGES
             for path in REPO_PATH.findall(page.read_text(encoding="utf-8"))
             if "/build/" not in path and not (ROOT / path).exists()]
    assert not wrong, "\n".join(wrong)


def commands(parser: argparse.ArgumentParser, prefix: str = "") -> Iterator[
        tuple[str, argparse.ArgumentParser]]:
    """Every command of ``parser`` ("deck check" for a subcommand) and its own parser."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
                if nested:
                    yield from commands(sub, f"{prefix}{name} ")
                else:
                    yield f"{prefix}{name}", sub


def test_every_command_is_in_the_readme_command_table() -> None:
    text = README.read_text(encoding="utf-8")
    table = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    missing = [name for name, _ in commands(build_parser())
               if not any(re.match(rf"\| `uno-table {name}[ `]", row) for row in rows)]
    assert missing == [], f"commands missing from the README's command table: {missing}"


def test_every_option_of_every_command_is_in_the_readme_or_the_docs() -> None:
    text = " ".join(page.read_text(encoding="utf-8") for page in PAGES)
    missing = [f"uno-table {name} {option}" for name, sub in commands(build_parser())
               for action in sub._actions for option in action.option_strings
               if option.startswith("--") and option != "--help"
               and not re.search(rf"{re.escape(option)}(?![\w-])", text)]
    assert missing == [], f"options not in the README or docs/: {missing}"


def test_the_layout_page_names_every_module() -> None:
    text = (DOCS / "layout.md").read_text(encoding="utf-8")
    modules = [path.relative_to(ROOT).as_posix() for folder in ("table", "sim", "firmware_bridge")
               for path in sorted((ROOT / folder).rglob("*.py"))
               if "__pycache__" not in path.parts and path.name != "__init__.py"]
    missing = [m for m in modules if f"`{m}`" not in text]
    assert missing == [], f"modules docs/layout.md does not name: {missing}"


def test_the_layout_page_gives_the_import_direction_the_layout_test_enforces() -> None:
    text = (DOCS / "layout.md").read_text(encoding="utf-8")
    table = text.split("## Import direction", 1)[1].split("\n## ", 1)[0]
    documented = {m[1]: frozenset(re.findall(r"`(\w+)`", m[2]))
                  for m in re.finditer(r"^\| `(\w+)` \| (.*) \|$", table, re.M)}
    assert documented == ALLOWED


# A file the docs name and the definition in it, each in backticks, one after the other:
# `table/runtime/step.py` `TableStep.__call__`; a bare file name (`serial_reader.py`) sits in
# the folder of the path named before it.
FILE_AND_NAME = re.compile(r"`([\w./-]+\.py)`(?:\s+`([A-Za-z_][\w.]*)[^`]*`)?")
WALKED = ("one-tap.md", "design.md", "layout.md")  # the pages that walk through the code
REPO_TOPS = (".", "table", "table/*", "table/rules/variants", "sim/*", "firmware_bridge", "tests",
             "bench", "hw_tests")  # the folders a file named alone is looked for in


def defined(path: Path, name: str) -> bool:
    """Whether ``path`` defines ``name`` (a function, class or value at its top, or
    ``Class.member``: a method, a class attribute or an attribute set on ``self``)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))

    def names(body: list[ast.stmt]) -> dict[str, ast.AST]:
        found: dict[str, ast.AST] = {}
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                found[node.name] = node
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                found.update((t.id, node) for t in targets if isinstance(t, ast.Name))
        return found

    first, _, member = name.partition(".")
    top = names(tree.body)
    if first not in top:
        return False
    if not member:
        return True
    cls = top[first]
    if not isinstance(cls, ast.ClassDef):
        return False
    on_self = {node.attr for node in ast.walk(cls) if isinstance(node, ast.Attribute)
               and isinstance(node.value, ast.Name) and node.value.id == "self"
               and isinstance(node.ctx, ast.Store)}
    return member in names(cls.body) or member in on_self


def test_every_file_and_definition_the_walkthroughs_name_exists() -> None:
    wrong: list[str] = []
    for page in WALKED:
        folder = ROOT
        for path, name in FILE_AND_NAME.findall((DOCS / page).read_text(encoding="utf-8")):
            if "/" in path and not (ROOT / path.split("/")[0]).is_dir():
                continue  # another project's file (python-chess's `chess/variant.py`)
            file = ROOT / path if "/" in path else folder / path
            if "/" in path:
                folder = file.parent
            elif not file.is_file():  # a file of the repository named by its name alone
                found = [f for top in REPO_TOPS for f in ROOT.glob(f"{top}/{path}")]
                file = found[0] if len(found) == 1 else file
            if not file.is_file():
                wrong.append(f"docs/{page}: no file `{path}`")
            elif name and not defined(file, name):
                wrong.append(f"docs/{page}: `{path}` defines no `{name}`")
    assert not wrong, "\n".join(wrong)


def test_a_definition_is_found_only_where_it_is(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("X = 1\ndef f(): pass\nclass C:\n    y: int\n"
                      "    def g(self):\n        self.z = 1\n", encoding="utf-8")
    assert all(defined(source, n) for n in ("X", "f", "C", "C.y", "C.g", "C.z"))
    assert not any(defined(source, n) for n in ("g", "C.f", "f.x", "D"))


def test_every_choice_in_docs_rules_says_what_decides_it() -> None:
    """A choice the seeds leave open says so ("Choice (no seed decides):"); one read from a
    seed names it ("Choice (read from [002]):"), and a reading it leaves out is an option."""
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    marked = re.compile(r"\s+\((no seed decides|read from \[(\d{3}|NNN)\]|`[^`]+`; each read from)")
    unmarked = [text[m.start():m.start() + 60].replace("\n", " ")
                for m in re.finditer(r"\bChoices?\b", text) if not marked.match(text, m.end())]
    assert unmarked == [], "docs/rules.md: mark each choice as the page's opening says"
