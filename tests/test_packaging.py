"""What a platform installs is the `zioncheck` namespace only, and every package folder is in it."""
import importlib
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PROJECT["tool"]["setuptools"]


def package_folders() -> set[str]:
    """Every folder of the repository's layers that is a package (holds "__init__.py"), as its installed name."""
    found = set()
    for name, folder in SETUPTOOLS["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *relative.parts]))
    return found


def test_every_package_folder_is_installed_and_nothing_else():
    assert set(SETUPTOOLS["packages"]) == package_folders()


def test_every_installed_name_is_under_the_zioncheck_namespace():
    assert all(name.startswith("zioncheck.") for name in SETUPTOOLS["packages"])
    assert all(name.startswith("zioncheck.") for name in SETUPTOOLS["package-dir"])
    assert PROJECT["project"]["scripts"]["zioncheck"].startswith("zioncheck.")


def test_the_import_lines_of_the_integration_doc_work():
    for name in ("zioncheck.contracts.commands", "zioncheck.contracts.log", "zioncheck.contracts.views",
                 "zioncheck.client", "zioncheck.services.bus.access"):
        assert importlib.import_module(name).__file__.startswith(str(ROOT))
