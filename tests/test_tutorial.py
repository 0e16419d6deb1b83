"""The tutorial's worked example (docs/tutorials/new-algorithm.md), built from its page.

Kinds: smoke (the page's commands run on the algorithm it builds), exact (their outputs are
the page's, the accountant's bound is the proof the page states, the declarations and the
docs' index read it), statistical (the contract's batch-law check, as the contract test runs
it: two-sample Kolmogorov-Smirnov at a fixed seed, failure probability at most 1e-4).

The page marks what a contributor writes: a fenced block whose first line is ``# file: PATH``
(Python) or ``<!-- file: PATH -->`` (Markdown) is the file PATH, whole; the registry block's
marker names ``src/dpbandits/reference/registry.py`` and its other line is the one line added
to ``ALGORITHMS``. A ``text`` block of ``$ COMMAND`` lines is a transcript: each command's
output follows it (``...`` stands for lines left out, and a time ``N.N s`` for any time); a
``py`` block whose first line is ``# run: ...`` is code a contributor runs once the files are in
place, and the ``text`` block after it is its output.

The default tests put the module in a temporary folder that the package's ``bandit`` folder
extends, and register the page's line in the running registry (what adding the line does),
with every cached registry reading emptied for the test. The ``slow`` test applies the page to a
copy of the repository instead (the module in its place, the line in the copy's registry, the
docs page in ``docs/algorithms/``) and runs the commands, the registry-parametrised tests and the
strict docs build on the copy, in processes of their own.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import importlib.util
import io
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "tutorials" / "new-algorithm.md"
REGISTRY = "src/dpbandits/reference/registry.py"

_BLOCK = re.compile(r"^```(\w*)\n(.*?)^```[ \t]*$", flags=re.M | re.S)
_MARKER = re.compile(r"^(?:# file: (?P<py>\S+)|<!-- file: (?P<md>\S+) -->)")
_ENTRY = re.compile(r'^\s*"(?P<name>[a-z0-9-]+)": "(?P<target>[\w.]+:\w+)",\s*$')


@dataclass(frozen=True)
class Tutorial:
    """What the page says a contributor writes and sees."""

    files: dict[str, str]
    """Path (from the repository's root) -> the file's whole text, for the contributor's own
    files."""
    name: str
    """The registered name of the registry line."""
    target: str
    """Its ``module:Class``, relative to ``dpbandits.reference``."""
    transcripts: list[tuple[str, list[str]]]
    """(command without ``$ ``, the output lines the page shows), in the page's order."""
    snippets: list[tuple[str, str]]
    """(code a contributor runs, the output the page shows)."""

    @property
    def module_path(self) -> str:
        """The module's path, which the registry line must name."""
        return "src/dpbandits/reference/" + self.target.split(":")[0].replace(".", "/") + ".py"

    def command(self, prefix: str) -> tuple[str, list[str]]:
        """The one transcript whose command starts with ``prefix``."""
        found = [(c, out) for c, out in self.transcripts if c.startswith(prefix)]
        assert len(found) == 1, f"the page has {len(found)} commands starting {prefix!r}"
        return found[0]


def read(text: str | None = None) -> Tutorial:
    """The tutorial of the page's text (default: the page on disk)."""
    text = PAGE.read_text() if text is None else text
    blocks = [(m.group(1), m.group(2)) for m in _BLOCK.finditer(text)]
    files, entries, transcripts, snippets = {}, [], [], []
    for i, (language, body) in enumerate(blocks):
        first, _, rest = body.partition("\n")
        marker = _MARKER.match(first)
        if marker and (marker.group("py") or marker.group("md")) == REGISTRY:
            entries += [m.groupdict() for m in map(_ENTRY.match, rest.splitlines()) if m]
        elif marker:
            files[marker.group("py") or marker.group("md")] = body
        elif language == "py" and first.startswith("# run:"):
            assert i + 1 < len(blocks) and blocks[i + 1][0] == "text", \
                "a '# run:' block must be followed by a text block of its output"
            snippets.append((body, blocks[i + 1][1]))
        elif language == "text" and first.startswith("$ "):
            command = None
            for line in body.splitlines():
                if line.startswith("$ "):
                    command = line[2:]
                    transcripts.append((command, []))
                else:
                    transcripts[-1][1].append(line)
    assert len(entries) == 1, f"the page adds {len(entries)} registry lines, not one"
    tutorial = Tutorial(files, entries[0]["name"], entries[0]["target"], transcripts, snippets)
    assert tutorial.module_path in files, \
        f"the registry line names {tutorial.target}, whose file {tutorial.module_path} is not " \
        f"on the page (it has {sorted(files)})"
    return tutorial


def matches(expected: list[str], got: str) -> str | None:
    """None when ``got``'s lines are ``expected`` (``...`` standing for any lines, and a time
    ``N.N s`` for any time); else what differs."""
    def norm(line: str) -> str:
        return re.sub(r"\b\d+(\.\d+)? s\b", "<seconds> s", line.rstrip())

    lines = [norm(line) for line in got.splitlines()]
    at = 0
    skipping = False
    for want in expected:
        if want.strip() == "...":
            skipping = True
            continue
        want = norm(want)
        if skipping:
            while at < len(lines) and lines[at] != want:
                at += 1
            skipping = False
        if at >= len(lines) or lines[at] != want:
            return f"expected {want!r}, got {lines[at] if at < len(lines) else 'the end'!r}"
        at += 1
    if not skipping and at != len(lines):
        return f"unexpected line {lines[at]!r}"
    return None


TUTORIAL = read()


def _register(tutorial: Tutorial, folder: Path, monkeypatch, source: str | None = None) -> str:
    """Put the page's module (or ``source``) in ``folder``, which its package's folder list
    extends, and the page's registry line in the registry, every cached reading of the
    registry emptied (the monkeypatch restores them); the module's full name."""
    from dpbandits.reference import registry

    module_name = tutorial.target.split(":")[0]
    package_name, _, leaf = f"dpbandits.reference.{module_name}".rpartition(".")
    package = importlib.import_module(package_name)
    (folder / f"{leaf}.py").write_text(tutorial.files[tutorial.module_path] if source is None
                                       else source)
    monkeypatch.setattr(package, "__path__", [*package.__path__, str(folder)])
    monkeypatch.setitem(registry.ALGORITHMS, tutorial.name, tutorial.target)
    for table in [o for o in gc.get_objects() if isinstance(o, registry.Declared)]:
        monkeypatch.setattr(table, "_table", None)
    return f"{package_name}.{leaf}"


@contextlib.contextmanager
def _forgotten(module: str):
    """Forget ``module`` (imported from a temporary folder) when the block ends, and every
    reading of the registry made meanwhile (a module imported during the block made its own)."""
    from dpbandits.reference.registry import Declared

    try:
        yield module
    finally:
        for table in [o for o in gc.get_objects() if isinstance(o, Declared)]:
            table._table = None
        sys.modules.pop(module, None)
        package, _, leaf = module.rpartition(".")
        if hasattr(sys.modules.get(package), leaf):
            delattr(sys.modules[package], leaf)


@pytest.fixture
def registered(tmp_path, monkeypatch):
    """The page's algorithm, registered by the page's line, for one test."""
    folder = tmp_path / "module"
    folder.mkdir()
    with _forgotten(_register(TUTORIAL, folder, monkeypatch)):
        yield TUTORIAL.name


def _dpbandits(command: str, capsys) -> tuple[int, str]:
    """Run a page's ``dpbandits ...`` command in this process: (exit status, stdout + stderr)."""
    import shlex

    from dpbandits.cli import main

    argv = shlex.split(command)
    assert argv[0] == "dpbandits", command
    capsys.readouterr()
    status = main(argv[1:])
    out, err = capsys.readouterr()
    return status, out + err


def _expected_status(output: list[str]) -> int:
    return 2 if output and output[-1].startswith("dpbandits: error:") else 0


# --- the page itself ----------------------------------------------------------------------------

@pytest.mark.exact
def test_the_page_marks_a_module_a_docs_page_and_one_registry_line():
    assert TUTORIAL.name == "lazy-noisy-greedy"
    assert set(TUTORIAL.files) == {TUTORIAL.module_path,
                                   f"docs/algorithms/{TUTORIAL.name}.md"}
    assert TUTORIAL.module_path == "src/dpbandits/reference/bandit/lazy_noisy_greedy.py"
    assert [c.split()[:2] for c, _ in TUTORIAL.transcripts] == [
        ["dpbandits", "run"], ["dpbandits", "list"], ["dpbandits", "run"], ["dpbandits", "audit"]]
    assert len(TUTORIAL.snippets) == 1


@pytest.mark.exact
def test_the_reader_of_the_page_catches_a_second_registry_line_and_a_wrong_module():
    text = TUTORIAL_TEXT.replace('    "lazy-noisy-greedy": "bandit.lazy_noisy_greedy:LazyNoisyGreedy",',
                                 '    "lazy-noisy-greedy": "bandit.lazy_noisy_greedy:LazyNoisyGreedy",\n'
                                 '    "other": "bandit.other:Other",')
    with pytest.raises(AssertionError, match="2 registry lines"):
        read(text)
    with pytest.raises(AssertionError, match="whose file"):
        read(TUTORIAL_TEXT.replace('"bandit.lazy_noisy_greedy:', '"bandit.lazy_greedy:'))
    assert matches(["a", "...", "c"], "a\nb\nc") is None
    assert matches(["a", "c"], "a\nb\nc") is not None
    assert matches(["took 1.2 s"], "took 0.4 s") is None


TUTORIAL_TEXT = PAGE.read_text()


# --- what a contributor sees, command by command -------------------------------------------------

@pytest.mark.smoke
def test_list_shows_it_as_the_page_does(registered, capsys):
    """``dpbandits list`` (the registry narrowed to the page's algorithm, so that it traces one
    algorithm: the entry is the same in the full list): its claim, the accountant's proof, the
    reference-only backend with the declined kernel's reason, its parameters."""
    from dpbandits.reference import registry

    every = dict(registry.ALGORITHMS)
    registry.ALGORITHMS.clear()                 # (restored in the registry's order: it matters)
    registry.ALGORITHMS[registered] = every[registered]
    try:
        command, expected = TUTORIAL.command("dpbandits list")
        status, output = _dpbandits(command, capsys)
    finally:
        registry.ALGORITHMS.clear()
        registry.ALGORITHMS.update(every)
    assert status == 0
    assert (problem := matches(expected, output)) is None, f"{command}: {problem}\n{output}"
    assert "claim holds at K = 2, T = 6 by the accountant's proof" in output


@pytest.mark.smoke
@pytest.mark.parametrize("which", ["run lazy-noisy-greedy --means", "audit lazy-noisy-greedy"])
def test_run_and_audit_print_what_the_page_shows(registered, which, tmp_path, monkeypatch, capsys):
    """A short run (T = 2000, 100 runs) and the audit on the designed pairs (K = 2, T = 8,
    50 000 runs per side): the outputs the page shows, the audit's bracket a proof at its size."""
    monkeypatch.chdir(tmp_path)
    command, expected = next((c, out) for c, out in TUTORIAL.transcripts
                             if c.startswith(f"dpbandits {which}") and "--backend" not in c)
    status, output = _dpbandits(command, capsys)
    assert status == _expected_status(expected) == 0
    assert (problem := matches(expected, output)) is None, f"{command}: {problem}\n{output}"
    if which.startswith("audit"):
        assert "[0.833, -, 1] claim holds by the accountant (proof at this size: K = 2, T = 8" \
            in output


@pytest.mark.exact
def test_the_compiled_backend_refuses_it_with_the_declined_reason(registered, tmp_path,
                                                                  monkeypatch, capsys):
    """``--backend compiled`` exits 2 with one line giving the reason, before any work (no
    output folder is made), in every command that names the algorithm and takes --backend."""
    monkeypatch.chdir(tmp_path)
    command, expected = TUTORIAL.command("dpbandits run lazy-noisy-greedy --means 0.8 0.6 0.5 "
                                         "--horizon 2000 --epsilon 1 --backend compiled")
    status, output = _dpbandits(command, capsys)
    assert status == _expected_status(expected) == 2
    assert output.splitlines() == expected
    reason = "runs only in the reference (an illustration: no compiled kernel was written for it)"
    for other in (f"audit {registered} --backend compiled --out there",
                  f"audit --all --backend compiled --out there",
                  f"bounds {registered} --epsilon 1 --horizon 100 --backend compiled --out there",
                  f"validate --python examples/validate/implementations.py:PlainLazyUCB "
                  f"--against {registered} --epsilon 1 --backend compiled --out there",
                  f"run ucb1 {registered} --means 0.5 0.4 --horizon 10 --epsilon 1 "
                  f"--backend compiled --out there",
                  "report --budget tiny --backend compiled --out there"):
        status, output = _dpbandits(f"dpbandits {other}", capsys)
        assert status == 2 and len(output.splitlines()) == 1 and reason in output, (other, output)
    assert not (tmp_path / "there").exists() and not (tmp_path / "dpbandits-out").exists()
    from dpbandits.cli import build_parser
    from dpbandits.cli.options import check_backend

    for argv in (["run", "ucb1", "--means", "0.5", "0.4", "--horizon", "10", "--backend",
                  "compiled"], ["run", registered, "--means", "0.5", "0.4", "--horizon", "10",
                                "--epsilon", "1", "--backend", "reference"]):
        check_backend(build_parser().parse_args(argv))      # a kernel, or not compiled: passes


@pytest.mark.exact
def test_the_accountant_proves_the_bound_the_page_states(registered, capsys):
    """The page's Python block, run once the files are in place, prints what the page shows:
    epsilon <= 1, a proof at K = 2, T = 8 for every table with entries in [0, 1]."""
    code, expected = TUTORIAL.snippets[0]
    capsys.readouterr()
    exec(compile(code, str(PAGE), "exec"), {})
    output = capsys.readouterr().out
    assert output.splitlines() == expected.splitlines()
    assert output.startswith("1.0 | proof at this size | K = 2, T = 8, every table with "
                             "entries in [0, 1]")


@pytest.mark.exact
@pytest.mark.parametrize("planted", ["raw numpy noise added with +", "a draw added with +",
                                     "raw numpy noise released"])
def test_noise_outside_the_primitives_gets_the_infinite_bound_the_page_states(planted, tmp_path,
                                                                             monkeypatch):
    """The page's module with its release written as the page warns against: the traced bound
    is infinite; a draw added with + gives the finding the page quotes, raw numpy noise handed
    to ``release`` is not fresh (every row infinite)."""
    from dpbandits.accountant import traced_upper

    source = TUTORIAL.files[TUTORIAL.module_path]
    shared = "sums = release_epoch(self.rng, self.s, (r, a), 1.0 / self.epsilon)"
    assert source.count(shared) == 1
    draw = ("self.rng.laplace(0.0, 1.0 / self.epsilon, r.size)"
            if planted.startswith("raw numpy noise") else "laplace(self.rng, 1.0 / self.epsilon, r.size)")
    written = (f"release(self.s[r, a], {draw})" if planted.endswith("released")
               else f"self.s[r, a] + {draw}")
    indent = " " * 12
    source = source.replace(shared, f"sums = {written}\n{indent}self.s[r, a] = 0.0")
    assert source.count("from dpbandits.reference.noise import decision\n") == 1
    source = source.replace("from dpbandits.reference.noise import decision\n",
                            "from dpbandits.reference.noise import decision, laplace, release\n")
    folder = tmp_path / "planted"
    folder.mkdir()
    with _forgotten(_register(TUTORIAL, folder, monkeypatch, source)):
        bound = traced_upper(TUTORIAL.name, K=2, T=6)
    finding = re.search(r"the finding says so,\n`([^`]+)`", TUTORIAL_TEXT).group(1)
    assert bound.epsilon == float("inf"), bound
    if planted.endswith("added with +"):
        assert finding in bound.findings, bound.findings
    else:                                       # not fresh: every row's loss is infinite
        assert set(bound.per_row.values()) == {float("inf")}, bound.per_row


# --- its tests and its docs -----------------------------------------------------------------------

def _test_module(path: str):
    """A test module of the repository, imported afresh (it reads the registry when imported)."""
    spec = importlib.util.spec_from_file_location(f"tutorial_{Path(path).stem}", ROOT / path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.exact
def test_the_declarations_test_passes_with_its_declined_kernel(registered):
    declarations = _test_module("tests/test_declarations.py")
    assert registered in declarations.CLASSES
    assert declarations.missing(declarations.CLASSES) == []
    declarations.test_declarations_are_well_formed(registered)
    assert declarations.machinery_mismatches(declarations.CLASSES) == []
    from dpbandits.compiled import KERNELS
    from dpbandits.reference.registry import reference_only

    assert registered not in KERNELS
    assert reference_only(registered) == ("an illustration: no compiled kernel was written "
                                          "for it")


@pytest.mark.statistical
def test_the_contract_tests_pass(registered):
    """The family's contract checks (the batch-law check is a two-sample Kolmogorov-Smirnov
    test at a fixed seed, failure probability at most 1e-4)."""
    contract = _test_module("tests/reference/test_contract.py")
    for check in (contract.test_every_registered_algorithm_imports,):
        check(registered)
    for check in (contract.test_actions_valid_and_claim_present,
                  contract.test_deterministic_under_a_seed,
                  contract.test_hidden_rewards_are_never_read,
                  contract.test_bad_input_is_refused,
                  contract.test_one_batch_and_many_single_runs_have_the_same_law):
        check(registered, "paper")


@pytest.mark.exact
def test_it_appears_in_the_docs_index_and_navigation(registered):
    """The site's index of algorithms and its navigation come from the registry; the page's
    markers render its tags and its kernel's reason."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import docs_hooks
    finally:
        sys.path.remove(str(ROOT / "tools"))
    index = docs_hooks.algorithm_index()
    assert f"| [Lazy noisy greedy]({registered}.md) |" in index.split("## Full information")[0]
    nav = docs_hooks.on_config({"nav": [{"Algorithms": ["algorithms/index.md"]}]})["nav"]
    assert nav == [{"Algorithms": ["algorithms/index.md",
                                   *(f"algorithms/{n}.md" for n in _registered())]}]
    assert f"algorithms/{registered}.md" in nav[0]["Algorithms"]
    page = docs_hooks.on_page_markdown(TUTORIAL.files[f"docs/algorithms/{registered}.md"],
                                       None, None, None)
    assert "<!-- dpbandits:" not in page
    assert "[Greedy l.4]" in page and "[Greedy l.2]" in page
    assert "it runs on the reference backend only (an illustration: no compiled kernel" in page
    tutorial = docs_hooks.on_page_markdown(TUTORIAL_TEXT, None, None, None)
    assert tutorial.count("<!-- dpbandits:") == TUTORIAL_TEXT.count("<!-- dpbandits:") > 0


def _registered() -> list[str]:
    from dpbandits.reference.registry import ALGORITHMS

    return list(ALGORITHMS)


# --- the whole path, on a copy of the repository --------------------------------------------------

COPIED = ("src", "tests", "docs", "tools", "examples", "mkdocs.yml", "pyproject.toml", "README.md",
          "CONTRIBUTING.md")
"""What the copy holds: the package, its tests, its docs and what they read."""

REGISTRY_TESTS = ["tests/test_declarations.py", "tests/test_layers.py", "tests/test_citations.py",
                  "tests/test_docs_hooks.py", "tests/audit/test_audit_claims_data.py",
                  "tests/bounds/test_catalogue.py", "tests/test_cli.py",
                  "tests/reference/test_contract.py", "tests/reference/test_domains.py",
                  "tests/test_accountant.py", "tests/audit/test_audit.py", "tests/test_golden.py"]
"""The test modules that walk the registry (each reads ``ALGORITHMS``), and the golden outputs."""


def apply_page(tutorial: Tutorial, root: Path) -> list[str]:
    """Write the page's files into the repository at ``root`` and add its line to the registry;
    what changed, one line each."""
    changed = []
    for path, text in tutorial.files.items():
        assert not (root / path).exists(), path
        (root / path).write_text(text)
        changed.append(f"new {path}")
    registry = root / REGISTRY
    lines = registry.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("ALGORITHMS: dict"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("}"))
    lines.insert(end, f'    "{tutorial.name}": "{tutorial.target}",\n')
    registry.write_text("".join(lines))
    changed.append(f"one line in {REGISTRY}")
    return changed


@pytest.mark.slow
@pytest.mark.smoke
def test_a_copy_of_the_repository_with_the_page_applied_passes_and_documents_it(tmp_path):
    """Following the page on a copy of the repository: its module, its docs page and one
    registry line, then the two regenerated files the page names (its rows of the claims table,
    ``list``'s stored output). The full ``dpbandits list`` prints the page's entry, the tests that
    walk the registry pass with it (those of the algorithm, and every module-wide check), and the
    strict docs build lists it in the index and the navigation. 3 min 35 s to 5 min 14 s on a
    shared 2-core machine."""
    import difflib
    import os

    root = tmp_path / "repo"
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns(
                "__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis"))
        else:
            root.mkdir(exist_ok=True)
            shutil.copy2(source, root / name)
    before = (root / REGISTRY).read_text().splitlines()
    changed = apply_page(TUTORIAL, root)
    after = (root / REGISTRY).read_text().splitlines()
    added = [line for line in difflib.ndiff(before, after) if line[:2] in ("+ ", "- ")]
    assert added == [f'+     "{TUTORIAL.name}": "{TUTORIAL.target}",'], added
    assert changed == [f"new {TUTORIAL.module_path}", f"new docs/algorithms/{TUTORIAL.name}.md",
                       f"one line in {REGISTRY}"]
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "NO_MKDOCS_2_WARNING": "1"}

    def run(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
        done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True)
        assert not check or done.returncode == 0, (argv, done.stdout[-3000:], done.stderr[-3000:])
        return done

    dpbandits = [sys.executable, "-c", "import sys; from dpbandits.cli import main; "
                                       "sys.exit(main())"]
    where = run(sys.executable, "-c", "import dpbandits; print(dpbandits.__file__)").stdout
    assert where.startswith(str(root)), where
    command, expected = TUTORIAL.command("dpbandits list")
    listed = run(*dpbandits, "list", "--epsilon", "1").stdout
    assert (problem := matches(expected, listed)) is None, problem
    # The two regenerated files, by the commands the page names.
    run(*dpbandits, "audit", TUTORIAL.name, "--out", "docs/data", "--no-progress")
    run(sys.executable, "tests/test_golden.py", "--write", "list")
    tests = run(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                *REGISTRY_TESTS, "-k", f"{TUTORIAL.name} or not [", check=False)
    assert tests.returncode == 0, tests.stdout[-5000:]
    built = run(sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                str(tmp_path / "site"))
    index = (tmp_path / "site" / "algorithms" / "index.html").read_text()
    assert index.count(f'href="{TUTORIAL.name}/"') == 2, built.stderr[-2000:]  # table, nav
    home = (tmp_path / "site" / "index.html").read_text()
    assert f'href="algorithms/{TUTORIAL.name}/"' in home                         # the nav
    page = (tmp_path / "site" / "algorithms" / TUTORIAL.name / "index.html").read_text()
    assert "Lazy noisy greedy" in page and "[Greedy l.4]" in page
