# The GPU backend (include/symflow/backend/thrust/): targets that switch it on.
#
#   symflow::thrust_omp  symflow + Thrust on its OpenMP host system (g++ -fopenmp): the GPU
#                        backend's kernels run on the CPU's threads. How CI tests the backend.
#   symflow::thrust_cpp  the same on Thrust's serial host system.
#   symflow::cuda        symflow + Thrust on CUDA + cuBLAS, for .cu sources compiled by nvcc.
#
# Each defines SYMFLOW_THRUST, which gives every Session a "/device:GPU:0", and links a static
# library that compiles the backend's kernels once (symflow_thrust_<system>_backend,
# symflow_cuda_backend: backend/thrust/define_backend.cuh). Every source of one program must
# link the same one of them (runtime/devices.hpp).
#
#   SYMFLOW_THRUST  ON when Thrust's headers are found (CUDA's CCCL under /usr/local/cuda).
#   SYMFLOW_CUDA    enables the CUDA language and makes symflow::cuda. Default: ON when symflow
#                   is the top-level project, nvcc is found and a GPU is visible (nvidia-smi);
#                   OFF when a parent project pulls symflow in with add_subdirectory (it sets
#                   SYMFLOW_CUDA=ON to get symflow::cuda, and then had best enable CUDA
#                   itself, at its top). Without a GPU, `make cuda-check` turns it on in a
#                   build of its own to check that the CUDA code compiles (CI runs it).
#
# Why not always when nvcc is found: CUDA is a language of the whole build. Enabling it from a
# subproject made nvcc and CMake's support for it part of every consumer's configure, even a
# CPU-only one; and CMake takes a target's CUDA_STANDARD from its CXX_STANDARD when unset, so
# a consumer's CMAKE_CXX_STANDARD 20 (+ _REQUIRED) asked for a "CUDA20" that CMake 3.25 has no
# nvcc flag for: "Target symflow_cuda_backend requires the language dialect CUDA20", a
# generate error for a target nobody linked (docs/decisions.md, "The CUDA targets only on
# request").
include_guard(GLOBAL)

find_path(SYMFLOW_THRUST_INCLUDE_DIR thrust/version.h
  PATHS /usr/local/cuda/include/cccl /usr/local/cuda/targets/x86_64-linux/include/cccl
        /usr/local/cuda/include
  NO_DEFAULT_PATH)
find_package(OpenMP QUIET COMPONENTS CXX)

set(_symflow_thrust_default OFF)
if(SYMFLOW_THRUST_INCLUDE_DIR AND OpenMP_CXX_FOUND)
  set(_symflow_thrust_default ON)
endif()
option(SYMFLOW_THRUST "Build the Thrust backend's host-system variants (needs Thrust and OpenMP)"
  ${_symflow_thrust_default})

if(SYMFLOW_THRUST)
  if(NOT SYMFLOW_THRUST_INCLUDE_DIR)
    message(FATAL_ERROR "SYMFLOW_THRUST is ON but thrust/version.h was not found; set "
                        "SYMFLOW_THRUST_INCLUDE_DIR to the directory that holds thrust/")
  endif()
  foreach(_system IN ITEMS omp cpp)
    string(TOUPPER "${_system}" _upper)
    # The kernels, compiled once (backend/thrust/probe.hpp): a program's other sources
    # include no Thrust code unless they ask for it. Built only where something links it.
    set(_backend symflow_thrust_${_system}_backend)
    set(_source "${PROJECT_BINARY_DIR}/symflow_thrust/${_system}_backend.cpp")
    file(CONFIGURE OUTPUT "${_source}"
      CONTENT "#include \"symflow/backend/thrust/define_backend.cuh\"\n")
    add_library(${_backend} STATIC EXCLUDE_FROM_ALL "${_source}")
    target_link_libraries(${_backend} PUBLIC symflow::symflow)
    target_include_directories(${_backend} SYSTEM PUBLIC "${SYMFLOW_THRUST_INCLUDE_DIR}")
    target_compile_definitions(${_backend} PUBLIC
      SYMFLOW_THRUST THRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_${_upper})
    add_library(symflow_thrust_${_system} INTERFACE)
    add_library(symflow::thrust_${_system} ALIAS symflow_thrust_${_system})
    target_link_libraries(symflow_thrust_${_system} INTERFACE ${_backend})
  endforeach()
  target_link_libraries(symflow_thrust_omp_backend PUBLIC OpenMP::OpenMP_CXX)
  message(STATUS "symflow: Thrust backend (host systems) from ${SYMFLOW_THRUST_INCLUDE_DIR}")
endif()

