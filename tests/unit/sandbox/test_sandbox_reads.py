"""The GAIA python tool's programs read the interpreter and its libraries, never the stored runs.

Run as the app is run from the project folder (``python app.py``, ``python -m evalui``: the
current folder is the checkout, ``sys.path[0]`` is the checkout, the data folder lies under it),
a program must not read the data folder (the store's WAL, another run's samples), a file in the
current folder, or the checkout's own sources, while pandas still imports from the environment.
"""
from __future__ import annotations

import pytest

from evalui.sandbox.local import landlock_abi

pytestmark = pytest.mark.skipif(not landlock_abi(), reason="the kernel has no Landlock")


def test_a_readable_folder_holding_a_forbidden_one_is_carved(tmp_path):
    from evalui.sandbox.readable import carve

    root = tmp_path / "usr"
    (root / "lib" / "python").mkdir(parents=True)
    (root / "src" / "app" / "evalui_data").mkdir(parents=True)
    (root / "src" / "app" / "app.py").write_text("")
    (root / "src" / "other").mkdir()
    (root / "share").mkdir()
    (root / "src" / "data-link").symlink_to(root / "src" / "app" / "evalui_data")  # a rule would follow it
    (root / "lib" / "python" / ".venv").mkdir()
    refused = [(str(root / "src" / "app"), False), (str(root / "src" / "app" / "evalui_data"), True)]
    kept = carve(str(root), refused)
    # The app folder is cut out, its siblings and the rest stay, one rule each; an entry linking into it is dropped
    # (a link inside a granted folder is harmless: Landlock checks where it leads).
    assert sorted(kept) == sorted([str(root / "lib"), str(root / "share"), str(root / "src" / "other")])
    # A folder inside a refused checkout (a .venv there) stays readable; one inside the data folder does not.
    assert carve(str(root / "src" / "app" / "evalui_data"), refused) == []
    venv = root / "src" / "app" / ".venv"
    venv.mkdir()
    assert carve(str(venv), refused) == [str(venv)]
