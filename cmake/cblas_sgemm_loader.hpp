// cblas_sgemm from a BLAS shared library loaded at run time, for timing BLAS builds side by side: the configure-time
// probe (blas_probe.cpp) and the RBM update benchmark (bench/rbm/bench_rbm_updates.cpp). Not part of the library.
#pragma once

#include <dlfcn.h>

// cblas_sgemm with CBLAS's enums as their int values: row-major 101, no transpose 111, transpose 112.
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);

// The library at path, in its own namespace (RTLD_DEEPBIND: one BLAS's internal calls do not resolve to another's
// symbols of the same name), with its thread count set; nullptr when it or its cblas_sgemm is missing.
inline SgemmFn load_cblas_sgemm(const char* path, int threads) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (handle == nullptr) return nullptr;
  const auto sgemm = reinterpret_cast<SgemmFn>(dlsym(handle, "cblas_sgemm"));
  if (sgemm == nullptr) return nullptr;
  for (const char* setter : {"openblas_set_num_threads", "bli_thread_set_num_threads"}) {
    if (auto* set = reinterpret_cast<void (*)(int)>(dlsym(handle, setter))) set(threads);
  }
  return sgemm;
}

// The kernels the BLAS at path picked for this CPU (OpenBLAS's core name, BLIS's sub-configuration); "" when it
// is not loaded or names none. Environment variables (OPENBLAS_CORETYPE, BLIS_ARCH_TYPE) can override its pick.
inline const char* cblas_kernels(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND | RTLD_NOLOAD);
  if (handle == nullptr) return "";
  if (auto* corename = reinterpret_cast<char* (*)()>(dlsym(handle, "openblas_get_corename"))) return corename();
  const auto query = reinterpret_cast<int (*)()>(dlsym(handle, "bli_arch_query_id"));
  const auto name = reinterpret_cast<char* (*)(int)>(dlsym(handle, "bli_arch_string"));
  return query != nullptr && name != nullptr ? name(query()) : "";
}