# check_language() only where CUDA may be switched on by default: a consumer that vendors
# symflow does not run nvcc's trial project unless it asks for symflow::cuda.
include(CheckLanguage)
# Whether a GPU is visible now: the CUDA tests run only then (tests/CMakeLists.txt), and only
# then is CUDA on by default. Without one, nvcc's minutes (the backend's library alone is
# about 190 s of CPU) would buy a compile check and nothing run: `make cuda-check` does that.
execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE _symflow_gpu_rc OUTPUT_QUIET ERROR_QUIET)
if(_symflow_gpu_rc EQUAL 0)
  set(SYMFLOW_GPU_VISIBLE ON)
else()
  set(SYMFLOW_GPU_VISIBLE OFF)
endif()
set(_symflow_cuda_default OFF)
if(PROJECT_IS_TOP_LEVEL AND SYMFLOW_THRUST AND SYMFLOW_GPU_VISIBLE)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(_symflow_cuda_default ON)
  endif()
endif()
option(SYMFLOW_CUDA "Enable CUDA, make symflow::cuda and the CUDA tests (needs nvcc; \
default ON only when symflow is the top-level project, nvcc is found and a GPU is visible)"
  ${_symflow_cuda_default})

if(SYMFLOW_CUDA)
  check_language(CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "SYMFLOW_CUDA is ON but no CUDA compiler (nvcc) was found")
  endif()
  # C++20 for nvcc too; its host compiler is the C++ compiler.
  if(NOT CMAKE_CUDA_HOST_COMPILER)
    set(CMAKE_CUDA_HOST_COMPILER "${CMAKE_CXX_COMPILER}")
  endif()
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    # H100 / H200; override with -DCMAKE_CUDA_ARCHITECTURES. Where no GPU is visible the
    # build can only check that the CUDA code compiles: PTX alone (no ptxas, about a third
    # of nvcc's time), which a GPU's driver compiles on first use if the files move to one.
    if(SYMFLOW_GPU_VISIBLE)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    else()
      set(CMAKE_CUDA_ARCHITECTURES 90-virtual)
    endif()
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  # The C++ level of symflow's own CUDA targets (this directory and its subdirectories: the
  # backend's library, the CUDA tests, examples and benchmarks), set for CUDA itself: left
  # unset, CMake would take each target's CXX_STANDARD, which a parent project or the command
  # line may set. Where CMake knows nvcc's C++20 flag (cuda_std_20 among the compile
  # features), CMake adds it and insists on it; where it does not (CMake 3.25 knows levels up
  # to 17 for nvcc), 20 is a wish CMake drops silently and -std=c++20 below does the work.
  if(NOT CMAKE_CUDA_STANDARD MATCHES "^(20|23|26)$")
    set(CMAKE_CUDA_STANDARD 20)
  endif()
  if("cuda_std_${CMAKE_CUDA_STANDARD}" IN_LIST CMAKE_CUDA_COMPILE_FEATURES)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  else()
    set(CMAKE_CUDA_STANDARD_REQUIRED OFF)
  endif()
  set(CMAKE_CUDA_EXTENSIONS OFF)
  # The kernels, compiled once by nvcc; a program's .cpp files are plain C++ (g++).
  set(_source "${PROJECT_BINARY_DIR}/symflow_thrust/cuda_backend.cu")
  file(CONFIGURE OUTPUT "${_source}"
    CONTENT "#include \"symflow/backend/thrust/define_backend.cuh\"\n")
  add_library(symflow_cuda_backend STATIC EXCLUDE_FROM_ALL "${_source}")
  target_link_libraries(symflow_cuda_backend PUBLIC symflow::symflow CUDA::cudart CUDA::cublas)
  target_compile_definitions(symflow_cuda_backend PUBLIC SYMFLOW_THRUST)
  # Eigen's and xtensor's headers call constexpr host functions from host-device ones.
  # -std=c++20 by hand as well, PUBLIC: the .cu sources of the programs that link
  # symflow::cuda live in directories whose CUDA level symflow does not set (nvcc takes the
  # last -std it is given, and the same one twice is no error).
  target_compile_options(symflow_cuda_backend PUBLIC
    $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20 --expt-relaxed-constexpr --extended-lambda
      -diag-suppress=20012,20013,20015,68>)
  # GCC's -Wrestrict misfires on libstdc++'s string code (as in SymflowOptions.cmake).
  target_compile_options(symflow_cuda_backend PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Wno-restrict>)
  add_library(symflow_cuda INTERFACE)
  add_library(symflow::cuda ALIAS symflow_cuda)
  target_link_libraries(symflow_cuda INTERFACE symflow_cuda_backend)
  message(STATUS "symflow: CUDA variants with ${CMAKE_CUDA_COMPILER}")
endif()
