"""The `smrt` console script of the wheel (pyproject.toml): runs the CLI
binary bundled in the package, smrt/bin/smrt, with the caller's arguments.

On POSIX the binary replaces this process (os.execv), so its exit code,
signals, stdin and stdout are the caller's as if it had been run directly.
"""

import os
import subprocess
import sys


def main() -> int:
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "smrt")
    if not os.access(exe, os.X_OK):
        print(f"smrt: the command-line tool is not in this installation ({exe} is missing); "
              "it comes with the wheel (pip install smrt-*.whl), not with a build tree",
              file=sys.stderr)
        return 127
    argv = ["smrt"] + sys.argv[1:]
    if os.name == "posix":
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(exe, argv)
    return subprocess.call(argv, executable=exe)


if __name__ == "__main__":
    sys.exit(main())
