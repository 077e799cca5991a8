"""Build hook of the torpor Python package: puts libtorpor.so and torpor.h in torpor/_native/.

The C library is built with CMake from the repository this folder sits in
(target torpor_shared; CUDA too when nvcc is found; more CMake options in
TORPOR_CMAKE_ARGS), unless TORPOR_BUILD_DIR names a build directory that
already has libtorpor.so. The package itself is
pure Python over CFFI's ABI mode; the wheel is tagged for this platform because
it carries the library.
"""
import os
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent.parent


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        build_dir = os.environ.get("TORPOR_BUILD_DIR")
        if build_dir:
            build = Path(build_dir).resolve()
        else:
            build = Path(self.build_lib).resolve().parent / "torpor-cmake"
            extra = os.environ.get("TORPOR_CMAKE_ARGS", "").split()  # e.g. -DTORPOR_CUDA=OFF
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                                   "-DTORPOR_TESTS=OFF", *extra])
            subprocess.check_call(["cmake", "--build", str(build), "--target", "torpor_shared", "--parallel"])
        library = build / "libtorpor.so"
        if not library.exists():
            raise RuntimeError(f"{library} was not built")
        native = Path(self.build_lib) / "torpor" / "_native"
        native.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(library.resolve(), native / "libtorpor.so")
        for header in (ROOT / "include").glob("torpor*.h"):
            shutil.copyfile(header, native / header.name)


class PlatformDistribution(Distribution):
    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibrary}, distclass=PlatformDistribution)
