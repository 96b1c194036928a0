//===- Checkpoint.cpp - Training checkpoints ------------------------------===//

#include "fusec/Driver/Checkpoint.h"
#include "fusec/Support/File.h"
#include "fusec/Support/Npy.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace fusec;

namespace {

constexpr int kFormatVersion = 1;

bool syncDirectory(const std::string &dir, std::string &error) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) {
    error = dir + ": cannot sync the directory: " + errnoMessage(errno);
    if (fd >= 0)
      ::close(fd);
    return false;
  }
  ::close(fd);
  return true;
}

bool removeTree(const std::string &dir) {
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return false;
  while (dirent *e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..")
      ::unlink((dir + "/" + name).c_str());
  }
  ::closedir(d);
  return ::rmdir(dir.c_str()) == 0;
}

std::string stepName(int64_t step) {
  return llvm::formatv("step-{0:d9}", step).str();
}

/// A testing hook (documented in docs/training.md): FUSEC_TEST_CHECKPOINT_
/// CRASH=files exits the process after a checkpoint's tensors are written
/// and before its manifest is, as a crash or a kill there would.
void crashPointForTests(const char *point) {
  const char *at = std::getenv("FUSEC_TEST_CHECKPOINT_CRASH");
  if (at && std::string_view(at) == point)
    ::_exit(70);
}

llvm::json::Array shapeJson(const Shape &shape) {
  llvm::json::Array a;
  for (int64_t d : shape)
    a.push_back(d);
  return a;
}

} // namespace

bool fusec::writeCheckpoint(const std::string &dir, const Checkpoint &c,
                            std::string &error) {
  if (!createDirectories(dir, error))
    return false;
  std::string name = stepName(c.step);
  std::string final = dir + "/" + name;
  std::string tmp = dir + "/." + name + ".tmp-" + std::to_string(::getpid());
  removeTree(tmp);
  if (::mkdir(tmp.c_str(), 0755) != 0) {
    error = tmp + ": cannot create the directory: " + errnoMessage(errno);
    return false;
  }
  llvm::json::Array tensors;
  for (auto [i, entry] : llvm::enumerate(c.tensors)) {
    std::string file = "t" + std::to_string(i) + ".npy";
    if (!writeNpy(tmp + "/" + file, entry.second, error)) {
      removeTree(tmp);
      return false;
    }
    tensors.push_back(llvm::json::Object{
        {"name", entry.first},
        {"file", file},
        {"dtype", std::string(dtypeName(entry.second.dtype()))},
        {"shape", shapeJson(entry.second.shape())}});
  }
  crashPointForTests("files");
  llvm::json::Object manifest{{"format", "fusec-checkpoint"},
                              {"version", kFormatVersion},
                              {"step", c.step},
                              {"seed", int64_t(c.seed)},
                              {"shuffle", c.shuffle},
                              {"batch_size", c.batchSize},
                              {"samples", c.samples},
                              {"tensors", std::move(tensors)}};
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest)));
  if (!writeFileAtomically(tmp + "/manifest.json", text + "\n", error) ||
      !syncDirectory(tmp, error)) {
    removeTree(tmp);
    return false;
  }
  // A checkpoint of this step may exist (a run resumed from it): the new one
  // replaces it.
  removeTree(final);
  if (::rename(tmp.c_str(), final.c_str()) != 0) {
    error = final +
            ": cannot rename the checkpoint into place: " + errnoMessage(errno);
    removeTree(tmp);
    return false;
  }
  if (!syncDirectory(dir, error))
    return false;
  crashPointForTests("latest");
  std::string previous;
  {
    FileBytes bytes;
    std::string ignored;
    if (readFile(dir + "/latest", bytes, ignored))
      previous = std::string(bytes.view().substr(0, bytes.view().find('\n')));
  }
  if (!writeFileAtomically(dir + "/latest", name + "\n", error))
    return false;
  // Keep the newest two; older ones (and temporaries of dead processes) go.
  if (DIR *d = ::opendir(dir.c_str())) {
    std::vector<std::string> stale;
    while (dirent *e = ::readdir(d)) {
      std::string entry = e->d_name;
      bool isStep =
          entry.rfind("step-", 0) == 0 && entry != name && entry != previous;
      bool isTemp = entry.rfind(".step-", 0) == 0;
      if (isStep || isTemp)
        stale.push_back(entry);
    }
    ::closedir(d);
    for (const std::string &entry : stale)
      removeTree(dir + "/" + entry);
  }
  return true;
}

