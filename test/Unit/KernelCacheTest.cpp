//===- KernelCacheTest.cpp - Tests of the compiled kernel cache -----------===//
//
// Expected values do not come from the code under test:
//
//  - hashKey: the expected strings were computed by a separate pure-Python
//    XXH64 (written from the xxHash specification) as
//      '%016x%016x' % (xxh64(text, 0), xxh64(text, 0x243F6A8885A308D3))
//    and that Python XXH64 was checked, on these inputs and 6,000 random
//    (input, seed) pairs, against the reference C library (libxxhash 0.8.1,
//    called through ctypes: XXH64(buf, len, seed)).
//  - The on-disk layout is built by hand below (kHelloEntry), with the
//    payload checksum XXH64(b"hello", 0) = 0x26c7827d889f6da3 from the same
//    reference library.
//
// Every test uses its own fresh directory under ::testing::TempDir(); file
// times are set explicitly (utimensat) rather than waited for.
//
//===----------------------------------------------------------------------===//

#include "fusec/Support/KernelCache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <optional>
#include <set>
#include <string>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace fusec;

namespace {

constexpr size_t kHeaderSize = 24;

// The entry of payload "hello": magic "FKC1", version 1, length 5,
// checksum 0x26c7827d889f6da3, all little-endian, then the payload.
const char kHelloEntryBytes[] = "FKC1"
                                "\x01\x00\x00\x00"
                                "\x05\x00\x00\x00\x00\x00\x00\x00"
                                "\xa3\x6d\x9f\x88\x7d\x82\xc7\x26"
                                "hello";
const std::string kHelloEntry(kHelloEntryBytes, sizeof(kHelloEntryBytes) - 1);

//===----------------------------------------------------------------------===//
// File helpers
//===----------------------------------------------------------------------===//

void removeTree(const std::string &path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    return;
  if (S_ISDIR(st.st_mode)) {
    ::chmod(path.c_str(), 0755);
    if (DIR *d = ::opendir(path.c_str())) {
      std::vector<std::string> names;
      while (struct dirent *de = ::readdir(d))
        if (std::strcmp(de->d_name, ".") && std::strcmp(de->d_name, ".."))
          names.push_back(de->d_name);
      ::closedir(d);
      for (const std::string &name : names)
        removeTree(path + "/" + name);
    }
    ::rmdir(path.c_str());
  } else {
    ::unlink(path.c_str());
  }
}

/// A fresh directory, removed with its contents at the end of the test.
class TempDir {
public:
  TempDir() {
    std::string base = ::testing::TempDir();
    if (base.empty() || base.back() != '/')
      base += '/';
    std::string templ = base + "fusec-kernelcache-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    const char *made = ::mkdtemp(buf.data());
    EXPECT_NE(made, nullptr) << std::strerror(errno);
    path = made ? made : "";
  }
  ~TempDir() {
    if (!path.empty())
      removeTree(path);
  }
  std::string operator/(const std::string &name) const {
    return path + "/" + name;
  }
  std::string path;
};

bool exists(const std::string &path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::string readFile(const std::string &path) {
  std::string out;
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    out.append(buf, n);
  std::fclose(f);
  return out;
}

void writeFile(const std::string &path, const std::string &bytes) {
  FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr) << path;
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  ASSERT_EQ(std::fclose(f), 0);
}

/// Names in `dir`, sorted, without "." and "..".
std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (struct dirent *de = ::readdir(d))
      if (std::strcmp(de->d_name, ".") && std::strcmp(de->d_name, ".."))
        names.push_back(de->d_name);
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// Total size of the files named *.ptx in `dir`.
uint64_t entryBytes(const std::string &dir) {
  uint64_t total = 0;
  for (const std::string &name : listDir(dir)) {
    struct stat st;
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".ptx") == 0 &&
        ::lstat((dir + "/" + name).c_str(), &st) == 0 && S_ISREG(st.st_mode))
      total += static_cast<uint64_t>(st.st_size);
  }
  return total;
}

int64_t nowSeconds() { return static_cast<int64_t>(std::time(nullptr)); }

