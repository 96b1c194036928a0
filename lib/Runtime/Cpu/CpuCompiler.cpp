//===- CpuCompiler.cpp - The CPU forms of kernels, compiled ---------------===//

#include "fusec/Runtime/Cpu/CpuCompiler.h"
#include "fusec/Support/File.h"
#include "fusec/Support/KernelCache.h"

#include <csignal>
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

extern char **environ;

using namespace fusec;
using namespace fusec::rt;

namespace {

/// A directory of its own under $TMPDIR (or /tmp), removed with the
/// object.
class TemporaryDirectory {
public:
  TemporaryDirectory() {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/fusec-cpu-XXXXXX";
    if (mkdtemp(pattern.data()))
      dir = pattern;
  }
  ~TemporaryDirectory() {
    for (const std::string &f : files)
      unlink(f.c_str());
    if (!dir.empty())
      rmdir(dir.c_str());
  }
  bool ok() const { return !dir.empty(); }
  std::string file(const std::string &name) {
    files.push_back(dir + "/" + name);
    return files.back();
  }

private:
  std::string dir;
  std::vector<std::string> files;
};

/// runProcess's status for a process killed at its time limit.
constexpr int kTimedOut = -2;

/// Runs `argv` with its standard output and error in `log`; its exit
/// status, -1 when it could not start or died of a signal, kTimedOut when
/// it ran past `seconds` (it and what it started, one process group, are
/// then killed: a compiler driver's own children included).
int runProcess(const std::vector<std::string> &argv, const std::string &log,
               double seconds) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int spawned =
      posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0)
    return -1;
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid)
      break;
    if (done < 0 && errno != EINTR)
      return -1;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
      return kTimedOut;
    }
    usleep(2000);
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string readText(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The first line of `compiler --version` ("" when it does not run), once
/// per compiler and process.
std::string compilerIdentity(const std::string &compiler, double seconds) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = known.find(compiler);
  if (it != known.end())
    return it->second;
  std::string identity;
  TemporaryDirectory tmp;
  if (tmp.ok()) {
    std::string log = tmp.file("version");
    if (runProcess({compiler, "--version"}, log, seconds) == 0) {
      identity = readText(log);
      identity = identity.substr(0, identity.find('\n'));
    }
  }
  return known[compiler] = identity;
}

/// What -march=native compiles for: the CPU's model and feature flags.
std::string cpuIdentity() {
  static const std::string identity = [] {
    std::string out;
    std::ifstream in("/proc/cpuinfo");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("model name", 0) == 0 || line.rfind("flags", 0) == 0 ||
          line.rfind("Features", 0) == 0 || line.rfind("CPU part", 0) == 0)
        out += line + "\n";
      if (line.empty() && !out.empty())
        break; // The first processor is enough.
    }
    return out;
  }();
  return identity;
}

/// One cache object per directory, shared by the process.
KernelCache &cacheFor(const std::string &directory) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<KernelCache>> caches;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<KernelCache> &c = caches[directory];
  if (!c)
    c = std::make_unique<KernelCache>(directory);
  return *c;
}

} // namespace

CpuLibrary::~CpuLibrary() {
  if (handle)
    dlclose(handle);
}

void *CpuLibrary::lookup(const std::string &symbol) const {
  return dlsym(handle, symbol.c_str());
}

const std::vector<std::string> &fusec::rt::cpuCompilerFlags() {
  static const std::vector<std::string> flags = {"-x",
                                                 "c++",
                                                 "-std=c++17",
                                                 "-O3",
                                                 "-march=native",
                                                 "-mprefer-vector-width=512",
                                                 "-fPIC",
                                                 "-shared",
                                                 "-ffp-contract=off",
                                                 "-fno-math-errno",
                                                 "-w"};
  return flags;
}