bool fusec::readCheckpoint(const std::string &dir, Checkpoint &c,
                           BufferAllocator &allocator, std::string &error) {
  FileBytes latest;
  if (!readFile(dir + "/latest", latest, error)) {
    error += " (not a checkpoint directory: it has no 'latest')";
    return false;
  }
  std::string name(latest.view().substr(0, latest.view().find('\n')));
  if (name.rfind("step-", 0) != 0 || name.find('/') != std::string::npos) {
    error = dir + "/latest: does not name a checkpoint ('" + name + "')";
    return false;
  }
  std::string base = dir + "/" + name;
  std::string manifestPath = base + "/manifest.json";
  FileBytes bytes;
  if (!readFile(manifestPath, bytes, error))
    return false;
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(bytes.view());
  if (!parsed) {
    error = manifestPath + ": " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *m = parsed->getAsObject();
  auto bad = [&](const std::string &what) {
    error = manifestPath + ": " + what;
    return false;
  };
  if (!m || m->getString("format") != "fusec-checkpoint")
    return bad("not a fusec checkpoint manifest");
  if (m->getInteger("version") != kFormatVersion)
    return bad("unsupported checkpoint version (this fusec reads version " +
               std::to_string(kFormatVersion) + ")");
  std::optional<int64_t> step = m->getInteger("step"),
                         seed = m->getInteger("seed"),
                         batch = m->getInteger("batch_size"),
                         samples = m->getInteger("samples");
  std::optional<bool> shuffle = m->getBoolean("shuffle");
  const llvm::json::Array *tensors = m->getArray("tensors");
  if (!step || *step < 0 || !seed || !batch || !samples || !shuffle || !tensors)
    return bad("missing or invalid counters");
  c.step = *step;
  c.seed = uint64_t(*seed);
  c.shuffle = *shuffle;
  c.batchSize = *batch;
  c.samples = *samples;
  c.tensors.clear();
  for (const llvm::json::Value &v : *tensors) {
    const llvm::json::Object *t = v.getAsObject();
    std::optional<llvm::StringRef> tname =
        t ? t->getString("name") : std::nullopt;
    std::optional<llvm::StringRef> file =
        t ? t->getString("file") : std::nullopt;
    if (!tname || !file || file->contains('/') || file->starts_with("."))
      return bad("invalid tensor entry");
    Buffer value = readNpy(base + "/" + file->str(), error, &allocator);
    if (!value)
      return false;
    c.tensors.emplace_back(tname->str(), std::move(value));
  }
  return true;
}

bool fusec::writeNamedTensors(
    const std::string &dir,
    const std::vector<std::pair<std::string, Buffer>> &named,
    std::vector<std::string> &written, std::string &error) {
  if (!createDirectories(dir, error))
    return false;
  std::vector<std::pair<std::string, std::string>> files;
  llvm::json::Array entries;
  for (const auto &[name, value] : named) {
    // A file name from the tensor's name: letters, digits, '.', '-', '_'.
    std::string file;
    for (char ch : name)
      file += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' ||
               ch == '-' || ch == '_')
                  ? ch
                  : '_';
    if (file.empty() || file[0] == '.')
      file = "_" + file;
    // Names that map to one file ("a/b", "a_b") get a number.
    std::string stem = file;
    for (int k = 2; llvm::any_of(files,
                                 [&](const auto &f) {
                                   return f.first == dir + "/" + file + ".npy";
                                 });
         ++k)
      file = stem + "-" + std::to_string(k);
    file += ".npy";
    files.emplace_back(dir + "/" + file, serializeNpy(value));
    entries.push_back(
        llvm::json::Object{{"name", name},
                           {"file", file},
                           {"dtype", std::string(dtypeName(value.dtype()))},
                           {"shape", shapeJson(value.shape())}});
    written.push_back("wrote " + dir + "/" + file + ": " +
                      std::string(dtypeName(value.dtype())) + "[" +
                      formatShape(value.shape()) + "] (" + name + ")");
  }
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                    {"parameters", std::move(entries)}}));
  files.emplace_back(dir + "/manifest.json", text + "\n");
  if (!writeFilesAtomically(files, error)) {
    written.clear();
    return false;
  }
  return true;
}
