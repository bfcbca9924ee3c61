"""The checks of tests/test_package.py that need no server: Pyright over the package and the tests,
and a wheel built, installed into a fresh virtual environment and imported. They take most of a
minute of CPU, so they start in a thread when the session starts and run beside the other tests;
test_package.py asserts on what they found."""

import concurrent.futures
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
REPO_ROOT = PACKAGE_ROOT.parent.parent


def run(*command: str, cwd: Path = PACKAGE_ROOT) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@dataclass
class Installed:
    wheel: Path
    venv: Path
    # What `import vigil` in the virtual environment printed: the version and the module's file.
    imported: str


def pyright_output() -> str:
    pyright = REPO_ROOT / "node_modules" / ".bin" / "pyright"
    return run(str(pyright), "--pythonpath", sys.executable)


def build_and_install(work: Path) -> Installed:
    source = work / "source"
    shutil.copytree(PACKAGE_ROOT, source, ignore=shutil.ignore_patterns("__pycache__", "build", "dist", "*.egg-info"))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--wheel-dir", str(work / "wheels"), str(source))
    (wheel,) = (work / "wheels").glob("vigil-1.0.0-*.whl")
    venv = work / "venv"
    # Without a pip of its own (ensurepip takes seconds): the system's pip, seen through the system
    # site-packages, installs into the environment whose interpreter runs it.
    run(sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv))
    python = str(venv / "bin" / "python")
    run(python, "-m", "pip", "install", "--no-deps", "--no-index", str(wheel))
    imported = run(
        python,
        "-c",
        "import vigil, httpx; print(vigil.__version__, vigil.__file__); vigil.Vigil(api_key='svc_live_x'); vigil.AsyncVigil(api_key='svc_live_x')",
        cwd=work,
    )
    return Installed(wheel=wheel, venv=venv, imported=imported)


@dataclass
class PackageChecks:
    pyright: "concurrent.futures.Future[str]"
    installed: "concurrent.futures.Future[Installed]"


def start_package_checks(executor: concurrent.futures.ThreadPoolExecutor, work: Path) -> PackageChecks:
    """Both checks, one after the other in one thread: beside the tests, not beside each other."""
    return PackageChecks(pyright=executor.submit(pyright_output), installed=executor.submit(build_and_install, work))
