#!/bin/sh
# The manifests in deploy/ start smrt_serve with flags it has: every
# --flag in deploy/ (Dockerfile, Kubernetes and KServe YAML) must be one that
# `smrt_serve --help` lists, and the probes' paths must be REST routes.
# ctest: deploy_manifests. Usage: check_manifests.sh SMRT_SERVE SOURCE_DIR
set -eu
serve=$1
src=$2
help=$("$serve" --help 2>&1) || true
status=0
# The Dockerfile's ENTRYPOINT (not its COPY --from=...) and every YAML line.
flags=$( (grep -h ENTRYPOINT "$src"/deploy/Dockerfile; cat "$src"/deploy/*/*.yaml) |
  grep -oE -- '--[a-z_]+=' | sort -u)
[ -n "$flags" ] || { echo "no flags found under $src/deploy"; exit 1; }
for f in $flags; do
  name=${f%=}
  if ! printf '%s\n' "$help" | grep -q -- "$name[ =]"; then
    echo "deploy/ uses $name, which smrt_serve --help does not list"
    status=1
  fi
done
for path in $(grep -ohE 'path: /v1/models/[a-z_]+' "$src"/deploy/*/*.yaml | sed 's/path: //'); do
  case $path in
    /v1/models/*) ;;
    *) echo "probe path $path is not a model status route"; status=1 ;;
  esac
done
[ $status -eq 0 ] && echo "deploy/: $(echo "$flags" | wc -l) flags, all known to smrt_serve"
exit $status
