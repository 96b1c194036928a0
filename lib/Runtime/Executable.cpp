//===- Executable.cpp - The fusec executable artifact ---------------------===//
//
// The .fsx format (docs/executable-format.md): a line-oriented ASCII header
// that describes everything except the bulky data, then the payload: the PTX
// texts and the constants' bytes, back to back, each referenced from the
// header by offset and length. Only the canonical encoding is accepted (one
// space between fields, decimal integers without leading zeros or '+', one
// escape for each byte), so serializing a parsed file gives back its bytes.
//
// The parser trusts nothing: it reads through a cursor that reports the end
// of the input as truncation, checks every count against the bytes left
// before storing records, and every offset and length against the payload
// before copying. Then the whole executable is validated
// (ExecutableValidation.cpp).
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Executable.h"
#include "fusec/Support/Buffer.h"
#include "fusec/Support/File.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace fusec;
using namespace fusec::rt;

/// The first line is "fusec-executable <version>\n" in every version.
static constexpr std::string_view kMagic = "fusec-executable ";

const char *fusec::rt::bufferKindName(BufferKind kind) {
  switch (kind) {
  case BufferKind::Input:
    return "input";
  case BufferKind::Constant:
    return "constant";
  case BufferKind::Temp:
    return "temp";
  case BufferKind::Alias:
    return "alias";
  }
  return "invalid";
}

const char *fusec::rt::matmulEpilogueName(MatmulEpilogue epilogue) {
  switch (epilogue) {
  case MatmulEpilogue::None:
    return "none";
  case MatmulEpilogue::Bias:
    return "bias";
  case MatmulEpilogue::Relu:
    return "relu";
  case MatmulEpilogue::ReluBias:
    return "relu_bias";
  case MatmulEpilogue::Gelu:
    return "gelu";
  case MatmulEpilogue::GeluBias:
    return "gelu_bias";
  }
  return "invalid";
}

bool fusec::rt::epilogueHasBias(MatmulEpilogue epilogue) {
  return epilogue == MatmulEpilogue::Bias ||
         epilogue == MatmulEpilogue::ReluBias ||
         epilogue == MatmulEpilogue::GeluBias;
}

std::optional<Executable> fusec::rt::readExecutableFile(const std::string &path,
                                                        std::string &error) {
  // Reading stops where the header's `payload S` line says the file ends,
  // or after the magic of what is not an .fsx file: an endless device or
  // pipe is never read whole.
  size_t scanned = 0;
  uint64_t total = UINT64_MAX; // Once the payload line is read.
  auto limit = [&](std::string_view prefix) -> uint64_t {
    if (prefix.size() >= kMagic.size() &&
        prefix.substr(0, kMagic.size()) != kMagic)
      return kMagic.size();
    if (total != UINT64_MAX)
      return total;
    size_t at = prefix.find("\npayload ", scanned > 9 ? scanned - 9 : 0);
    if (at == std::string_view::npos) {
      scanned = prefix.size();
      return UINT64_MAX;
    }
    size_t digits = at + 9, end = prefix.find('\n', digits);
    if (end == std::string_view::npos) {
      scanned = at; // Search the line again once it is whole.
      return UINT64_MAX;
    }
    uint64_t size = 0;
    for (size_t i = digits; i < end && total == UINT64_MAX; ++i) {
      if (prefix[i] < '0' || prefix[i] > '9' || size > UINT64_MAX / 20)
        total = end + 1; // parseExecutable says what is wrong.
      else
        size = size * 10 + uint64_t(prefix[i] - '0');
    }
    if (total == UINT64_MAX)
      total = size > UINT64_MAX - 2 - end ? end + 1 : end + 1 + size;
    return total;
  };
  FileBytes bytes;
  if (!readFile(path, bytes, error, limit))
    return std::nullopt;
  std::optional<Executable> exe = parseExecutable(bytes.view(), error);
  if (!exe && bytes.more &&
      error.rfind("invalid .fsx file: trailing data", 0) == 0)
    error = "invalid .fsx file: trailing data: the file goes on after the "
            "payload its header declares";
  if (!exe)
    error = path + ": " + error;
  return exe;
}

std::string fusec::rt::quoteName(std::string_view s, char delim) {
  static const char kHexDigits[] = "0123456789abcdef";
  std::string out(1, delim);
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (ch == delim || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      out += "\\x";
      out += kHexDigits[c >> 4];
      out += kHexDigits[c & 15];
    }
  }
  out += delim;
  return out;
}

std::string fusec::rt::formatDims(const std::vector<int64_t> &values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i)
      s += ',';
    s += std::to_string(values[i]);
  }
  return s + "]";
}

