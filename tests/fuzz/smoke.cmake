# One CI smoke run of a libFuzzer target (ctest -R fuzz_smoke): seeds made of
# committed files only (make_seeds.py --committed-only), a fresh corpus, a
# fixed -seed so that runs on one machine mutate alike, and the limits of
# scripts/fuzz.sh. Any finding fails the test; its input is kept in WORK.
#
#   cmake -DFUZZER=<binary> -DTARGET=<name> -DWORK=<dir> -DSOURCE_DIR=<repo>
#         -DPYTHON=<python3> -DSECONDS=<n> -P smoke.cmake
foreach(var FUZZER TARGET WORK SOURCE_DIR PYTHON SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "smoke.cmake: -D${var}= is missing")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
execute_process(
  COMMAND ${PYTHON} ${SOURCE_DIR}/tests/fuzz/make_seeds.py ${TARGET} ${WORK}/seeds --committed-only
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_seeds.py failed (${rc})")
endif()

# As scripts/test.sh --asan sets them, where the caller has not.
if(NOT DEFINED ENV{ASAN_OPTIONS})
  set(ENV{ASAN_OPTIONS} "detect_leaks=1:abort_on_error=1:allocator_may_return_null=1")
endif()
if(NOT DEFINED ENV{UBSAN_OPTIONS})
  set(ENV{UBSAN_OPTIONS} "print_stacktrace=1:halt_on_error=1")
endif()

execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -seed=1 -rss_limit_mb=2048 -malloc_limit_mb=1024
          -timeout=20 -max_len=1048576 -print_final_stats=1 -artifact_prefix=${WORK}/
          ${WORK}/corpus ${WORK}/seeds
  WORKING_DIRECTORY ${WORK}
  RESULT_VARIABLE rc
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out)
string(LENGTH "${out}" n)
if(n GREATER 12000)
  math(EXPR start "${n} - 12000")
  string(SUBSTRING "${out}" ${start} -1 out)
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} found something (exit ${rc}); the input is in ${WORK}:\n${out}")
endif()
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" runs "${out}")
message(STATUS "${TARGET}: ${runs}")
