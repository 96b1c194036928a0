//===- Nvrtc.cpp - NVRTC, loaded at run time ------------------------------===//
//
// Declares the few NVRTC entry points fusec uses (stable C ABI since CUDA
// 7) instead of including nvrtc.h, so that building fusec needs no CUDA
// toolkit.
//
//===----------------------------------------------------------------------===//

#include "fusec/Codegen/Nvrtc.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdlib>
#include <mutex>

using namespace fusec;

namespace {
using nvrtcResult = int;
using nvrtcProgram = struct _nvrtcProgram *;
constexpr nvrtcResult NVRTC_SUCCESS = 0;
} // namespace

struct Nvrtc::Api {
  void *handle = nullptr;
  const char *(*getErrorString)(nvrtcResult);
  nvrtcResult (*version)(int *, int *);
  nvrtcResult (*createProgram)(nvrtcProgram *, const char *, const char *, int,
                               const char *const *, const char *const *);
  nvrtcResult (*destroyProgram)(nvrtcProgram *);
  nvrtcResult (*compileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*getPTXSize)(nvrtcProgram, size_t *);
  nvrtcResult (*getPTX)(nvrtcProgram, char *);
  nvrtcResult (*getCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*getCUBIN)(nvrtcProgram, char *);
  nvrtcResult (*getProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*getProgramLog)(nvrtcProgram, char *);
};

#ifndef FUSEC_CUDA_LIBRARY_DIR
#define FUSEC_CUDA_LIBRARY_DIR ""
#endif

namespace {
/// The NVRTC library file fusec loads, found by its own search (see the
/// header), or "" when only the dynamic loader could find one.
const std::string &locatedLibrary() {
  static const std::string path = [] {
    if (const char *env = std::getenv("FUSEC_NVRTC"); env && *env)
      return std::string(env);
    std::vector<std::string> dirs;
    if (const char *ld = std::getenv("LD_LIBRARY_PATH")) {
      std::string list = ld;
      for (size_t start = 0; start <= list.size();) {
        size_t end = list.find(':', start);
        if (end == std::string::npos)
          end = list.size();
        if (end > start)
          dirs.push_back(list.substr(start, end - start));
        start = end + 1;
      }
    }
    if (*FUSEC_CUDA_LIBRARY_DIR)
      dirs.push_back(FUSEC_CUDA_LIBRARY_DIR);
    for (const char *d : {"/usr/local/cuda/lib64", "/usr/lib/x86_64-linux-gnu",
                          "/usr/lib64", "/usr/lib"})
      dirs.push_back(d);
    for (const char *name : {"libnvrtc.so.13", "libnvrtc.so"})
      for (const std::string &dir : dirs) {
        std::string candidate = dir + "/" + name;
        struct stat st;
        if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode))
          return candidate;
      }
    return std::string();
  }();
  return path;
}
} // namespace

std::string Nvrtc::identity() {
  const std::string &path = locatedLibrary();
  struct stat st;
  char resolved[PATH_MAX];
  if (!path.empty() && ::realpath(path.c_str(), resolved) &&
      ::stat(resolved, &st) == 0)
    return std::string(resolved) + " " + std::to_string(st.st_size) + " " +
           std::to_string(int64_t(st.st_mtim.tv_sec)) + "." +
           std::to_string(int64_t(st.st_mtim.tv_nsec));
  if (Nvrtc *nvrtc = get())
    return "version " + nvrtc->version();
  return "none";
}

