# Fails when a file includes a header of a layer it must not know
# (docs/architecture.md): run as `cmake -DSMRT_SOURCE_DIR=<repo> -P
# check_layers.cmake` (ctest: layer_includes). Only the project's own
# folders are checked; absl, protobuf, oneDNN and the C++ library are free.
#
# src/ layers, lowest first; each may include its own folder and those
# listed. kernels/ sits beside graph and passes above ops: graph, passes and
# ops never include it, and only exec and api (and the tools) do.
set(allowed_core    core smrt)
set(allowed_device  device core smrt)
set(allowed_memory  memory device core smrt)
set(allowed_ops     ops tfproto core smrt)
set(allowed_loader  loader tfproto core smrt)
set(allowed_graph   graph loader tfproto ops core smrt)
set(allowed_passes  passes graph loader tfproto ops core smrt)
set(allowed_exec    exec passes graph loader tfproto ops kernels memory device core smrt)
set(allowed_api     api exec passes graph loader tfproto ops kernels memory device core smrt)
# "tfproto" is the generated protos ("smrt/tfproto/*.pb.h", from proto/):
# wire formats with no code of ours beneath them, which ops (the XLA ops'
# dimension numbers are serialized protos in attrs), the loader and the
# layers above them may include; "smrt" the public headers.
set(project_dirs core device memory ops loader tfproto graph passes exec api kernels tools smrt)

# Kernel backends: each may include the shared kernel headers (kernels/*.h,
# kernels/cpu/*.h, kernels/shared/) and its own folder, never another
# backend's.
set(backends kernels/cpu/reference kernels/cpu/onednn kernels/cuda)

set(violations "")
function(check_file file allowed_dirs forbidden_prefixes)
  file(STRINGS "${file}" lines REGEX "^#include \"[^\"]+\"")
  file(RELATIVE_PATH rel "${SMRT_SOURCE_DIR}" "${file}")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
    string(REGEX MATCH "^[a-z_]+" top "${header}")
    if(header MATCHES "^smrt/tfproto/")
      set(top tfproto)
    endif()
    if(allowed_dirs)
      list(FIND project_dirs "${top}" is_project)
      list(FIND allowed_dirs "${top}" is_allowed)
      if(is_project GREATER -1 AND is_allowed EQUAL -1)
        list(APPEND violations "${rel} includes ${header}")
      endif()
    endif()
    foreach(prefix IN LISTS forbidden_prefixes)
      string(FIND "${header}" "${prefix}/" at)
      if(at EQUAL 0)
        list(APPEND violations "${rel} includes ${header} (another backend)")
      endif()
    endforeach()
  endforeach()
  set(violations "${violations}" PARENT_SCOPE)
endfunction()

foreach(layer core device memory ops loader graph passes exec api)
  file(GLOB_RECURSE files "${SMRT_SOURCE_DIR}/src/${layer}/*.h" "${SMRT_SOURCE_DIR}/src/${layer}/*.cc")
  foreach(f IN LISTS files)
    check_file("${f}" "${allowed_${layer}}" "")
  endforeach()
endforeach()

# The CLI (tools/) and the bindings use the public headers ("smrt/...", which
# for tools/ also names its own folder tools/smrt) and, for the CLI alone,
# one internal header that lists what it reaches below the API.
set(tool_dirs tools bindings)
foreach(dir IN LISTS tool_dirs)
  file(GLOB_RECURSE files "${SMRT_SOURCE_DIR}/${dir}/*.h" "${SMRT_SOURCE_DIR}/${dir}/*.cc")
  foreach(f IN LISTS files)
    file(STRINGS "${f}" lines REGEX "^#include \"[^\"]+\"")
    file(RELATIVE_PATH rel "${SMRT_SOURCE_DIR}" "${f}")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
      string(REGEX MATCH "^[a-z_]+" top "${header}")
      list(FIND project_dirs "${top}" is_project)
      if(is_project GREATER -1 AND NOT top STREQUAL "smrt" AND
         NOT (dir STREQUAL "tools" AND header STREQUAL "api/cli_support.h"))
        list(APPEND violations "${rel} includes ${header} (not a public header or api/cli_support.h)")
      endif()
    endforeach()
  endforeach()
endforeach()

foreach(backend IN LISTS backends)
  set(others ${backends})
  list(REMOVE_ITEM others ${backend})
  file(GLOB_RECURSE files "${SMRT_SOURCE_DIR}/${backend}/*.h" "${SMRT_SOURCE_DIR}/${backend}/*.cc"
       "${SMRT_SOURCE_DIR}/${backend}/*.cu")
  foreach(f IN LISTS files)
    check_file("${f}" "" "${others}")
  endforeach()
endforeach()

list(LENGTH violations count)
if(count GREATER 0)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "${count} include(s) cross the layers of docs/architecture.md:\n  ${text}")
endif()
message(STATUS "layers: every include follows docs/architecture.md")