namespace {

/// A lower bound on the bytes of one record line ("ptx 0 offset 0 length 0",
/// "step 0 matmul ..."): a declared count larger than the bytes left divided
/// by this cannot be true, and is refused before any record is read.
constexpr size_t kMinRecordBytes = 8;

const char kHexDigits[] = "0123456789abcdef";

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// Appends `s` in double quotes (quoteName).
void appendQuoted(std::string &out, std::string_view s) { out += quoteName(s); }

std::string quoted(std::string_view s) { return quoteName(s); }

std::string formatList(const std::vector<int64_t> &v) { return formatDims(v); }

/// " kernel K grid G block B args [...]" (parseLaunchFields).
std::string launchFields(const LaunchStep &l) {
  return " kernel " + std::to_string(l.kernel) + " grid " +
         std::to_string(l.gridSize) + " block " + std::to_string(l.blockSize) +
         " args " + formatList(l.args);
}

/// " a A b B c C transpose-a T transpose-b T epilogue E bias X"
/// (parseMatmulFields).
std::string matmulFields(const MatmulStep &m) {
  return " a " + std::to_string(m.a) + " b " + std::to_string(m.b) + " c " +
         std::to_string(m.c) + " transpose-a " + (m.transposeA ? "1" : "0") +
         " transpose-b " + (m.transposeB ? "1" : "0") + " epilogue " +
         matmulEpilogueName(m.epilogue) + " bias " + std::to_string(m.bias);
}

//===----------------------------------------------------------------------===//
// Reading the header
//===----------------------------------------------------------------------===//

/// A cursor over the file that parses the header's tokens. Every method
/// returns false with `error` set on failure; running into the end of the
/// input is always reported as truncation, and each token is complete
/// (followed by a delimiter) before any check of its value, so that a prefix
/// of a valid file is never reported as anything but truncated.
class HeaderReader {
public:
  HeaderReader(std::string_view bytes, std::string &error)
      : bytes(bytes), error(error) {}

  size_t position() const { return pos; }
  size_t remaining() const { return bytes.size() - pos; }

  bool fail(const std::string &what) {
    error = "invalid .fsx file: line " + std::to_string(line) + ": " + what;
    return false;
  }

  bool truncated() {
    error = "truncated .fsx file: the header breaks off in line " +
            std::to_string(line);
    return false;
  }

