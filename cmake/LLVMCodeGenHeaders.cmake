# Headers private to LLVM 19's lib/CodeGen that the register-allocation
# problems compile against (the eviction and priority advisors' interfaces,
# the allocation order, the score, and the greedy allocator whose per-range
# stage the priority advisor reads, with the headers it includes):
# llvm-19-dev does not ship them, libLLVM-19 exports what they declare.
# They come from Debian's llvm-toolchain-19 source package of
# the installed version, fetched once into a per-user cache (or from
# -DMLGO_LLVM_CODEGEN_HEADERS=<dir>). The tree holds only mlgo's own code.
set(MLGO_LLVM_CODEGEN_HEADERS "" CACHE PATH
  "Directory with LLVM 19's lib/CodeGen headers listed in cmake/LLVMCodeGenHeaders.cmake")
set(_mlgo_codegen_headers RegAllocEvictionAdvisor.h AllocationOrder.h RegAllocScore.h RegAllocPriorityAdvisor.h
  RegAllocGreedy.h InterferenceCache.h RegAllocBase.h SpillPlacement.h SplitKit.h)

function(_mlgo_codegen_headers_present dir result)
  set(present TRUE)
  foreach(header ${_mlgo_codegen_headers})
    if(NOT EXISTS ${dir}/${header})
      set(present FALSE)
    endif()
  endforeach()
  set(${result} ${present} PARENT_SCOPE)
endfunction()

if(MLGO_LLVM_CODEGEN_HEADERS)
  set(MLGO_CODEGEN_HEADERS_DIR ${MLGO_LLVM_CODEGEN_HEADERS})
else()
  if(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
    set(_mlgo_cache $ENV{XDG_CACHE_HOME})
  else()
    set(_mlgo_cache $ENV{HOME}/.cache)
  endif()
  set(MLGO_CODEGEN_HEADERS_DIR ${_mlgo_cache}/mlgo/llvm-${LLVM_PACKAGE_VERSION}-codegen-headers)
  _mlgo_codegen_headers_present(${MLGO_CODEGEN_HEADERS_DIR} _present)
  if(NOT _present)
    message(STATUS "Fetching LLVM ${LLVM_PACKAGE_VERSION}'s CodeGen headers from Debian's source package")
    execute_process(
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tools/fetch-llvm-codegen-headers.sh ${MLGO_CODEGEN_HEADERS_DIR}
      RESULT_VARIABLE _fetch_result)
    if(NOT _fetch_result EQUAL 0)
      message(FATAL_ERROR "Could not fetch LLVM's CodeGen headers (see above)")
    endif()
  endif()
endif()
_mlgo_codegen_headers_present(${MLGO_CODEGEN_HEADERS_DIR} _present)
if(NOT _present)
  message(FATAL_ERROR "${MLGO_CODEGEN_HEADERS_DIR} lacks one of ${_mlgo_codegen_headers}")
endif()
message(STATUS "LLVM CodeGen headers from ${MLGO_CODEGEN_HEADERS_DIR}")
