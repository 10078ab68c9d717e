"""What to install when a library the referee needs is missing: one line naming the package.

A Raspberry Pi OS Lite image has no X libraries, and ``opencv-python``'s ``cv2`` needs some of
them (``libxcb.so.1``, ``libGL.so.1``); the import then fails deep inside a command. The command
line turns such an :class:`ImportError` into one :class:`~referee.errors.UserError` line that names
the Debian package (or the pip package) to install, instead of a traceback.

>>> print(install_hint(ImportError("libxcb.so.1: cannot open shared object file: No such file")))
a system library is missing: libxcb.so.1; install it with: sudo apt install libxcb1 libgl1 libglib2.0-0
(docs/hardware.md §1)
>>> str(install_hint(ModuleNotFoundError("No module named 'cv2'", name="cv2")))
'OpenCV is not installed in this Python: .venv/bin/pip install opencv-python (docs/hardware.md §1)'
"""

from __future__ import annotations

import re

from referee.errors import UserError

#: Shared libraries the runtime's wheels load, and the Debian (Bookworm) package that provides each.
DEBIAN_PACKAGES: dict[str, str] = {
    "libxcb.so.1": "libxcb1",
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libSM.so.6": "libsm6",
    "libICE.so.6": "libice6",
    "libXext.so.6": "libxext6",
    "libX11.so.6": "libx11-6",
    "libgomp.so.1": "libgomp1",
    "libstdc++.so.6": "libstdc++6",
    "libespeak-ng.so.1": "libespeak-ng1",
}

#: What ``docs/hardware.md`` §1 installs for OpenCV on a Pi: all three, so one command fixes it.
OPENCV_PACKAGES: tuple[str, ...] = ("libxcb1", "libgl1", "libglib2.0-0")

#: Python modules of the runtime's dependencies, and the pip package that provides each.
PIP_PACKAGES: dict[str, tuple[str, str]] = {
    "cv2": ("OpenCV", "opencv-python"),
    "numpy": ("NumPy", "numpy"),
    "onnxruntime": ("onnxruntime", "onnxruntime"),
    "gpiozero": ("gpiozero", "gpiozero"),
    "pyttsx3": ("pyttsx3", "pyttsx3"),
}

_LIBRARY = re.compile(r"(lib[\w.+-]*\.so(?:\.\d+)*)")


def install_hint(error: ImportError) -> UserError | None:
    """The one-line fix for an import that failed for want of a library; None for any other failure."""
    if isinstance(error, ModuleNotFoundError) and error.name in PIP_PACKAGES:
        what, package = PIP_PACKAGES[error.name]
        return UserError(
            f"{what} is not installed in this Python: .venv/bin/pip install {package} (docs/hardware.md §1)"
        )
    found = _LIBRARY.search(str(error))
    if found is None or "cannot open shared object file" not in str(error):
        return None
    library = found.group(1)
    package = DEBIAN_PACKAGES.get(library)
    if package is None:
        fix = f"find its package with `apt-file search {library}` and install it"
    else:
        packages = OPENCV_PACKAGES if package in OPENCV_PACKAGES else (package,)
        fix = f"install it with: sudo apt install {' '.join(packages)}"
    return UserError(f"a system library is missing: {library}; {fix} (docs/hardware.md §1)")