  /// Consumes exactly `text` (keywords with their separating spaces, "\n").
  bool literal(std::string_view text) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (pos + i >= bytes.size())
        return truncated();
      if (bytes[pos + i] != text[i])
        return fail("expected " + quoted(text) + ", found " + found());
    }
    pos += text.size();
    if (!text.empty() && text.back() == '\n')
      ++line;
    return true;
  }

  /// A decimal int64: "0", or an optional '-' and digits without a leading
  /// zero.
  bool integer(int64_t &out, const std::string &what) {
    size_t start = pos;
    bool negative = false;
    if (pos < bytes.size() && bytes[pos] == '-') {
      negative = true;
      ++pos;
    }
    uint64_t magnitude = 0;
    bool overflow = false;
    size_t digits = 0;
    while (pos < bytes.size() && bytes[pos] >= '0' && bytes[pos] <= '9') {
      if (__builtin_mul_overflow(magnitude, uint64_t(10), &magnitude) ||
          __builtin_add_overflow(magnitude, uint64_t(bytes[pos] - '0'),
                                 &magnitude))
        overflow = true;
      ++pos;
      ++digits;
    }
    // Every integer is followed by a delimiter.
    if (pos >= bytes.size())
      return truncated();
    std::string text(bytes.substr(start, std::min<size_t>(pos - start, 24)));
    if (pos - start > 24)
      text += "...";
    if (digits == 0) {
      pos = start;
      return fail("expected " + what + ", found " + found());
    }
    if ((digits > 1 && bytes[start + negative] == '0') ||
        (negative && magnitude == 0)) {
      pos = start;
      return fail(what + " " + text +
                  " is not in canonical form (no leading zeros, no -0)");
    }
    uint64_t limit = negative ? uint64_t(1) << 63 : uint64_t(INT64_MAX);
    if (overflow || magnitude > limit) {
      pos = start;
      return fail(what + " " + text + " is out of the range of int64");
    }
    out = negative ? int64_t(0 - magnitude) : int64_t(magnitude);
    return true;
  }

  /// A record's own index, which must be its position in its section.
  bool recordIndex(const char *keyword, size_t expected) {
    int64_t v;
    if (!integer(v, std::string(keyword) + " index"))
      return false;
    if (v < 0 || uint64_t(v) != expected)
      return fail("expected " + std::string(keyword) + " " +
                  std::to_string(expected) + ", found " + keyword + " " +
                  std::to_string(v));
    return true;
  }

  /// The number of records of a section, then its end of line; the count
  /// must fit in the bytes left.
  bool count(const char *section, size_t &out) {
    int64_t v;
    if (!integer(v, std::string("number of ") + section))
      return false;
    if (v < 0)
      return fail("negative number of " + std::string(section) + " " +
                  std::to_string(v));
    size_t countLine = line;
    if (!literal("\n"))
      return false;
    // A file cut short and a header that lies look the same: either way the
    // records are not there.
    if (uint64_t(v) > remaining() / kMinRecordBytes) {
      error = "truncated .fsx file: line " + std::to_string(countLine) +
              " declares " + std::to_string(v) + " " + section +
              ", more than the remaining " + std::to_string(remaining()) +
              " bytes of the file can hold";
      return false;
    }
    out = size_t(v);
    return true;
  }

  /// A word of [a-z0-9_-] (a kind, dtype or epilogue name), ended by a space.
  bool word(std::string &out, const char *what) {
    size_t start = pos;
    while (pos < bytes.size() && ((bytes[pos] >= 'a' && bytes[pos] <= 'z') ||
                                  (bytes[pos] >= '0' && bytes[pos] <= '9') ||
                                  bytes[pos] == '-' || bytes[pos] == '_'))
      ++pos;
    if (pos >= bytes.size())
      return truncated();
    if (pos == start)
      return fail(std::string("expected ") + what + ", found " + found());
    out = std::string(bytes.substr(start, pos - start));
    return true;
  }

  /// A dtype name.
  bool dtype(DType &out) {
    std::string name;
    if (!word(name, "a dtype"))
      return false;
    std::optional<DType> type = parseDType(name);
    if (!type) {
      std::string known;
      for (size_t i = 0; i < std::size(kAllDTypes); ++i)
        known += std::string(i == 0                           ? ""
                             : i + 1 == std::size(kAllDTypes) ? " or "
                                                              : ", ") +
                 std::string(dtypeName(kAllDTypes[i]));
      return fail("unknown dtype " + quoted(name) + " (expected " + known +
                  ")");
    }
    out = *type;
    return true;
  }

  /// A quoted string in the canonical escaping of appendQuoted.
  bool string(std::string &out) {
    if (!literal("\""))
      return false;
    out.clear();
    while (true) {
      if (pos >= bytes.size())
        return truncated();
      auto c = static_cast<unsigned char>(bytes[pos]);
      if (c == '"') {
        ++pos;
        return true;
      }
      if (c < 0x20 || c >= 0x7f)
        return fail("byte " + hexByte(c) +
                    " in a string must be written as \\x" + hexByte(c, false));
      if (c != '\\') {
        out += char(c);
        ++pos;
        continue;
      }
      if (pos + 1 >= bytes.size())
        return truncated();
      char e = bytes[pos + 1];
      if (e == '"' || e == '\\') {
        out += e;
        pos += 2;
        continue;
      }
      if (e != 'x')
        return fail("unknown escape " + quoted(bytes.substr(pos, 2)) +
                    " in a string (only \\\" \\\\ and \\xHH)");
      if (pos + 3 >= bytes.size())
        return truncated();
      int hi = hexValue(bytes[pos + 2]), lo = hexValue(bytes[pos + 3]);
      if (hi < 0 || lo < 0)
        return fail("escape " + quoted(bytes.substr(pos, 4)) +
                    " needs two lowercase hex digits");
      auto v = static_cast<unsigned char>(hi * 16 + lo);
      if (v >= 0x20 && v < 0x7f)
        return fail("escape " + quoted(bytes.substr(pos, 4)) +
                    " of a printable character (write it as itself, or \\\" "
                    "and \\\\)");
      out += char(v);
      pos += 4;
    }
  }

  /// "[a,b,c]" or "[]".
  bool list(std::vector<int64_t> &out, const std::string &what) {
    return listOf(out, [&](int64_t &v) { return integer(v, what); });
  }

  /// "[f32,i1]" or "[]".
  bool dtypeList(std::vector<DType> &out) {
    return listOf(out, [&](DType &t) { return dtype(t); });
  }

