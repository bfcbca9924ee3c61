"""The package as a user gets it: the generated sync client is current, Pyright (strict, Python 3.9)
passes over the package and these tests, and a wheel built here installs and imports in a fresh
virtual environment."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
REPO_ROOT = PACKAGE_ROOT.parent.parent


def run(*command: str, cwd: Path = PACKAGE_ROOT) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_sync_client_is_generated_from_the_async_one() -> None:
    run(sys.executable, "scripts/generate_sync.py", "--check")


def test_pyright_strict_for_python_3_9() -> None:
    pyright = REPO_ROOT / "node_modules" / ".bin" / "pyright"
    output = run(str(pyright), "--pythonpath", sys.executable)
    assert "0 errors" in output


def test_the_wheel_installs_into_a_fresh_virtual_environment(tmp_path: Path) -> None:
    source = tmp_path / "source"
    shutil.copytree(PACKAGE_ROOT, source, ignore=shutil.ignore_patterns("__pycache__", "build", "dist", "*.egg-info"))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", str(tmp_path / "wheels"), str(source))
    (wheel,) = (tmp_path / "wheels").glob("vigil-1.0.0-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "vigil/py.typed" in names and "vigil/_sync/resources/alerts.py" in names
    assert not [name for name in names if name.startswith("tests/")]

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--system-site-packages", str(venv))
    python = str(venv / "bin" / "python")
    run(python, "-m", "pip", "install", "--no-deps", "--no-index", str(wheel))
    imported = run(
        python,
        "-c",
        "import vigil, httpx; print(vigil.__version__, vigil.__file__); vigil.Vigil(api_key='svc_live_x'); vigil.AsyncVigil(api_key='svc_live_x')",
        cwd=tmp_path,
    )
    version, location = imported.split()
    assert version == "1.0.0" and location.startswith(str(venv))
