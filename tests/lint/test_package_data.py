"""The bundled samples ship as package data: a wheel of the project, installed with nothing else,
loads the GAIA sample and the AIME references from the installed package, not the source tree.

The wheel is built from a copy of the project's build inputs (pyproject.toml, README.md, evalui/)
in a temporary folder, so the build writes no build/ or egg-info into the working tree that other
test runs are reading. The build is offline: --no-build-isolation uses the test environment's
setuptools (the `test` extra requires one that builds wheels by itself).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import evalui
from evalui.benchmarks.aime import references
from evalui.benchmarks.gaia import data

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import json, sys
from pathlib import Path
import evalui
from evalui.benchmarks.gaia.data import BUNDLED_SAMPLE, load_bundled_sample
from evalui.benchmarks.aime import references

questions = load_bundled_sample()
pool, pool_source = references.reference_pool("bundled")
real, real_source = references.aime25("bundled")
print(json.dumps({
    "evalui": evalui.__file__,
    "sample_dir": str(BUNDLED_SAMPLE),
    "questions": [{"task_id": q.task_id, "question": q.question, "answer": q.final_answer, "level": q.level,
                   "file_name": q.file_name, "file_path": q.file_path, "steps": q.steps,
                   "attachment": Path(q.file_path).read_bytes().hex() if q.file_path else None}
                  for q in questions],
    "pool": [[p.problem_id, p.problem, p.answer, p.topic] for p in pool], "pool_source": pool_source,
    "real": [[p.problem_id, p.problem, p.answer, p.topic] for p in real], "real_source": real_source,
}))
"""


def _pip(*args: str, cwd: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pip", *args, "--no-deps", "--no-index",
                           "--disable-pip-version-check", "--quiet"],
                          cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"pip {args[0]} failed:\n{done.stdout}\n{done.stderr}"


def test_a_wheel_install_loads_the_bundled_gaia_sample_and_aime_references(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "evalui", source / "evalui", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))

    dist = tmp_path / "dist"
    _pip("wheel", "--no-build-isolation", "-w", str(dist), ".", cwd=source)
    [wheel] = dist.glob("evalui-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    for expected in ("evalui/data/gaia_sample/2023/validation/metadata.jsonl",
                     "evalui/data/gaia_sample/2023/validation/red_square.png",
                     "evalui/data/aime_sample/references.jsonl",
                     "evalui/data/aime_sample/aime25_fallback.jsonl"):
        assert expected in names, f"{expected} is not in {wheel.name}"

    site = tmp_path / "site"
    _pip("install", "--target", str(site), str(wheel), cwd=tmp_path)
    shutil.rmtree(source)  # nothing may still point into the copy it was built from

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "EVALUI_DATA_DIR": str(tmp_path / "evalui_data"),
           "HF_HUB_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=elsewhere, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    installed = json.loads(done.stdout.strip().splitlines()[-1])

    # The installed package answered, from its own data folder, not from the source tree.
    installed_root = (site / "evalui").resolve()
    assert Path(installed["evalui"]).resolve() == installed_root / "__init__.py"
    assert Path(installed["sample_dir"]) == installed_root / "data" / "gaia_sample"
    assert str(ROOT) not in done.stdout

    # GAIA: the six tasks with their answers, levels, steps and attachments.
    questions = installed["questions"]
    assert [q["task_id"] for q in questions] == [f"evalui-sample-000{i}" for i in range(1, 7)]
    by_id = {q["task_id"]: q for q in questions}
    assert by_id["evalui-sample-0001"]["question"] == "What is the chemical symbol of gold?"
    assert by_id["evalui-sample-0001"]["answer"] == "Au" and by_id["evalui-sample-0001"]["file_path"] is None
    assert [q["level"] for q in questions] == ["1", "1", "2", "2", "3", "3"]
    assert by_id["evalui-sample-0003"]["answer"] == "Mercury, Venus, Earth"
    assert by_id["evalui-sample-0006"]["steps"] == 5
    attached = {q["file_name"]: q for q in questions if q["file_name"]}
    assert set(attached) == {"orders.csv", "planets.txt", "red_square.png", "cities.json"}
    for name, question in attached.items():
        path = Path(question["file_path"])
        assert path.parent == installed_root / "data" / "gaia_sample" / "2023" / "validation"
        assert bytes.fromhex(question["attachment"]) == (data.BUNDLED_SAMPLE / "2023" / "validation" / name).read_bytes()
    assert bytes.fromhex(attached["red_square.png"]["attachment"]).startswith(b"\x89PNG")
    assert "Marseille" in bytes.fromhex(attached["cities.json"]["attachment"]).decode()
    # The same questions as the working tree's loader gives, apart from where the files live.
    assert [(q["task_id"], q["question"], q["answer"], q["level"], q["steps"]) for q in questions] == \
        [(q.task_id, q.question, q.final_answer, q.level, q.steps) for q in data.load_bundled_sample()]

    # AIME: ten reference problems and eight AIME 2025 stand-ins, integer answers, from the bundle.
    assert installed["pool_source"].startswith("bundled sample") and installed["real_source"].startswith("bundled sample")
    pool, real = installed["pool"], installed["real"]
    assert len(pool) == 10 and len(real) == 8
    assert pool[0] == ["evalui-ref-01", "Find the number of ordered pairs $(a,b)$ of positive integers such that "
                       "$a+b=100$ and $\\gcd(a,b)=1$.", 40, "number theory"]
    assert real[1][0] == "evalui-real-02" and real[1][2] == 324
    assert all(isinstance(answer, int) and 0 <= answer <= 999 for _, _, answer, _ in pool + real)
    assert pool == [[p.problem_id, p.problem, p.answer, p.topic] for p in references.reference_pool("bundled")[0]]
    assert real == [[p.problem_id, p.problem, p.answer, p.topic] for p in references.aime25("bundled")[0]]
    assert Path(evalui.__file__).resolve().parent != installed_root