private:
  /// "[" elements separated by "," "]", each read by `element`, which
  /// stops at the first byte after it (so a byte is there to look at).
  template <typename T, typename Element>
  bool listOf(std::vector<T> &out, Element element) {
    if (!literal("["))
      return false;
    out.clear();
    if (pos < bytes.size() && bytes[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      T v;
      if (!element(v))
        return false;
      out.push_back(v);
      if (bytes[pos] == ']') {
        ++pos;
        return true;
      }
      if (!literal(","))
        return false;
    }
  }

  std::string_view bytes;
  std::string &error;
  size_t pos = 0;
  size_t line = 1;

  /// The text at the cursor, quoted for a message: the rest of the line, at
  /// most 24 bytes (or the newline itself).
  std::string found() const {
    size_t end = pos;
    while (end < bytes.size() && end - pos < 24 && bytes[end] != '\n')
      ++end;
    if (end == pos && end < bytes.size())
      ++end;
    return quoted(bytes.substr(pos, end - pos));
  }

  static int hexValue(char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    return -1;
  }

  static std::string hexByte(unsigned char c, bool prefix = true) {
    std::string s = prefix ? "0x" : "";
    s += kHexDigits[c >> 4];
    s += kHexDigits[c & 15];
    return s;
  }
};

/// Where one payload (a PTX text or a constant) lies in the payload.
struct Extent {
  int64_t offset = 0, length = 0;
};

bool parseExtent(HeaderReader &r, const char *keyword, size_t i, Extent &e) {
  return r.literal(std::string(keyword) + " ") && r.recordIndex(keyword, i) &&
         r.literal(" offset ") && r.integer(e.offset, "offset") &&
         r.literal(" length ") && r.integer(e.length, "length") &&
         r.literal("\n");
}

bool parseBuffer(HeaderReader &r, size_t i, BufferDesc &b) {
  if (!r.literal("buffer ") || !r.recordIndex("buffer", i) || !r.literal(" "))
    return false;
  std::string kind;
  if (!r.word(kind, "a buffer kind"))
    return false;
  if (kind == "input")
    b.kind = BufferKind::Input;
  else if (kind == "constant")
    b.kind = BufferKind::Constant;
  else if (kind == "temp")
    b.kind = BufferKind::Temp;
  else if (kind == "alias")
    b.kind = BufferKind::Alias;
  else
    return r.fail("unknown buffer kind " + quoted(kind) +
                  " (expected input, constant, temp or alias)");
  b.index = -1;
  if (b.kind != BufferKind::Temp &&
      (!r.literal(" ") || !r.integer(b.index, kind + " index")))
    return false;
  if (!r.literal(" ") || !r.dtype(b.dtype) || !r.literal(" ") ||
      !r.list(b.shape, "dimension"))
    return false;
  b.offset = -1;
  if (b.kind == BufferKind::Temp &&
      (!r.literal(" offset ") || !r.integer(b.offset, "offset")))
    return false;
  return r.literal(" ") && r.string(b.name) && r.literal("\n");
}

bool parseKernel(HeaderReader &r, size_t i, KernelDesc &k) {
  if (!r.literal("kernel ") || !r.recordIndex("kernel", i) || !r.literal(" "))
    return false;
  std::string kind;
  if (!r.word(kind, "a kernel kind"))
    return false;
  std::optional<FusionKind> parsed = parseFusionKind(kind);
  if (!parsed || *parsed == FusionKind::Matmul)
    return r.fail("unknown kernel kind " + quoted(kind) +
                  " (expected loop, row_reduction or reduction)");
  k.kind = *parsed;
  std::vector<int64_t> pairs, elements;
  std::vector<DType> dtypes;
  if (!r.literal(" inputs ") || !r.integer(k.numInputs, "number of inputs") ||
      !r.literal(" outputs ") ||
      !r.integer(k.numOutputs, "number of outputs") ||
      !r.literal(" param-dtypes ") || !r.dtypeList(dtypes) ||
      !r.literal(" param-elements ") || !r.list(elements, "number of elements"))
    return false;
  if (dtypes.size() != elements.size())
    return r.fail("the kernel has " + std::to_string(dtypes.size()) +
                  " parameter dtypes but " + std::to_string(elements.size()) +
                  " element counts");
  for (size_t p = 0; p < dtypes.size(); ++p)
    k.params.push_back({dtypes[p], elements[p]});
  if (!r.literal(" work ") || !r.integer(k.work, "work") ||
      !r.literal(" row-length ") || !r.integer(k.rowLength, "row length") ||
      !r.literal(" vector-width ") ||
      !r.integer(k.vectorWidth, "vector width") || !r.literal(" in-place ") ||
      !r.list(pairs, "in-place parameter"))
    return false;
  if (pairs.size() % 2)
    return r.fail("the in-place list has an odd number of entries (it "
                  "holds input, output pairs)");
  for (size_t p = 0; p < pairs.size(); p += 2)
    k.inPlace.emplace_back(pairs[p], pairs[p + 1]);
  return r.literal(" ptx ") && r.integer(k.ptxIndex, "ptx index") &&
         r.literal(" ") && r.string(k.name) && r.literal("\n");
}

