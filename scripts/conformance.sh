#!/usr/bin/env bash
# The conformance suite: TensorFlow is the oracle.
#
#   scripts/conformance.sh [--only name,name] [--markdown]
#
# Builds smrt, exports the zoo with TensorFlow if it is missing (scripts/make_zoo.py, into
# $SMRT_ZOO_DIR, default ~/.cache/smrt/zoo, outside git; the first export takes long: the Keras
# applications and a BERT-base encoder), then runs every case of every zoo model and every
# community-corpus golden in smrt and prints a table: model | signature | case | ops | status |
# max abs err | max rel err | load ms | first-run ms. Also runs `smrt check` on every model.
# Exits non-zero on any failure. TensorFlow is needed only to create the zoo: a venv in .venv
# (python3 -m venv .venv && .venv/bin/pip install tensorflow-cpu tf-keras) is made if missing.
set -euo pipefail
cd "$(dirname "$0")/.."

zoo=${SMRT_ZOO_DIR:-$HOME/.cache/smrt/zoo}
only=""
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="$2"; shift 2 ;;
    --markdown) extra+=(--markdown); shift ;;
    *) echo "usage: scripts/conformance.sh [--only name,name] [--markdown]" >&2; exit 2 ;;
  esac
done

bash scripts/install-deps.sh
bash scripts/build.sh smrt smrt_conformance_tool
bin="${BUILD_DIR:-build}/bin"

if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c "import tensorflow, tf_keras" 2>/dev/null; then
  echo "== creating .venv with TensorFlow (for the zoo export only)"
  python3 -m venv .venv
  .venv/bin/pip install --quiet tensorflow-cpu tf-keras
fi
echo "== exporting missing zoo models into $zoo"
mkdir -p "$zoo"
.venv/bin/python -P scripts/make_zoo.py --out "$zoo" ${only:+--only "$only"} \
  2> >(grep -v -E "^(I0000|E0000|W0000|WARNING)" >&2)

status=0
echo "== smrt check on every model"
for dir in "$zoo"/*/saved_model; do
  name=$(basename "$(dirname "$dir")")
  if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
  if ! "$bin/smrt" check --dir "$dir" --missing_only >/dev/null 2>/tmp/smrt_check.$$; then
    echo "check FAIL $name: $(cat /tmp/smrt_check.$$)"
    status=1
  fi
done
rm -f /tmp/smrt_check.$$

echo "== conformance"
community=(--community)
[ -n "$only" ] && community=()
"$bin/smrt_conformance" --zoo "$zoo" "${community[@]}" ${only:+--only "$only"} "${extra[@]}" || status=1
exit $status