/// Sets the access and modification times of `path` to `seconds`.
void setMtime(const std::string &path, int64_t seconds) {
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = static_cast<time_t>(seconds);
  times[0].tv_nsec = times[1].tv_nsec = 0;
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

int64_t mtimeOf(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return -1;
  return static_cast<int64_t>(st.st_mtim.tv_sec);
}

void expectStats(const KernelCacheStats &s, int64_t memoryHits,
                 int64_t diskHits, int64_t misses, int64_t corrupt,
                 int64_t evicted, int64_t writeFailures) {
  EXPECT_EQ(s.memoryHits, memoryHits);
  EXPECT_EQ(s.diskHits, diskHits);
  EXPECT_EQ(s.misses, misses);
  EXPECT_EQ(s.corrupt, corrupt);
  EXPECT_EQ(s.evicted, evicted);
  EXPECT_EQ(s.writeFailures, writeFailures);
}

/// A payload that identifies its writer and can be checked for
/// completeness: "<writer>:<iteration>:" then filler up to a length that
/// depends on both (so values of different writers differ in size).
std::string makeValue(int writer, int iteration) {
  std::string v =
      std::to_string(writer) + ":" + std::to_string(iteration) + ":";
  size_t length = 2000 + size_t(writer) * 331 + size_t(iteration) * 7;
  char fill = static_cast<char>('a' + (writer + iteration) % 26);
  v.append(length - v.size(), fill);
  return v;
}

bool isValidValue(const std::string &v) {
  int writer = -1, iteration = -1;
  if (std::sscanf(v.c_str(), "%d:%d:", &writer, &iteration) != 2 ||
      writer < 0 || iteration < 0)
    return false;
  return v == makeValue(writer, iteration);
}

/// Sets or unsets environment variables, restoring them when destroyed.
class EnvGuard {
public:
  explicit EnvGuard(std::vector<std::string> names) {
    for (std::string &name : names) {
      const char *v = std::getenv(name.c_str());
      saved.push_back({name, v != nullptr, v ? v : ""});
    }
  }
  ~EnvGuard() {
    for (const Saved &s : saved) {
      if (s.wasSet)
        ::setenv(s.name.c_str(), s.value.c_str(), 1);
      else
        ::unsetenv(s.name.c_str());
    }
  }

private:
  struct Saved {
    std::string name;
    bool wasSet;
    std::string value;
  };
  std::vector<Saved> saved;
};

//===----------------------------------------------------------------------===//
// hashKey
//===----------------------------------------------------------------------===//

TEST(KernelCache, HashKeyMatchesReferenceValues) {
  std::string bytes100;
  for (int i = 0; i < 100; ++i)
    bytes100.push_back(static_cast<char>(i));
  struct Case {
    std::string text;
    const char *expected;
  } cases[] = {
      {"", "ef46db3751d8e9995e742a23fb3c2d61"},
      {"a", "d24ec4f1a98c6e5be6f7cffc99e5d270"},
      {"abc", "44bc2cf5ad770999f67c2831d39fdf5a"},
      {"fusec", "e2de321d79079cb57372d4e4bf9876f3"},
      {"The quick brown fox jumps over the lazy dog",
       "0b242d361fda71bc702b4f143249385e"},
      {bytes100, "6ac1e58032166597cbfa0771632251c8"},
      {std::string("nul\0byte", 8), "64bf5a4a370a9c4dca6f6a4fba5810e2"},
      {std::string(31, 'x'), "60dd0d01083b99f014ea256d5fce8b8c"},
      {std::string(32, 'x'), "e2df261fc2ec30ebcc9da8eecc21207e"},
      {std::string(1000, 'x'), "4cb9a3b69cb700e1a064e9edbea52f2c"},
  };
  std::set<std::string> seen;
  for (const Case &c : cases) {
    SCOPED_TRACE("text of length " + std::to_string(c.text.size()));
    std::string key = KernelCache::hashKey(c.text);
    EXPECT_EQ(key, c.expected);
    ASSERT_EQ(key.size(), 32u);
    for (char ch : key)
      EXPECT_TRUE((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'));
    EXPECT_EQ(KernelCache::hashKey(c.text), key); // Deterministic.
    seen.insert(key);
  }
  EXPECT_EQ(seen.size(), std::size(cases));
}

//===----------------------------------------------------------------------===//
// Memory and disk round trips
//===----------------------------------------------------------------------===//

TEST(KernelCache, MemoryOnly) {
  KernelCache cache("");
  EXPECT_EQ(cache.directory(), "");
  EXPECT_FALSE(cache.lookup("k").has_value());
  cache.store("k", "v1");
  EXPECT_EQ(cache.lookup("k"), std::optional<std::string>("v1"));
  cache.store("k", "v2");
  EXPECT_EQ(cache.lookup("k"), std::optional<std::string>("v2"));
  EXPECT_FALSE(cache.lookup("other").has_value());
  expectStats(cache.stats(), /*memoryHits=*/2, /*diskHits=*/0, /*misses=*/2,
              /*corrupt=*/0, /*evicted=*/0, /*writeFailures=*/0);
}

TEST(KernelCache, StoreThenLookupInNewInstance) {
  TempDir tmp;
  std::string key = KernelCache::hashKey("kernel source");
  {
    KernelCache writer(tmp.path);
    EXPECT_EQ(writer.directory(), tmp.path);
    writer.store(key, "hello");
    expectStats(writer.stats(), 0, 0, 0, 0, 0, 0);
  }
  // One file, <key>.ptx, with the documented layout; no temporaries.
  EXPECT_EQ(listDir(tmp.path), std::vector<std::string>{key + ".ptx"});
  EXPECT_EQ(readFile(tmp / (key + ".ptx")), kHelloEntry);

  KernelCache reader(tmp.path);
  EXPECT_EQ(reader.lookup(key), std::optional<std::string>("hello"));
  expectStats(reader.stats(), 0, 1, 0, 0, 0, 0);
  // Now in memory: found even after the file is gone.
  ASSERT_EQ(::unlink((tmp / (key + ".ptx")).c_str()), 0);
  EXPECT_EQ(reader.lookup(key), std::optional<std::string>("hello"));
  expectStats(reader.stats(), 1, 1, 0, 0, 0, 0);
}

TEST(KernelCache, ReadsHandWrittenEntry) {
  TempDir tmp;
  std::string key = KernelCache::hashKey("hand written");
  writeFile(tmp / (key + ".ptx"), kHelloEntry);
  KernelCache cache(tmp.path);
  EXPECT_EQ(cache.lookup(key), std::optional<std::string>("hello"));
  expectStats(cache.stats(), 0, 1, 0, 0, 0, 0);
}

TEST(KernelCache, BinaryEmptyAndLargePayloads) {
  TempDir tmp;
  std::string binary;
  for (int i = 0; i < 512; ++i)
    binary.push_back(static_cast<char>(i * 37));
  std::string large(3 << 20, '\0');
  for (size_t i = 0; i < large.size(); ++i)
    large[i] = static_cast<char>((i * 2654435761u) >> 13);
  {
    KernelCache writer(tmp.path);
    writer.store("binary", binary);
    writer.store("empty", "");
    writer.store("large", large);
    EXPECT_EQ(writer.stats().writeFailures, 0);
  }
  KernelCache reader(tmp.path);
  EXPECT_EQ(reader.lookup("binary"), std::optional<std::string>(binary));
  EXPECT_EQ(reader.lookup("empty"), std::optional<std::string>(""));
  EXPECT_EQ(reader.lookup("large"), std::optional<std::string>(large));
  expectStats(reader.stats(), 0, 3, 0, 0, 0, 0);
}

TEST(KernelCache, StoreOverwrites) {
  TempDir tmp;
  KernelCache writer(tmp.path);
  writer.store("k", "first value");
  writer.store("k", "second");
  EXPECT_EQ(writer.lookup("k"), std::optional<std::string>("second"));
  KernelCache reader(tmp.path);
  EXPECT_EQ(reader.lookup("k"), std::optional<std::string>("second"));
  EXPECT_EQ(listDir(tmp.path), std::vector<std::string>{"k.ptx"});
}

TEST(KernelCache, Miss) {
  TempDir tmp;
  KernelCache cache(tmp.path);
  EXPECT_FALSE(cache.lookup(KernelCache::hashKey("absent")).has_value());
  expectStats(cache.stats(), 0, 0, 1, 0, 0, 0);

  // A directory that does not exist: a miss, and lookup creates nothing.
  KernelCache missing(tmp / "not/there");
  EXPECT_FALSE(missing.lookup("k").has_value());
  expectStats(missing.stats(), 0, 0, 1, 0, 0, 0);
  EXPECT_FALSE(exists(tmp / "not"));
}

TEST(KernelCache, KeysThatAreNotFileNamesStayInsideTheDirectory) {
  TempDir tmp;
  std::string sub = tmp / "cache";
  std::string evil = "../escape/x y";
  std::string other = "../escape/x z";
  {
    KernelCache writer(sub);
    writer.store(evil, "one");
    writer.store(other, "two");
    writer.store("", "empty key");
    EXPECT_EQ(writer.stats().writeFailures, 0);
  }
  EXPECT_EQ(listDir(tmp.path), std::vector<std::string>{"cache"});
  EXPECT_EQ(listDir(sub).size(), 3u);
  EXPECT_TRUE(exists(sub + "/@" + KernelCache::hashKey(evil) + ".ptx"));
  KernelCache reader(sub);
  EXPECT_EQ(reader.lookup(evil), std::optional<std::string>("one"));
  EXPECT_EQ(reader.lookup(other), std::optional<std::string>("two"));
  EXPECT_EQ(reader.lookup(""), std::optional<std::string>("empty key"));
  expectStats(reader.stats(), 0, 3, 0, 0, 0, 0);
}

//===----------------------------------------------------------------------===//
// Corrupt entries
//===----------------------------------------------------------------------===//

TEST(KernelCache, CorruptEntriesAreMissesAndRewritten) {
  struct Mutation {
    const char *name;
    void (*apply)(std::string &bytes);
  } mutations[] = {
      {"truncated payload", [](std::string &b) { b.pop_back(); }},
      {"truncated header", [](std::string &b) { b.resize(10); }},
      {"header only", [](std::string &b) { b.resize(kHeaderSize); }},
      {"flipped payload byte",
       [](std::string &b) { b[kHeaderSize + 3] ^= 0x01; }},
      {"flipped checksum byte", [](std::string &b) { b[16] ^= 0x80; }},
      {"wrong magic", [](std::string &b) { b[0] = 'X'; }},
      {"wrong version", [](std::string &b) { b[4] = 2; }},
      {"length field too large", [](std::string &b) { b[8] += 1; }},
      {"length field huge", [](std::string &b) { b[15] = '\x7f'; }},
      {"zero-length file", [](std::string &b) { b.clear(); }},
      {"extra trailing bytes", [](std::string &b) { b += "junk"; }},
  };
  std::string payload = "// PTX for a kernel\n.version 7.0\n";
  for (const Mutation &m : mutations) {
    SCOPED_TRACE(m.name);
    TempDir tmp;
    std::string key = KernelCache::hashKey(m.name);
    std::string file = tmp / (key + ".ptx");
    KernelCache(tmp.path).store(key, payload);
    std::string bytes = readFile(file);
    ASSERT_EQ(bytes.size(), kHeaderSize + payload.size());
    m.apply(bytes);
    writeFile(file, bytes);

    KernelCache reader(tmp.path);
    EXPECT_FALSE(reader.lookup(key).has_value());
    expectStats(reader.stats(), 0, 0, /*misses=*/1, /*corrupt=*/1, 0, 0);
    EXPECT_FALSE(exists(file));

    // Stored again, and read back by a fresh instance.
    reader.store(key, payload + "v2");
    KernelCache again(tmp.path);
    EXPECT_EQ(again.lookup(key), std::optional<std::string>(payload + "v2"));
    expectStats(again.stats(), 0, 1, 0, 0, 0, 0);

    // A corrupt file that nobody looked up is simply replaced by a store.
    bytes = readFile(file);
    m.apply(bytes);
    writeFile(file, bytes);
    KernelCache(tmp.path).store(key, "v3");
    EXPECT_EQ(KernelCache(tmp.path).lookup(key),
              std::optional<std::string>("v3"));
    EXPECT_EQ(listDir(tmp.path), std::vector<std::string>{key + ".ptx"});
  }
}

TEST(KernelCache, EntryPathOccupiedByDirectory) {
  TempDir tmp;
  ASSERT_EQ(::mkdir((tmp / "k.ptx").c_str(), 0755), 0);
  KernelCache cache(tmp.path);
  EXPECT_FALSE(cache.lookup("k").has_value());
  cache.store("k", "value");
  expectStats(cache.stats(), 0, 0, 1, 0, 0, /*writeFailures=*/1);
  // Nothing left behind, the directory untouched, the value still in memory.
  EXPECT_EQ(listDir(tmp.path), std::vector<std::string>{"k.ptx"});
  EXPECT_EQ(cache.lookup("k"), std::optional<std::string>("value"));
}

//===----------------------------------------------------------------------===//
// Eviction
//===----------------------------------------------------------------------===//

TEST(KernelCache, EvictsLeastRecentlyUsed) {
  TempDir tmp;
  const uint64_t entrySize = kHeaderSize + 1000;
  // Room for 8 entries; evicting goes down to 90%, i.e. 7 entries.
  const uint64_t limit = 8 * entrySize + entrySize / 2;
  auto key = [](int i) { return "entry" + std::to_string(i); };
  auto file = [&](int i) { return tmp / (key(i) + ".ptx"); };
  auto value = [](int i) { return std::string(1000, char('A' + i % 26)); };
  {
    KernelCache writer(tmp.path, limit);
    for (int i = 0; i < 8; ++i)
      writer.store(key(i), value(i));
    EXPECT_EQ(writer.stats().evicted, 0);
  }
  ASSERT_EQ(entryBytes(tmp.path), 8 * entrySize);

  // Entry i last used 10000 - 100 * i seconds ago: entry0 is the oldest...
  int64_t now = nowSeconds();
  for (int i = 0; i < 8; ++i)
    setMtime(file(i), now - 10000 + 100 * i);
  // ...but reading it makes it the most recently used.
  KernelCache cache(tmp.path, limit);
  EXPECT_EQ(cache.lookup(key(0)), std::optional<std::string>(value(0)));
  EXPECT_GE(mtimeOf(file(0)), now - 60);

  cache.store(key(8), value(8));
  EXPECT_EQ(cache.stats().evicted, 2);
  EXPECT_TRUE(exists(file(0)));
  EXPECT_FALSE(exists(file(1)));
  EXPECT_FALSE(exists(file(2)));
  for (int i = 3; i <= 8; ++i)
    EXPECT_TRUE(exists(file(i))) << i;
  EXPECT_EQ(entryBytes(tmp.path), 7 * entrySize);

  // Many more stores: the directory never exceeds the limit.
  for (int i = 9; i < 60; ++i) {
    cache.store(key(i), value(i));
    EXPECT_LE(entryBytes(tmp.path), limit) << i;
    EXPECT_TRUE(exists(file(i))) << i;
  }
  // From 7 entries, every second store goes past 8 and evicts 2.
  EXPECT_EQ(cache.stats().evicted, 2 + 50);
  EXPECT_EQ(listDir(tmp.path).size(), 8u);
  EXPECT_EQ(cache.stats().writeFailures, 0);
  // An evicted entry is still in this instance's memory, but not on disk.
  EXPECT_FALSE(exists(file(9)));
  EXPECT_EQ(cache.lookup(key(9)), std::optional<std::string>(value(9)));
  EXPECT_FALSE(KernelCache(tmp.path, limit).lookup(key(9)).has_value());
}

TEST(KernelCache, EvictionIgnoresOtherFilesAndRemovesStaleTemporaries) {
  TempDir tmp;
  const uint64_t limit = 4096;
  std::string big(5 * limit, 'z');
  writeFile(tmp / "notes.txt", big);
  writeFile(tmp / ".fusec-tmp-1-2-3", big); // A writer at work.
  writeFile(tmp / ".fusec-tmp-4-5-6", big); // Left by a crash.
  writeFile(tmp / ".fusec-tmp-7-8-9", "");  // A crash, 30 minutes ago.
  setMtime(tmp / ".fusec-tmp-4-5-6", nowSeconds() - 2 * 3600);
  setMtime(tmp / ".fusec-tmp-7-8-9", nowSeconds() - 30 * 60);
  ASSERT_EQ(::mkdir((tmp / "subdir.ptx").c_str(), 0755), 0);
  writeFile(tmp / "subdir.ptx/inner.ptx", big);

  KernelCache cache(tmp.path, limit);
  cache.store("a", std::string(1000, 'a'));
  cache.store("b", std::string(1000, 'b'));
  EXPECT_EQ(cache.stats().evicted, 0);
  EXPECT_EQ(
      listDir(tmp.path),
      (std::vector<std::string>{".fusec-tmp-1-2-3", ".fusec-tmp-7-8-9", "a.ptx",
                                "b.ptx", "notes.txt", "subdir.ptx"}));
  EXPECT_TRUE(exists(tmp / "subdir.ptx/inner.ptx"));
}

TEST(KernelCache, NoLimitMeansNoEviction) {
  TempDir tmp;
  KernelCache cache(tmp.path, /*maxDiskBytes=*/0);
  for (int i = 0; i < 40; ++i)
    cache.store("k" + std::to_string(i), std::string(4096, 'x'));
  EXPECT_EQ(cache.stats().evicted, 0);
  EXPECT_EQ(listDir(tmp.path).size(), 40u);
}

//===----------------------------------------------------------------------===//
// Directories
//===----------------------------------------------------------------------===//

TEST(KernelCache, CreatesMissingDirectories) {
  TempDir tmp;
  mode_t oldMask = ::umask(022);
  std::string dir = tmp / "a/b/c";
  KernelCache cache(dir);
  cache.store("k", "v");
  ::umask(oldMask);
  EXPECT_EQ(cache.stats().writeFailures, 0);
  for (const char *sub : {"a", "a/b", "a/b/c"}) {
    struct stat st;
    ASSERT_EQ(::stat((tmp / sub).c_str(), &st), 0) << sub;
    EXPECT_TRUE(S_ISDIR(st.st_mode)) << sub;
    EXPECT_EQ(st.st_mode & 0777, 0755u) << sub;
  }
  EXPECT_EQ(KernelCache(dir).lookup("k"), std::optional<std::string>("v"));
}

TEST(KernelCache, UnwritableDirectory) {
  TempDir tmp;
  writeFile(tmp / "file", "a regular file");
  // A directory under a regular file can be neither created nor written
  // (even by root), and so can't a "directory" that is a regular file.
  for (std::string dir : {tmp / "file/sub", tmp / "file"}) {
    SCOPED_TRACE(dir);
    KernelCache cache(dir);
    cache.store("k", "v");
    cache.store("k2", "v2");
    expectStats(cache.stats(), 0, 0, 0, 0, 0, /*writeFailures=*/2);
    // The value is still served from memory; other keys miss.
    EXPECT_EQ(cache.lookup("k"), std::optional<std::string>("v"));
    EXPECT_FALSE(cache.lookup("k3").has_value());
    KernelCache other(dir);
    EXPECT_FALSE(other.lookup("k").has_value());
    expectStats(other.stats(), 0, 0, 1, 0, 0, 0);
  }
  EXPECT_EQ(readFile(tmp / "file"), "a regular file");
  EXPECT_EQ(listDir(tmp.path), std::vector<std::string>{"file"});
}

//===----------------------------------------------------------------------===//
// Concurrency
//===----------------------------------------------------------------------===//

TEST(KernelCache, ConcurrentThreadsStoringOneKey) {
  TempDir tmp;
  const std::string key = KernelCache::hashKey("contended");
  const int writers = 8, iterations = 40;
  KernelCache shared(tmp.path);
  std::atomic<int> done{0}, bad{0}, corrupt{0}, failures{0}, reads{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < iterations; ++i) {
        if (w % 2) {
          shared.store(key, makeValue(w, i));
        } else {
          KernelCache own(tmp.path);
          own.store(key, makeValue(w, i));
          failures += int(own.stats().writeFailures);
        }
      }
      ++done;
    });
  for (int r = 0; r < 3; ++r)
    threads.emplace_back([&] {
      do {
        // A fresh instance, so that every lookup reads the disk.
        KernelCache reader(tmp.path);
        std::optional<std::string> v = reader.lookup(key);
        if (v && !isValidValue(*v))
          ++bad;
        corrupt += int(reader.stats().corrupt);
        ++reads;
      } while (done.load() < writers);
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(corrupt.load(), 0);
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(shared.stats().writeFailures, 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_EQ(listDir(tmp.path), std::vector<std::string>{key + ".ptx"});
  std::optional<std::string> v = KernelCache(tmp.path).lookup(key);
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(isValidValue(*v));
}

TEST(KernelCache, ConcurrentProcessesStoringOneKey) {
  TempDir tmp;
  const std::string key = KernelCache::hashKey("contended across processes");
  const int children = 4, iterations = 40;
  std::vector<pid_t> pids;
  for (int c = 0; c < children; ++c) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << std::strerror(errno);
    if (pid == 0) {
      // The child: no gtest assertions, only an exit status.
      int status = 0;
      for (int i = 0; i < iterations; ++i) {
        KernelCache writer(tmp.path);
        writer.store(key, makeValue(c, i));
        if (writer.stats().writeFailures)
          status |= 1;
        KernelCache reader(tmp.path);
        std::optional<std::string> v = reader.lookup(key);
        // Some entry exists from our own store on: never a miss.
        if (!v)
          status |= 2;
        else if (!isValidValue(*v))
          status |= 4;
        if (reader.stats().corrupt)
          status |= 8;
      }
      ::_exit(status);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  EXPECT_EQ(listDir(tmp.path), std::vector<std::string>{key + ".ptx"});
  KernelCache reader(tmp.path);
  std::optional<std::string> v = reader.lookup(key);
  ASSERT_TRUE(v.has_value());
  EXPECT_TRUE(isValidValue(*v));
  expectStats(reader.stats(), 0, 1, 0, 0, 0, 0);
}

//===----------------------------------------------------------------------===//
// defaultDirectory
//===----------------------------------------------------------------------===//

TEST(KernelCache, DefaultDirectory) {
  EnvGuard guard({"FUSEC_CACHE_DIR", "XDG_CACHE_HOME", "HOME"});
  ::setenv("XDG_CACHE_HOME", "/xdg/cache", 1);
  ::setenv("HOME", "/home/user", 1);

  ::setenv("FUSEC_CACHE_DIR", "/explicit/dir", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/explicit/dir");
  for (const char *off : {"off", "OFF", "0", ""}) {
    ::setenv("FUSEC_CACHE_DIR", off, 1);
    EXPECT_EQ(KernelCache::defaultDirectory(), "") << '"' << off << '"';
  }

  ::unsetenv("FUSEC_CACHE_DIR");
  EXPECT_EQ(KernelCache::defaultDirectory(), "/xdg/cache/fusec");
  ::setenv("XDG_CACHE_HOME", "/xdg/cache/", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/xdg/cache/fusec");
  // Empty or relative XDG_CACHE_HOME is ignored (XDG base directory spec).
  ::setenv("XDG_CACHE_HOME", "", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/home/user/.cache/fusec");
  ::setenv("XDG_CACHE_HOME", "relative/cache", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/home/user/.cache/fusec");

  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(KernelCache::defaultDirectory(), "/home/user/.cache/fusec");
  ::setenv("HOME", "/", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "/.cache/fusec");
  ::setenv("HOME", "", 1);
  EXPECT_EQ(KernelCache::defaultDirectory(), "");
  ::unsetenv("HOME");
  EXPECT_EQ(KernelCache::defaultDirectory(), "");
}

} // namespace