/// A 0 or 1 field.
bool parseFlag(HeaderReader &r, bool &out, const char *what) {
  int64_t v;
  if (!r.integer(v, what))
    return false;
  if (v != 0 && v != 1)
    return r.fail(std::string(what) + " " + std::to_string(v) +
                  " is not 0 or 1");
  out = v == 1;
  return true;
}

bool parseUInt32(HeaderReader &r, uint32_t &out, const char *what) {
  int64_t v;
  if (!r.integer(v, what))
    return false;
  if (v < 0 || v > int64_t(UINT32_MAX))
    return r.fail(std::string(what) + " " + std::to_string(v) +
                  " is out of the range of uint32");
  out = uint32_t(v);
  return true;
}

/// " kernel K grid G block B args [...]".
bool parseLaunchFields(HeaderReader &r, LaunchStep &l) {
  return r.literal(" kernel ") && r.integer(l.kernel, "kernel index") &&
         r.literal(" grid ") && parseUInt32(r, l.gridSize, "grid size") &&
         r.literal(" block ") && parseUInt32(r, l.blockSize, "block size") &&
         r.literal(" args ") && r.list(l.args, "argument");
}

/// " a A b B c C transpose-a 0 transpose-b 0 epilogue E bias X".
bool parseMatmulFields(HeaderReader &r, MatmulStep &m) {
  std::string epilogue;
  if (!r.literal(" a ") || !r.integer(m.a, "buffer index") ||
      !r.literal(" b ") || !r.integer(m.b, "buffer index") ||
      !r.literal(" c ") || !r.integer(m.c, "buffer index") ||
      !r.literal(" transpose-a ") ||
      !parseFlag(r, m.transposeA, "transpose-a") ||
      !r.literal(" transpose-b ") ||
      !parseFlag(r, m.transposeB, "transpose-b") || !r.literal(" epilogue ") ||
      !r.word(epilogue, "an epilogue"))
    return false;
  bool known = false;
  for (MatmulEpilogue e : {MatmulEpilogue::None, MatmulEpilogue::Bias,
                           MatmulEpilogue::Relu, MatmulEpilogue::ReluBias,
                           MatmulEpilogue::Gelu, MatmulEpilogue::GeluBias})
    if (epilogue == matmulEpilogueName(e)) {
      m.epilogue = e;
      known = true;
    }
  if (!known)
    return r.fail("unknown epilogue " + quoted(epilogue) +
                  " (expected none, bias, relu, relu_bias, gelu or "
                  "gelu_bias)");
  return r.literal(" bias ") && r.integer(m.bias, "buffer index");
}

/// " name [v0,...]" with exactly `n` values.
bool parseFixedList(HeaderReader &r, const char *name, int64_t *out, size_t n) {
  std::vector<int64_t> values;
  if (!r.literal(" ") || !r.literal(name) || !r.literal(" ") ||
      !r.list(values, name))
    return false;
  if (values.size() != n)
    return r.fail(std::string(name) + " has " + std::to_string(values.size()) +
                  " values, not " + std::to_string(n));
  std::copy(values.begin(), values.end(), out);
  return true;
}

bool parseStep(HeaderReader &r, size_t i, Step &s) {
  if (!r.literal("step ") || !r.recordIndex("step", i) || !r.literal(" "))
    return false;
  std::string kind;
  if (!r.word(kind, "a step kind"))
    return false;
  if (kind == "launch") {
    s.kind = Step::Kind::Launch;
    return parseLaunchFields(r, s.launch) && r.literal("\n");
  }
  if (kind == "matmul") {
    s.kind = Step::Kind::Matmul;
    return parseMatmulFields(r, s.matmul) && r.literal("\n");
  }
  if (kind == "conv") {
    s.kind = Step::Kind::Conv;
    ConvStep &c = s.conv;
    return r.literal(" input ") && r.integer(c.input, "buffer index") &&
           parseFixedList(r, "window", c.window.size.data(), 2) &&
           parseFixedList(r, "strides", c.window.strides.data(), 2) &&
           parseFixedList(r, "dilations", c.window.dilations.data(), 2) &&
           parseFixedList(r, "padding", c.window.padding.data(), 4) &&
           r.literal(" gather") && parseLaunchFields(r, c.gather) &&
           r.literal(" product") && parseMatmulFields(r, c.product) &&
           r.literal("\n");
  }
  return r.fail("unknown step kind " + quoted(kind) +
                " (expected launch, matmul or conv)");
}

