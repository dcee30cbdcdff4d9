# libsmrt, shared and static, made from the objects of the project's layer
# libraries (smrt_core, smrt_loader, ... smrt_c): whatever the roots link,
# directly or through other layers, so a new layer needs no line here. The
# layer libraries stay as they are for the tests.

# Records the project's static libraries below `item` in _SMRT_PARTS and the
# external libraries (imported targets, paths, names) in _SMRT_EXTERNALS.
function(_smrt_collect item)
  if(item MATCHES "^::@")  # cross-directory markers in LINK_LIBRARIES
    return()
  endif()
  if(item MATCHES "^\\$<LINK_ONLY:(.*)>$")
    set(item "${CMAKE_MATCH_1}")
  endif()
  if(NOT TARGET "${item}")
    if(item MATCHES "::")
      message(FATAL_ERROR "libsmrt links ${item}, which is not visible at the top level: "
                          "call its find_package in the top-level CMakeLists.txt")
    endif()
    set_property(GLOBAL APPEND PROPERTY _SMRT_EXTERNALS "${item}")
    return()
  endif()
  get_target_property(aliased ${item} ALIASED_TARGET)
  if(aliased)
    set(item ${aliased})
  endif()
  get_property(seen GLOBAL PROPERTY _SMRT_SEEN)
  if(item IN_LIST seen)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _SMRT_SEEN ${item})
  get_target_property(imported ${item} IMPORTED)
  if(imported)
    set_property(GLOBAL APPEND PROPERTY _SMRT_EXTERNALS ${item})
    return()
  endif()
  get_target_property(type ${item} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(libs ${item} INTERFACE_LINK_LIBRARIES)
  elseif(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "OBJECT_LIBRARY")
    set_property(GLOBAL APPEND PROPERTY _SMRT_PARTS ${item})
    get_target_property(libs ${item} LINK_LIBRARIES)
  else()
    message(FATAL_ERROR "libsmrt cannot include ${item}, a ${type}")
  endif()
  if(libs)
    foreach(lib IN LISTS libs)
      _smrt_collect("${lib}")
    endforeach()
  endif()
endfunction()

# The CMake package each imported target comes from, for smrtConfig.cmake.
function(_smrt_package_of target out)
  set(pkg "")
  if(target MATCHES "^absl::")
    set(pkg "absl")
  elseif(target MATCHES "^protobuf::")
    set(pkg "Protobuf")
  elseif(target MATCHES "^Eigen3::")
    set(pkg "Eigen3 NO_MODULE")
  elseif(target MATCHES "^Threads::")
    set(pkg "Threads")
  elseif(target MATCHES "^CUDA::")
    set(pkg "CUDAToolkit")
  elseif(target MATCHES "^Snappy::")
    set(pkg "Snappy")
  elseif(target MATCHES "^JPEG::")
    set(pkg "JPEG")
  elseif(target MATCHES "^PNG::")
    set(pkg "PNG")
  elseif(target MATCHES "^GIF::")
    set(pkg "GIF")
  elseif(target MATCHES "^ICU::")
    set(pkg "ICU COMPONENTS uc")
  else()
    message(FATAL_ERROR "libsmrt links ${target}: add its package to cmake/SmrtLibrary.cmake")
  endif()
  set(${out} "${pkg}" PARENT_SCOPE)
endfunction()

# Defines smrt_shared and smrt_static (both libsmrt; exported as smrt::smrt
# and smrt::smrt_static), their install rules, smrtConfig.cmake and smrt.pc.
function(smrt_add_library)
  cmake_parse_arguments(ARG "" "" "ROOTS" ${ARGN})
  foreach(root IN LISTS ARG_ROOTS)
    _smrt_collect(${root})
  endforeach()
  get_property(parts GLOBAL PROPERTY _SMRT_PARTS)
  get_property(externals GLOBAL PROPERTY _SMRT_EXTERNALS)
  list(REMOVE_DUPLICATES externals)
  set(objects)
  foreach(part IN LISTS parts)
    list(APPEND objects $<TARGET_OBJECTS:${part}>)
  endforeach()
  message(STATUS "libsmrt: ${parts}")

  # What the public headers include: consumers compile and link against it.
  set(public_deps absl::status absl::statusor absl::strings absl::span)
  set(public_includes $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)

  # External libraries: imported targets as they are; files by name in the
  # installed package (found in the system's library path there).
  set(link_deps)
  set(packages "absl")
  set(pc_requires)
  set(pc_libs)
  foreach(ext IN LISTS externals)
    if(TARGET "${ext}")
      list(APPEND link_deps ${ext})
      _smrt_package_of(${ext} pkg)
      list(APPEND packages "${pkg}")
      if(ext MATCHES "^absl::(.*)$")
        list(APPEND pc_requires "absl_${CMAKE_MATCH_1}")
      elseif(ext MATCHES "^protobuf::")
        list(APPEND pc_requires protobuf)
      elseif(ext MATCHES "^Threads::")
        list(APPEND pc_libs -pthread)
      elseif(ext MATCHES "^Snappy::")
        list(APPEND pc_libs -lsnappy)
      elseif(ext MATCHES "^JPEG::")
        list(APPEND pc_requires libjpeg)
      elseif(ext MATCHES "^PNG::")
        list(APPEND pc_requires libpng)
      elseif(ext MATCHES "^GIF::")
        list(APPEND pc_requires libgif)
      elseif(ext MATCHES "^ICU::")
        list(APPEND pc_requires icu-uc)
      endif()
    elseif(ext MATCHES "/")
      get_filename_component(name "${ext}" NAME_WE)
      string(REGEX REPLACE "^lib" "" name "${name}")
      list(APPEND link_deps "$<BUILD_INTERFACE:${ext}>" "$<INSTALL_INTERFACE:${name}>")
      list(APPEND pc_libs "-l${name}")
    else()
      list(APPEND link_deps "${ext}")
      list(APPEND pc_libs "-l${ext}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES packages)
  list(REMOVE_DUPLICATES pc_requires)
  list(REMOVE_DUPLICATES pc_libs)

  # 0.x releases may break the ABI at every minor version.
  if(PROJECT_VERSION_MAJOR EQUAL 0)
    set(soversion ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
  else()
    set(soversion ${PROJECT_VERSION_MAJOR})
  endif()
  set(map ${PROJECT_SOURCE_DIR}/cmake/libsmrt.map)
  add_library(smrt_shared SHARED ${objects})
  target_include_directories(smrt_shared PUBLIC ${public_includes})
  target_link_libraries(smrt_shared PUBLIC ${public_deps} PRIVATE ${link_deps})
  target_link_options(smrt_shared PRIVATE "LINKER:--version-script=${map}")
  # Every symbol resolved at link time, except in sanitizer builds: there the
  # executable brings the sanitizer runtime (scripts/test.sh --asan/--tsan).
  if(NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize")
    target_link_options(smrt_shared PRIVATE "LINKER:--no-undefined")
  endif()
  set_target_properties(smrt_shared PROPERTIES
    OUTPUT_NAME smrt EXPORT_NAME smrt VERSION ${PROJECT_VERSION} SOVERSION ${soversion}
    LINK_DEPENDS ${map})

  add_library(smrt_static STATIC ${objects})
  target_include_directories(smrt_static PUBLIC ${public_includes})
  target_link_libraries(smrt_static PUBLIC ${public_deps} PRIVATE ${link_deps})
  set_target_properties(smrt_static PROPERTIES OUTPUT_NAME smrt EXPORT_NAME smrt_static)
  # The OpenMP entry points oneDNN binds to (kernels/cpu/openmp_entry_points.cc)
  # are called by nothing in the archive: a static link must ask for them.
  target_link_options(smrt_static INTERFACE "LINKER:--undefined=GOMP_parallel")
  list(APPEND pc_libs "-Wl,--undefined=GOMP_parallel")

  add_library(smrt::smrt ALIAS smrt_shared)
  add_library(smrt::smrt_static ALIAS smrt_static)

  include(CMakePackageConfigHelpers)
  set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/smrt)
  install(TARGETS smrt_shared EXPORT smrtTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/smrt
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
  install(EXPORT smrtTargets NAMESPACE smrt:: DESTINATION ${cmake_dir})
  # The static library (hundreds of MB with debug info) only when asked:
  # `cmake --install build --component static`; smrtConfig.cmake then also
  # defines smrt::smrt_static.
  install(TARGETS smrt_static EXPORT smrtStaticTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT static EXCLUDE_FROM_ALL)
  install(EXPORT smrtStaticTargets NAMESPACE smrt:: DESTINATION ${cmake_dir}
          COMPONENT static EXCLUDE_FROM_ALL)

  set(SMRT_FIND_DEPENDENCIES "")
  foreach(pkg IN LISTS packages)
    string(APPEND SMRT_FIND_DEPENDENCIES "find_dependency(${pkg})\n")
  endforeach()
  get_property(SMRT_PYTHONPATH_INSTALLED GLOBAL PROPERTY SMRT_PYTHONPATH_INSTALLED)
  get_property(SMRT_PYTHON_EXECUTABLE GLOBAL PROPERTY SMRT_PYTHON_EXECUTABLE)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/smrtConfig.cmake.in
    ${PROJECT_BINARY_DIR}/cmake/smrtConfig.cmake INSTALL_DESTINATION ${cmake_dir})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/smrtConfigVersion.cmake
    VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/smrtConfig.cmake
                ${PROJECT_BINARY_DIR}/cmake/smrtConfigVersion.cmake
          DESTINATION ${cmake_dir})

  list(JOIN pc_requires " " SMRT_PC_REQUIRES_PRIVATE)
  list(JOIN pc_libs " " SMRT_PC_LIBS_PRIVATE)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/smrt.pc.in ${PROJECT_BINARY_DIR}/smrt.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/smrt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
