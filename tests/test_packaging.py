"""What a platform installs is the `zioncheck` namespace only, and every package folder is in it, data folders too."""
import importlib
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PROJECT["tool"]["setuptools"]


def package_folders() -> set[str]:
    """Every folder of the repository's layers that holds a file, as its installed name: setuptools takes any
    such folder for a package, and warns of one it installs files from that `packages` leaves out."""
    found = set()
    for name, folder in SETUPTOOLS["package-dir"].items():
        for file in (ROOT / folder).rglob("*"):
            relative = file.parent.relative_to(ROOT / folder)
            if file.is_file() and "__pycache__" not in relative.parts:
                found.add(".".join([name, *relative.parts]))
    return found


def test_every_package_folder_is_installed_and_nothing_else():
    assert set(SETUPTOOLS["packages"]) == package_folders()


def test_each_data_folder_is_a_package_with_its_own_data():
    """Data under a package's subfolder (`static/*` of zioncheck.services.gateway) is what setuptools warns of."""
    data = SETUPTOOLS["package-data"]
    assert all(pattern.count("/") == 0 for patterns in data.values() for pattern in patterns)
    assert set(data) <= set(SETUPTOOLS["packages"])
    for package in ("zioncheck.contracts.words", "zioncheck.services.gateway.static"):
        assert package in data


def test_every_installed_name_is_under_the_zioncheck_namespace():
    assert all(name.startswith("zioncheck.") for name in SETUPTOOLS["packages"])
    assert all(name.startswith("zioncheck.") for name in SETUPTOOLS["package-dir"])
    assert PROJECT["project"]["scripts"]["zioncheck"].startswith("zioncheck.")


def test_the_import_lines_of_the_integration_doc_work():
    for name in ("zioncheck.contracts.commands", "zioncheck.contracts.log", "zioncheck.contracts.views",
                 "zioncheck.client", "zioncheck.services.bus.access"):
        assert importlib.import_module(name).__file__.startswith(str(ROOT))
