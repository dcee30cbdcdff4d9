#!/usr/bin/env bash
# Installs a built smrt into <build>/install-test, then builds examples/ as a
# separate CMake project against it (find_package(smrt CONFIG REQUIRED)) and
# runs its tests; also compiles the C example with pkg-config's flags alone.
# What a user following the README does. ctest runs it as examples_installed.
#
#   scripts/check_installed_examples.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "${1:-build}")
prefix=$build/install-test
examples_build=$build/examples-installed
rm -rf "$prefix" "$examples_build"

cmake --install "$build" --prefix "$prefix" --strip >/dev/null
# The static library is a component of its own, installed only when asked.
[ ! -e "$prefix/lib/libsmrt.a" ] || { echo "libsmrt.a installed unasked" >&2; exit 1; }
cmake --install "$build" --prefix "$prefix" --component static >/dev/null
# --strip leaves archives alone; without debug info libsmrt.a links in a second.
strip --strip-debug "$prefix/lib/libsmrt.a"
for f in include/smrt/model.h include/smrt/c_api.h include/smrt/cxx_api.h lib/libsmrt.a bin/smrt \
         lib/cmake/smrt/smrtConfig.cmake lib/cmake/smrt/smrtConfigVersion.cmake \
         lib/pkgconfig/smrt.pc; do
  [ -e "$prefix/$f" ] || { echo "install lacks $f" >&2; exit 1; }
done
soname=$(readelf -d "$prefix"/lib/libsmrt.so | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ -e "$prefix/lib/$soname" ] || { echo "no $soname in $prefix/lib" >&2; exit 1; }
# Only the C API, the public C++ API and the six OpenMP entry points that
# put oneDNN on smrt's threads are exported (cmake/libsmrt.map): the protobuf
# code compiled into libsmrt must not clash with an app's.
openmp='^(GOMP_parallel|GOMP_barrier|omp_get_thread_num|omp_get_num_threads|omp_get_max_threads|omp_in_parallel)$'
# smrt::tfproto (the TensorFlow-wire protos) is as internal as the rest.
symbols=$(nm -D --defined-only "$prefix/lib/libsmrt.so" | awk '{print $3}' | c++filt)
internal=$({ grep -E '^smrt::tfproto::' <<<"$symbols";
             grep -v -E '^(Smrt|smrt::)' <<<"$symbols" | grep -v -E "$openmp"; } || true)
[ -z "$internal" ] || { echo "libsmrt.so exports internal symbols:" >&2; head <<<"$internal" >&2; exit 1; }
# ... and every free function the public headers declare (classes' members
# are exported by class in cmake/libsmrt.map).
for f in $(ls include/smrt/*.h | grep -v -E 'c_api|cxx_api|custom_op' |
           xargs grep -ohE '^[A-Za-z][A-Za-z0-9_:<>, ]*[ *&]+([A-Z][A-Za-z0-9]+)\(' |
           grep -v -E '^(inline|using|return|typedef) ' |
           sed -E 's/.*[ *&]([A-Z][A-Za-z0-9]+)\($/\1/' | sort -u); do
  grep -q -E "^smrt::$f(\(|\[abi:)" <<<"$symbols" ||
    { echo "libsmrt.so does not export smrt::$f, which include/smrt declares" >&2; exit 1; }
done
echo "installed: libsmrt.so (SONAME $soname), libsmrt.a, bin/smrt, headers, CMake config, smrt.pc"
shown=$("$prefix/bin/smrt" show --dir examples/models/digits --tag_set serve)
grep -q serving_default <<<"$shown" || { echo "installed smrt CLI fails: $shown" >&2; exit 1; }

generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
if command -v ccache >/dev/null; then generator+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache); fi
cmake -S examples -B "$examples_build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$examples_build" -j "$(nproc)" >/dev/null
ctest --test-dir "$examples_build" --output-on-failure

# pkg-config alone: cc $(pkg-config --cflags --libs smrt).
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cc -std=c11 -o "$examples_build/minimal_c_pkgconfig" examples/minimal_c.c \
  $(pkg-config --cflags --libs smrt) -Wl,-rpath,"$prefix/lib"
printed=$("$examples_build/minimal_c_pkgconfig" examples/models/digits)
grep -q "probabilities float32 (1, 10): 0.0000 0.0009 0.0018 0.0000 0.0722 0.0000 0.0000 0.9252" <<<"$printed" ||
  { echo "minimal_c built with pkg-config gave other numbers" >&2; exit 1; }
echo "pkg-config build of minimal_c: ok"
