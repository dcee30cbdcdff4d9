"""Writes the NumPy string fixtures under tests/data/npy/ (tests/core/npy_test.cc).

Run once with the peers' NumPy: .venv-peers/bin/python -P tests/generators/npy_strings.py
The tests read the committed files; they never need NumPy.
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "data", "npy")


def main():
    os.makedirs(OUT, exist_ok=True)
    # Fixed-width bytes: NUL-padded to 3; an inner NUL is kept, a trailing one is not.
    np.save(os.path.join(OUT, "bytes_s3.npy"),
            np.array([[b"ab", b""], [b"x\x00y", b"\xff\xfe"]], dtype=bytes))
    # Unicode: UTF-32LE code points, BMP and beyond.
    np.save(os.path.join(OUT, "unicode_u5.npy"),
            np.array(["h\u00e9llo", "\u65e5\u672c", "\U0001f642", ""], dtype=str))
    # An object array: a pickle, which smrt refuses to read.
    np.save(os.path.join(OUT, "object_bytes.npy"),
            np.array([b"a", b"bc"], dtype=object), allow_pickle=True)


if __name__ == "__main__":
    main()
