"""Puts the component into the package before it is built.

`./dev build` leaves it in the repository's `dist/`; a wheel or an install
from this directory carries a copy (`src/memcap/memcap.wasm`), with the
licence of the embedding model compiled into it (`MODEL-LICENSE`).
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).parent
BUILT = HERE / "../../dist/memcap.wasm"
PACKAGED = HERE / "src/memcap/memcap.wasm"
MODEL_LICENSE = HERE / "../../embed/MODEL-LICENSE"


class BuildWithComponent(build_py):
    def run(self):
        if BUILT.is_file():
            shutil.copyfile(BUILT, PACKAGED)
        if MODEL_LICENSE.is_file():
            shutil.copyfile(MODEL_LICENSE, PACKAGED.with_name("MODEL-LICENSE"))
        if not PACKAGED.is_file():
            raise SystemExit("memcap.wasm is missing: run `./dev build` in the repository first")
        super().run()


setup(cmdclass={"build_py": BuildWithComponent})
