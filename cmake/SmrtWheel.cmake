# The wheel's contents (pyproject.toml; scikit-build-core sets SKBUILD and
# installs the component "wheel" into the wheel's root): one package folder,
#   smrt/__init__.py, smrt/_cli.py   (pyproject.toml's wheel.packages)
#   smrt/_smrt.<abi>.so              the module, RPATH $ORIGIN
#   smrt/libsmrt.so                  unversioned: a wheel cannot hold symlinks
#   smrt/bin/smrt                    the CLI, run by the `smrt` console script
# The libraries they need from the system are added by `auditwheel repair`
# (scripts/check_wheel.sh), which also sets their RPATHs to the copies.
if(NOT TARGET smrt_python)
  message(FATAL_ERROR "The wheel needs the Python module: pybind11 and Python 3 development "
                      "files (pip installs pybind11 for `pip install .`; Debian: python3-dev)")
endif()

set_property(TARGET smrt_shared PROPERTY VERSION)
set_property(TARGET smrt_shared PROPERTY SOVERSION)
set_target_properties(smrt_python PROPERTIES INSTALL_RPATH "$ORIGIN")

install(TARGETS smrt_python LIBRARY DESTINATION smrt COMPONENT wheel)
install(TARGETS smrt_shared LIBRARY DESTINATION smrt COMPONENT wheel NAMELINK_SKIP)
install(TARGETS smrt RUNTIME DESTINATION smrt/bin COMPONENT wheel)
