//===- OneDnnSupport.h - What the oneDNN primitives share -------*- C++ -*-===//
//
// The process's CPU engine, the OpenMP thread count oneDNN runs with, and
// the descriptors primitive creation frees on every path: shared by the cpu
// device's matmuls (OneDnnGemm.cpp) and convolutions (OneDnnConv.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_LIB_RUNTIME_CPU_ONEDNNSUPPORT_H
#define FUSEC_LIB_RUNTIME_CPU_ONEDNNSUPPORT_H

#include <oneapi/dnnl/dnnl.h>

#include <string>

namespace fusec::rt::onednn {

/// The process's CPU engine (created once; oneDNN's engines are
/// thread-safe), or null with `why`.
dnnl_engine_t cpuEngine(std::string &why);

/// Sets the number of threads oneDNN's next primitive runs on (its OpenMP
/// runtime's omp_set_num_threads, looked up rather than linked: fusec
/// itself does not use OpenMP); nothing when there is none.
void setThreads(int threads);

/// Frees what primitive creation needs, on every path.
struct Creation {
  dnnl_primitive_attr_t attr = nullptr;
  dnnl_post_ops_t postOps = nullptr;
  dnnl_primitive_desc_t pd = nullptr;
  Creation() = default;
  Creation(const Creation &) = delete;
  Creation &operator=(const Creation &) = delete;
  ~Creation() {
    if (pd)
      dnnl_primitive_desc_destroy(pd);
    if (postOps)
      dnnl_post_ops_destroy(postOps);
    if (attr)
      dnnl_primitive_attr_destroy(attr);
  }
};

/// Sets `c.attr` to apply gelu (the tanh approximation) to a primitive's
/// result, as its one post-op.
dnnl_status_t addGeluPostOp(Creation &c);

/// "oneDNN 2.6.3".
std::string libraryName();

} // namespace fusec::rt::onednn

#endif // FUSEC_LIB_RUNTIME_CPU_ONEDNNSUPPORT_H