namespace {

/// The compiler and time limit `options` stand for (their defaults from
/// the environment).
std::pair<std::string, double> resolve(const CpuCompilerOptions &options) {
  std::string compiler = options.compiler;
  if (compiler.empty()) {
    const char *env = std::getenv("FUSEC_CXX");
    compiler = env && *env ? env : "c++";
  }
  double seconds = options.timeoutSeconds;
  if (seconds <= 0) {
    const char *env = std::getenv("FUSEC_CXX_TIMEOUT");
    seconds = env && *env ? std::atof(env) : 0;
    if (!(seconds > 0))
      seconds = kDefaultCompileSeconds;
  }
  return {compiler, seconds};
}

std::string missingCompiler(const std::string &compiler) {
  return "the cpu device needs a C++ compiler to compile the kernels: '" +
         compiler + " --version' does not run (set $FUSEC_CXX)";
}

} // namespace

bool fusec::rt::haveCpuCompiler(const CpuCompilerOptions &options,
                                std::string &why) {
  auto [compiler, seconds] = resolve(options);
  if (!compilerIdentity(compiler, seconds).empty())
    return true;
  why = missingCompiler(compiler);
  return false;
}

std::unique_ptr<CpuLibrary>
fusec::rt::compileCpuLibrary(const std::string &source,
                             const CpuCompilerOptions &options,
                             std::string &error) {
  auto [compiler, seconds] = resolve(options);
  std::string identity = compilerIdentity(compiler, seconds);
  if (identity.empty()) {
    error = missingCompiler(compiler);
    return nullptr;
  }
  std::string key = "fusec cpu kernels v1\n" + identity + "\n";
  for (const std::string &f : cpuCompilerFlags())
    key += f + " ";
  key = KernelCache::hashKey(key + "\n" + cpuIdentity() + source) + "-cpu";
  std::string directory =
      options.cacheDirectory.empty()    ? KernelCache::defaultDirectory()
      : options.cacheDirectory == "off" ? std::string()
                                        : options.cacheDirectory;
  KernelCache &cache = cacheFor(directory);

  TemporaryDirectory tmp;
  if (!tmp.ok()) {
    error = "cannot create a temporary directory for the CPU kernels";
    return nullptr;
  }
  auto library = std::unique_ptr<CpuLibrary>(new CpuLibrary);
  std::optional<std::string> bytes = cache.lookup(key);
  std::string so = tmp.file("kernels.so");
  bool cached = bool(bytes);
  if (cached) {
    library->how = "from the kernel cache";
  } else {
    auto start = std::chrono::steady_clock::now();
    std::string unit = tmp.file("kernels.cpp"), log = tmp.file("log");
    if (!writeFileAtomically(unit, source, error, Durability::Unsynced))
      return nullptr;
    std::vector<std::string> argv = {compiler};
    argv.insert(argv.end(), cpuCompilerFlags().begin(),
                cpuCompilerFlags().end());
    argv.insert(argv.end(), {unit, "-o", so});
    int status = runProcess(argv, log, seconds);
    if (status == kTimedOut) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%g", seconds);
      error = compiler + " did not finish compiling the CPU kernels within " +
              limit +
              " s and was stopped (a compiler that hangs: set $FUSEC_CXX to "
              "another one; $FUSEC_CXX_TIMEOUT sets the limit)";
      return nullptr;
    }
    if (status != 0) {
      std::string text = readText(log);
      if (text.size() > 4000)
        text = text.substr(0, 4000) + "...";
      error = "internal error: " + compiler +
              " failed on the CPU kernels (exit status " +
              std::to_string(status) + "): " + text;
      return nullptr;
    }
    bytes = readText(so);
    cache.store(key, *bytes);
    char seconds[32];
    std::snprintf(
        seconds, sizeof seconds, "%.2f",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
    library->how = "compiled by " + identity + " in " + seconds + " s";
  }
  if (cached && !writeFileAtomically(so, *bytes, error, Durability::Unsynced))
    return nullptr;
  library->handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library->handle) {
    const char *why = dlerror();
    error = "cannot load the CPU kernels: " +
            std::string(why ? why : "unknown error");
    return nullptr;
  }
  return library;
}