Nvrtc *Nvrtc::get(std::string *whyNot) {
  static std::once_flag once;
  static Nvrtc *instance = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    std::vector<std::string> candidates;
    if (!locatedLibrary().empty())
      candidates.push_back(locatedLibrary());
    // $FUSEC_NVRTC names the library: nothing else is tried.
    const char *env = std::getenv("FUSEC_NVRTC");
    if (!env || !*env) {
      candidates.push_back("libnvrtc.so.13");
      candidates.push_back("libnvrtc.so");
    }
    void *handle = nullptr;
    std::string errors;
    for (const std::string &path : candidates) {
      handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
      if (handle)
        break;
      const char *e = dlerror();
      errors += "\n  " + (e ? std::string(e) : path);
    }
    if (!handle) {
      failure = "cannot load NVRTC (install the CUDA toolkit, or set "
                "FUSEC_NVRTC to libnvrtc.so):" +
                errors;
      return;
    }
    auto *api = new Api();
    api->handle = handle;
    bool ok = true;
    auto bind = [&](auto &fn, const char *name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
          dlsym(handle, name));
      if (!fn) {
        ok = false;
        failure += std::string(failure.empty() ? "" : ", ") + name;
      }
    };
    bind(api->getErrorString, "nvrtcGetErrorString");
    bind(api->version, "nvrtcVersion");
    bind(api->createProgram, "nvrtcCreateProgram");
    bind(api->destroyProgram, "nvrtcDestroyProgram");
    bind(api->compileProgram, "nvrtcCompileProgram");
    bind(api->getPTXSize, "nvrtcGetPTXSize");
    bind(api->getPTX, "nvrtcGetPTX");
    bind(api->getCUBINSize, "nvrtcGetCUBINSize");
    bind(api->getCUBIN, "nvrtcGetCUBIN");
    bind(api->getProgramLogSize, "nvrtcGetProgramLogSize");
    bind(api->getProgramLog, "nvrtcGetProgramLog");
    if (!ok) {
      failure = "NVRTC lacks " + failure;
      dlclose(handle);
      delete api;
      return;
    }
    int major = 0, minor = 0;
    api->version(&major, &minor);
    instance = new Nvrtc();
    instance->api = api;
    instance->versionText = std::to_string(major) + "." + std::to_string(minor);
    instance->hasMinimal = major > 12 || (major == 12 && minor >= 4);
  });
  if (!instance && whyNot)
    *whyNot = failure;
  return instance;
}

std::vector<std::string> Nvrtc::options(const std::string &arch) {
  return {"--gpu-architecture=" + arch,
          "--std=c++17",
          "--fmad=false",     // a*b+c rounds twice, as in the reference
          "--prec-div=true",  // IEEE division
          "--prec-sqrt=true", // IEEE square root
          "--ftz=false",      // keep subnormals
          "--device-as-default-execution-space"};
}

Nvrtc::Result Nvrtc::compile(const std::string &source, const std::string &name,
                             const std::vector<std::string> &options) const {
  Result result;
  nvrtcProgram program = nullptr;
  nvrtcResult status = api->createProgram(&program, source.c_str(),
                                          name.c_str(), 0, nullptr, nullptr);
  if (status != NVRTC_SUCCESS) {
    result.log = api->getErrorString(status);
    return result;
  }
  std::vector<const char *> argv;
  for (const std::string &o : options)
    argv.push_back(o.c_str());
  if (hasMinimal)
    argv.push_back("--minimal");
  status = api->compileProgram(program, int(argv.size()), argv.data());
  size_t logSize = 0;
  if (api->getProgramLogSize(program, &logSize) == NVRTC_SUCCESS &&
      logSize > 1) {
    result.log.resize(logSize);
    api->getProgramLog(program, result.log.data());
    result.log.resize(logSize - 1); // The terminating NUL.
  }
  if (status != NVRTC_SUCCESS) {
    if (result.log.empty())
      result.log = api->getErrorString(status);
    api->destroyProgram(&program);
    return result;
  }
  size_t ptxSize = 0;
  if (api->getPTXSize(program, &ptxSize) == NVRTC_SUCCESS && ptxSize > 0) {
    result.ptx.resize(ptxSize);
    if (api->getPTX(program, result.ptx.data()) == NVRTC_SUCCESS) {
      result.ptx.resize(ptxSize - 1);
      result.ok = true;
    }
  }
  // The machine code for the real architecture compiled for (options()
  // names one), so the driver need not compile the PTX at load time.
  size_t cubinSize = 0;
  if (result.ok && api->getCUBINSize(program, &cubinSize) == NVRTC_SUCCESS &&
      cubinSize > 0) {
    result.cubin.resize(cubinSize);
    if (api->getCUBIN(program, result.cubin.data()) != NVRTC_SUCCESS)
      result.cubin.clear();
  }
  if (result.ok && result.cubin.empty()) {
    result.ok = false;
    result.log = "NVRTC produced no CUBIN";
  }
  if (!result.ok && result.log.empty())
    result.log = "NVRTC produced no PTX";
  api->destroyProgram(&program);
  return result;
}