bool parsePtxExtent(HeaderReader &r, size_t i, Extent &e) {
  return parseExtent(r, "ptx", i, e);
}

bool parseCubinExtent(HeaderReader &r, size_t i, Extent &e) {
  return parseExtent(r, "cubin", i, e);
}

bool parseConstantExtent(HeaderReader &r, size_t i, Extent &e) {
  return parseExtent(r, "constant", i, e);
}

bool parseCpuSourceExtent(HeaderReader &r, size_t i, Extent &e) {
  return parseExtent(r, "cpu-source", i, e);
}

/// Reads `n` records, appending each once it is read: memory follows the
/// records present in the file, not the count its header declares.
template <typename T>
bool parseRecords(HeaderReader &r, size_t n, std::vector<T> &out,
                  bool (*parseOne)(HeaderReader &, size_t, T &)) {
  for (size_t i = 0; i < n; ++i) {
    T record;
    if (!parseOne(r, i, record))
      return false;
    out.push_back(std::move(record));
  }
  return true;
}

/// Reads the magic and the version line.
bool parseVersion(std::string_view bytes, HeaderReader &r, std::string &error) {
  if (bytes.empty()) {
    error = "not an .fsx file: the file is empty";
    return false;
  }
  if (bytes.size() < kMagic.size() && bytes == kMagic.substr(0, bytes.size())) {
    error = "truncated .fsx file: the header breaks off in line 1";
    return false;
  }
  if (bytes.substr(0, kMagic.size()) != kMagic) {
    error = "not an .fsx file: it does not start with \"fusec-executable\"";
    return false;
  }
  r.literal(kMagic);
  size_t start = r.position(), end = start;
  while (end < bytes.size() && bytes[end] >= '0' && bytes[end] <= '9' &&
         end - start < 20)
    ++end;
  if (end >= bytes.size()) {
    error = "truncated .fsx file: the header breaks off in line 1";
    return false;
  }
  std::string_view digits = bytes.substr(start, end - start);
  if (digits.empty() || bytes[end] != '\n' ||
      (digits.size() > 1 && digits[0] == '0')) {
    error = "invalid .fsx file: line 1: expected \"fusec-executable\", a "
            "space, the version number and a newline";
    return false;
  }
  if (digits != std::to_string(kExecutableVersion)) {
    error = "unsupported .fsx version " + std::string(digits) +
            "; this fusec reads version " + std::to_string(kExecutableVersion);
    // An older artifact is rebuilt from its model; nothing converts it (a
    // version 1 file has no memory plan to check).
    if (digits.size() < std::to_string(kExecutableVersion).size() ||
        (digits.size() == std::to_string(kExecutableVersion).size() &&
         digits < std::to_string(kExecutableVersion)))
      error += " (recompile the model with this fusec's --emit=exec)";
    return false;
  }
  int64_t version;
  return r.integer(version, "version") && r.literal("\n");
}

