"""The package as a user gets it: the generated sync client is current, Pyright (strict, Python 3.9)
passes over the package and these tests, and a wheel built here installs and imports in a fresh
virtual environment (those two run from the session's start: tests/support/package_checks.py)."""

import sys
import zipfile

from tests.support.package_checks import PackageChecks, run


def test_the_sync_client_is_generated_from_the_async_one() -> None:
    run(sys.executable, "scripts/generate_sync.py", "--check")


def test_pyright_strict_for_python_3_9(package_checks: PackageChecks) -> None:
    output = package_checks.pyright.result()
    assert "0 errors" in output


def test_the_wheel_installs_into_a_fresh_virtual_environment(package_checks: PackageChecks) -> None:
    installed = package_checks.installed.result()
    names = zipfile.ZipFile(installed.wheel).namelist()
    assert "vigil/py.typed" in names and "vigil/_sync/resources/alerts.py" in names
    assert not [name for name in names if name.startswith("tests/")]
    version, location = installed.imported.split()
    assert version == "1.0.0" and location.startswith(str(installed.venv))
