#!/usr/bin/env bash
# Installs smrt's build and test dependencies from Debian's packages.
# Idempotent: packages already present are not touched and apt is not called at all.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  # Rebuilds of unchanged sources come from its cache (CMakeLists.txt uses it when found).
  ccache
  libprotobuf-dev protobuf-compiler
  libabsl-dev
  libeigen3-dev
  libdnnl-dev
  libgtest-dev libgmock-dev
  libbenchmark-dev
  # Libraries for untrusted bytes instead of parsers of our own: snappy blocks
  # in checkpoint indexes; FarmHash for TensorFlow's Fingerprint64; RE2, the
  # regex engine TensorFlow's regex ops run, for their patterns; libjpeg-turbo
  # and libpng, the decoders TensorFlow bundles, for DecodeJpeg / DecodePng /
  # DecodeImage (libjpeg-dev is Debian's name for libjpeg62-turbo-dev); giflib,
  # TensorFlow's GIF decoder, for DecodeGif and GIFs in DecodeImage; ICU,
  # whose Unicode tables TF Text's NormalizeUTF8, CaseFoldUTF8 and
  # UnicodeScript use.
  libsnappy-dev libfarmhash-dev libre2-dev
  libpng-dev libjpeg-dev libgif-dev libicu-dev
  # smrt_serve (tools/serve): TF Serving's gRPC API (Debian's gRPC C++ and its
  # protoc plugin), its REST API (cpp-httplib) and request JSON (RapidJSON,
  # as TF Serving parses it), instead of network parsers of our own.
  libgrpc++-dev protobuf-compiler-grpc libcpp-httplib-dev rapidjson-dev
  python3
  # The Python module (bindings/python) and its tests (tests/python).
  python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest
  # scripts/check_wheel.sh: venvs for the wheel's build tools and its test.
  python3-venv
)

# scripts/test.sh --asan/--tsan and scripts/fuzz.sh: clang with compiler-rt
# (sanitizer runtimes and libFuzzer).
if [ "${1:-}" = "--sanitizers" ]; then
  packages=(clang libclang-rt-dev)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all dependencies present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