/// Reads the header and the payload into `exe`, checking the syntax and the
/// layout of the payload but not the meaning (see validate).
bool parseFile(std::string_view bytes, Executable &exe, std::string &error) {
  HeaderReader r(bytes, error);
  if (!parseVersion(bytes, r, error))
    return false;
  exe.version = kExecutableVersion;
  if (!r.literal("entry ") || !r.string(exe.entry) || !r.literal("\n") ||
      !r.literal("arch ") || !r.string(exe.arch) || !r.literal("\n"))
    return false;
  MemoryFigures &m = exe.memory;
  if (!r.literal("memory arena ") || !r.integer(m.arenaBytes, "arena size") ||
      !r.literal(" lower-bound ") ||
      !r.integer(m.lowerBoundBytes, "lower bound") ||
      !r.literal(" peak-step ") || !r.integer(m.peakStep, "peak step") ||
      !r.literal(" workspace ") ||
      !r.integer(m.workspaceBytes, "workspace size") || !r.literal("\n"))
    return false;

  size_t n;
  if (!r.literal("buffers ") || !r.count("buffers", n))
    return false;
  if (!parseRecords(r, n, exe.buffers, parseBuffer))
    return false;

  if (!r.literal("kernels ") || !r.count("kernels", n))
    return false;
  if (!parseRecords(r, n, exe.kernels, parseKernel))
    return false;

  if (!r.literal("steps ") || !r.count("steps", n))
    return false;
  if (!parseRecords(r, n, exe.steps, parseStep))
    return false;

  if (!r.literal("inputs ") || !r.list(exe.inputs, "buffer index") ||
      !r.literal("\n") || !r.literal("outputs ") ||
      !r.list(exe.outputs, "buffer index") || !r.literal("\n"))
    return false;

  std::vector<Extent> ptxExtents, cubinExtents, constantExtents;
  if (!r.literal("ptx-texts ") || !r.count("ptx texts", n))
    return false;
  if (!parseRecords(r, n, ptxExtents, parsePtxExtent))
    return false;
  if (!r.literal("cubins ") || !r.count("cubins", n))
    return false;
  if (!parseRecords(r, n, cubinExtents, parseCubinExtent))
    return false;
  if (!r.literal("constants ") || !r.count("constants", n))
    return false;
  if (!parseRecords(r, n, constantExtents, parseConstantExtent))
    return false;
  std::vector<Extent> cpuExtents;
  if (!r.literal("cpu-sources ") || !r.count("cpu sources", n))
    return false;
  if (n > 1) {
    error = "invalid .fsx file: " + std::to_string(n) +
            " CPU sources (an executable has at most one)";
    return false;
  }
  if (!parseRecords(r, n, cpuExtents, parseCpuSourceExtent))
    return false;

  int64_t payloadSize;
  if (!r.literal("payload ") || !r.integer(payloadSize, "payload size") ||
      !r.literal("\n"))
    return false;
  if (payloadSize < 0)
    return r.fail("negative payload size " + std::to_string(payloadSize));
  std::string_view payload = bytes.substr(r.position());
  if (uint64_t(payloadSize) > payload.size()) {
    error = "truncated .fsx file: the header declares " +
            std::to_string(payloadSize) + " bytes of payload, found " +
            std::to_string(payload.size());
    return false;
  }
  if (uint64_t(payloadSize) < payload.size()) {
    error = "invalid .fsx file: trailing data: the header declares " +
            std::to_string(payloadSize) + " bytes of payload, found " +
            std::to_string(payload.size());
    return false;
  }

  // The PTX texts, the CUBINs, the constants, then the CPU source, back
  // to back from offset 0.
  int64_t next = 0;
  auto take = [&](const char *what, size_t i, const Extent &e,
                  std::string &out) {
    std::string where = std::string(what) + " " + std::to_string(i) + ": ";
    if (e.offset < 0 || e.length < 0 || e.offset > payloadSize ||
        e.length > payloadSize - e.offset) {
      error = "invalid .fsx file: " + where + "offset " +
              std::to_string(e.offset) + " and length " +
              std::to_string(e.length) + " lie outside the " +
              std::to_string(payloadSize) + "-byte payload";
      return false;
    }
    if (e.offset != next) {
      error = "invalid .fsx file: " + where + "offset " +
              std::to_string(e.offset) + ", expected " + std::to_string(next) +
              " (payloads are stored back to back, in order)";
      return false;
    }
    out.assign(payload.data() + e.offset, size_t(e.length));
    next += e.length;
    return true;
  };
  exe.ptx.resize(ptxExtents.size());
  for (size_t i = 0; i < ptxExtents.size(); ++i)
    if (!take("ptx", i, ptxExtents[i], exe.ptx[i]))
      return false;
  exe.cubin.resize(cubinExtents.size());
  for (size_t i = 0; i < cubinExtents.size(); ++i)
    if (!take("cubin", i, cubinExtents[i], exe.cubin[i]))
      return false;
  exe.constants.resize(constantExtents.size());
  for (size_t i = 0; i < constantExtents.size(); ++i)
    if (!take("constant", i, constantExtents[i], exe.constants[i]))
      return false;
  if (!cpuExtents.empty() &&
      !take("cpu-source", 0, cpuExtents[0], exe.cpuSource))
    return false;
  if (next != payloadSize) {
    error = "invalid .fsx file: the payload has " +
            std::to_string(payloadSize) +
            " bytes but its PTX texts, CUBINs, constants and CPU source "
            "take " +
            std::to_string(next);
    return false;
  }
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::string fusec::rt::serializeExecutable(const Executable &exe) {
  std::string h = std::string(kMagic) + std::to_string(exe.version) + "\n";
  h += "entry ";
  appendQuoted(h, exe.entry);
  h += "\narch ";
  appendQuoted(h, exe.arch);
  const MemoryFigures &m = exe.memory;
  h += "\nmemory arena " + std::to_string(m.arenaBytes) + " lower-bound " +
       std::to_string(m.lowerBoundBytes) + " peak-step " +
       std::to_string(m.peakStep) + " workspace " +
       std::to_string(m.workspaceBytes);
  h += "\nbuffers " + std::to_string(exe.buffers.size()) + "\n";
  for (size_t i = 0; i < exe.buffers.size(); ++i) {
    const BufferDesc &b = exe.buffers[i];
    h += "buffer " + std::to_string(i) + " " + bufferKindName(b.kind);
    if (b.kind != BufferKind::Temp)
      h += " " + std::to_string(b.index);
    h += " " + std::string(dtypeName(b.dtype)) + " " + formatList(b.shape);
    if (b.kind == BufferKind::Temp)
      h += " offset " + std::to_string(b.offset);
    h += " ";
    appendQuoted(h, b.name);
    h += '\n';
  }
  h += "kernels " + std::to_string(exe.kernels.size()) + "\n";
  for (size_t i = 0; i < exe.kernels.size(); ++i) {
    const KernelDesc &k = exe.kernels[i];
    std::vector<int64_t> pairs;
    for (auto [in, out] : k.inPlace) {
      pairs.push_back(in);
      pairs.push_back(out);
    }
    h += "kernel " + std::to_string(i) + " " +
         std::string(fusionKindName(k.kind)) + " inputs " +
         std::to_string(k.numInputs) + " outputs " +
         std::to_string(k.numOutputs) + " param-dtypes [";
    for (size_t p = 0; p < k.params.size(); ++p)
      h +=
          std::string(p ? "," : "") + std::string(dtypeName(k.params[p].dtype));
    std::vector<int64_t> elements;
    for (const KernelParam &p : k.params)
      elements.push_back(p.elements);
    h += "] param-elements " + formatList(elements) + " work " +
         std::to_string(k.work) + " row-length " + std::to_string(k.rowLength) +
         " vector-width " + std::to_string(k.vectorWidth) + " in-place " +
         formatList(pairs) + " ptx " + std::to_string(k.ptxIndex) + " ";
    appendQuoted(h, k.name);
    h += '\n';
  }
  h += "steps " + std::to_string(exe.steps.size()) + "\n";
  for (size_t i = 0; i < exe.steps.size(); ++i) {
    const Step &s = exe.steps[i];
    h += "step " + std::to_string(i);
    if (s.kind == Step::Kind::Matmul) {
      h += " matmul" + matmulFields(s.matmul);
    } else if (s.kind == Step::Kind::Launch) {
      h += " launch" + launchFields(s.launch);
    } else if (s.kind == Step::Kind::Conv) {
      const ConvStep &c = s.conv;
      auto list = [](const auto &v) {
        return formatList(std::vector<int64_t>(v.begin(), v.end()));
      };
      h += " conv input " + std::to_string(c.input) + " window " +
           list(c.window.size) + " strides " + list(c.window.strides) +
           " dilations " + list(c.window.dilations) + " padding " +
           list(c.window.padding) + " gather" + launchFields(c.gather) +
           " product" + matmulFields(c.product);
    } else {
      h += " invalid";
    }
    h += '\n';
  }
  h += "inputs " + formatList(exe.inputs) + "\noutputs " +
       formatList(exe.outputs) + "\n";

  uint64_t offset = 0;
  auto extents = [&](const char *keyword, const std::vector<std::string> &v) {
    for (size_t i = 0; i < v.size(); ++i) {
      h += std::string(keyword) + " " + std::to_string(i) + " offset " +
           std::to_string(offset) + " length " + std::to_string(v[i].size()) +
           "\n";
      offset += v[i].size();
    }
  };
  h += "ptx-texts " + std::to_string(exe.ptx.size()) + "\n";
  extents("ptx", exe.ptx);
  h += "cubins " + std::to_string(exe.cubin.size()) + "\n";
  extents("cubin", exe.cubin);
  h += "constants " + std::to_string(exe.constants.size()) + "\n";
  extents("constant", exe.constants);
  std::vector<std::string> cpu;
  if (!exe.cpuSource.empty())
    cpu.push_back(exe.cpuSource);
  h += "cpu-sources " + std::to_string(cpu.size()) + "\n";
  extents("cpu-source", cpu);
  h += "payload " + std::to_string(offset) + "\n";

  std::string out;
  out.reserve(h.size() + offset);
  out += h;
  for (const std::string &p : exe.ptx)
    out += p;
  for (const std::string &c : exe.cubin)
    out += c;
  for (const std::string &c : exe.constants)
    out += c;
  out += exe.cpuSource;
  return out;
}

std::optional<Executable> fusec::rt::parseExecutable(std::string_view bytes,
                                                     std::string &error) {
  Executable exe;
  if (!parseFile(bytes, exe, error))
    return std::nullopt;
  if (!validateExecutable(exe, error))
    return std::nullopt;
  return exe;
}
