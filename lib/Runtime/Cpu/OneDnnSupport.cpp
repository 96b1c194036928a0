//===- OneDnnSupport.cpp - What the oneDNN primitives share ---------------===//

#include "OneDnnSupport.h"

#include <oneapi/dnnl/dnnl_debug.h>

#include <dlfcn.h>

using namespace fusec::rt;

dnnl_engine_t onednn::cpuEngine(std::string &why) {
  static dnnl_status_t status;
  static dnnl_engine_t engine = [] {
    dnnl_engine_t e = nullptr;
    status = dnnl_engine_create(&e, dnnl_cpu, 0);
    return status == dnnl_success ? e : nullptr;
  }();
  if (!engine)
    why = std::string("oneDNN's CPU engine failed: ") + dnnl_status2str(status);
  return engine;
}

void onednn::setThreads(int threads) {
  // Loaded with oneDNN, the OpenMP runtime is in the global scope unless a
  // module that links fusec was opened locally (Python's extension
  // modules): then it is asked for by name, without loading anything.
  using SetThreads = void (*)(int);
  static SetThreads set = [] {
    void *symbol = dlsym(RTLD_DEFAULT, "omp_set_num_threads");
    for (const char *library : {"libgomp.so.1", "libomp.so.5", "libiomp5.so"}) {
      if (symbol)
        break;
      if (void *handle = dlopen(library, RTLD_LAZY | RTLD_NOLOAD))
        symbol = dlsym(handle, "omp_set_num_threads");
    }
    return reinterpret_cast<SetThreads>(symbol);
  }();
  if (set)
    set(threads > 0 ? threads : 1);
}

std::string onednn::libraryName() {
  const dnnl_version_t *v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) +
         "." + std::to_string(v->patch);
}

dnnl_status_t onednn::addGeluPostOp(Creation &c) {
  dnnl_status_t status;
  if ((status = dnnl_primitive_attr_create(&c.attr)) != dnnl_success ||
      (status = dnnl_post_ops_create(&c.postOps)) != dnnl_success ||
      (status =
           dnnl_post_ops_append_eltwise(c.postOps, 1.0f, dnnl_eltwise_gelu_tanh,
                                        0.0f, 0.0f)) != dnnl_success)
    return status;
  return dnnl_primitive_attr_set_post_ops(c.attr, c.postOps);
}
