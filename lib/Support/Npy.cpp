//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// The format (numpy/lib/format.py): the magic string "\x93NUMPY", a major and
// a minor version byte, the header length (2 bytes little-endian in version
// 1.0, 4 bytes in 2.0 and 3.0), then the header: the repr of a Python dict
// with the keys 'descr', 'fortran_order' and 'shape', padded with spaces and
// a newline. The raw array data follows and runs to the end of the file.
//
//===----------------------------------------------------------------------===//

#include "fusec/Support/Npy.h"
#include "fusec/Support/File.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace fusec;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kArrayAlign = 64;
/// NumPy leaves room for the growth axis to reach this many digits.
constexpr size_t kGrowthAxisMaxDigits = 21;

constexpr bool kHostLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

enum class ByteOrder { Little, Big, Native, NotApplicable };

struct DescrEntry {
  const char *descr;
  DType type;
  ByteOrder order;
};

/// Every descr accepted when reading (see Npy.h). The first entry of each
/// dtype is the one written.
constexpr DescrEntry kDescrs[] = {
    {"<f8", DType::F64, ByteOrder::Little},
    {">f8", DType::F64, ByteOrder::Big},
    {"=f8", DType::F64, ByteOrder::Native},
    {"<f4", DType::F32, ByteOrder::Little},
    {">f4", DType::F32, ByteOrder::Big},
    {"=f4", DType::F32, ByteOrder::Native},
    {"<f2", DType::F16, ByteOrder::Little},
    {">f2", DType::F16, ByteOrder::Big},
    {"=f2", DType::F16, ByteOrder::Native},
    // bfloat16 patterns are written in the writer's byte order, which for
    // every machine NumPy and ml_dtypes run on is little-endian.
    {"<V2", DType::BF16, ByteOrder::Little},
    {"|V2", DType::BF16, ByteOrder::Little},
    {"|b1", DType::I1, ByteOrder::NotApplicable},
    {"<b1", DType::I1, ByteOrder::NotApplicable},
    {">b1", DType::I1, ByteOrder::NotApplicable},
    {"=b1", DType::I1, ByteOrder::NotApplicable},
    {"<i4", DType::I32, ByteOrder::Little},
    {">i4", DType::I32, ByteOrder::Big},
    {"=i4", DType::I32, ByteOrder::Native},
    {"<i8", DType::I64, ByteOrder::Little},
    {">i8", DType::I64, ByteOrder::Big},
    {"=i8", DType::I64, ByteOrder::Native},
};

const char *descrFor(DType type) {
  for (const DescrEntry &e : kDescrs)
    if (e.type == type)
      return e.descr;
  return "?";
}

std::string supportedDescrs() {
  std::string s;
  for (const DescrEntry &e : kDescrs) {
    if (!s.empty())
      s += ", ";
    s += '\'';
    s += e.descr;
    s += '\'';
  }
  return s;
}

std::string formatTuple(const Shape &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    s += ',';
  s += ')';
  return s;
}

uint64_t readLE(const unsigned char *p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

/// Quotes at most the first 200 characters of a header for error messages.
std::string quoteHeader(std::string_view header) {
  constexpr size_t kMax = 200;
  while (!header.empty() && (header.back() == ' ' || header.back() == '\n' ||
                             header.back() == '\r' || header.back() == '\t' ||
                             header.back() == '\0'))
    header.remove_suffix(1);
  std::string s;
  for (size_t i = 0; i < header.size() && i < kMax; ++i) {
    auto c = static_cast<unsigned char>(header[i]);
    if (c >= 0x20 && c < 0x7f) {
      s += char(c);
    } else {
      static const char hex[] = "0123456789abcdef";
      s += "\\x";
      s += hex[c >> 4];
      s += hex[c & 15];
    }
  }
  if (header.size() > kMax)
    s += "...";
  return s;
}

/// The fields of the header dictionary.
struct Header {
  DType type = DType::F32;
  ByteOrder order = ByteOrder::Little;
  bool fortranOrder = false;
  Shape shape;
};

/// A recursive-descent parser for the subset of Python literal syntax that
/// .npy headers use: a dict with string keys whose values are strings,
/// True/False and tuples of integers.
class HeaderParser {
public:
  HeaderParser(std::string_view text, std::string &error)
      : text(text), error(error) {}

  bool parse(Header &out) {
    skipSpace();
    if (!consume('{'))
      return fail("the header is not a dictionary");
    bool haveDescr = false, haveFortran = false, haveShape = false;
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key, "a dictionary key"))
        return false;
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after key '" + key + "'");
      skipSpace();
      bool *seen = key == "descr"           ? &haveDescr
                   : key == "fortran_order" ? &haveFortran
                   : key == "shape"         ? &haveShape
                                            : nullptr;
      if (!seen)
        return fail("unknown key '" + key +
                    "' (expected 'descr', 'fortran_order' and 'shape')");
      if (*seen)
        return fail("duplicate key '" + key + "'");
      *seen = true;
      bool ok = seen == &haveDescr     ? parseDescr()
                : seen == &haveFortran ? parseBool(out.fortranOrder)
                                       : parseShape(out.shape);
      if (!ok)
        return false;
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("expected ',' or '}' after the value of '" + key + "'");
    }
    skipSpace();
    if (pos != text.size())
      return fail("unexpected text after the dictionary");
    const char *missing = !haveDescr     ? "descr"
                          : !haveFortran ? "fortran_order"
                          : !haveShape   ? "shape"
                                         : nullptr;
    if (missing)
      return fail(std::string("missing key '") + missing + "'");
    return resolveDescr(out);
  }

private:
  std::string_view text;
  std::string &error;
  size_t pos = 0;
  enum class DescrKind { String, Structured, Subarray };
  DescrKind descrKind = DescrKind::String;
  std::string descrString;

  bool fail(const std::string &what) {
    error = "invalid .npy header: " + what + " (at offset " +
            std::to_string(pos) + " of \"" + quoteHeader(text) + "\")";
    return false;
  }

  /// A well-formed header that asks for something unsupported: the message
  /// stands alone, without the header text.
  bool unsupported(const std::string &what) {
    error = what;
    return false;
  }

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }

  bool consume(char c) {
    if (atEnd() || text[pos] != c)
      return false;
    ++pos;
    return true;
  }

  void skipSpace() {
    while (!atEnd()) {
      char c = text[pos];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++pos;
      } else if (c == '#') { // A Python comment runs to the end of the line.
        while (!atEnd() && text[pos] != '\n')
          ++pos;
      } else {
        break;
      }
    }
  }

  bool isIdentChar(char c) const {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
  }

  /// A single- or double-quoted string literal, with backslash escapes taken
  /// literally (no .npy descr or key needs them).
  bool parseString(std::string &out, const char *what) {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return fail(std::string("expected a string as ") + what);
    ++pos;
    while (true) {
      if (atEnd() || text[pos] == '\n')
        return fail("unterminated string");
      char c = text[pos++];
      if (c == quote)
        return true;
      if (c == '\\') {
        if (atEnd())
          return fail("unterminated string");
        c = text[pos++];
      }
      out += c;
    }
  }

  /// Records the descr: a string, or the kind of a non-string descr (whose
  /// Python literal is only checked for balanced brackets and quotes).
  bool parseDescr() {
    char c = peek();
    if (c == '[' || c == '(') {
      descrKind = c == '[' ? DescrKind::Structured : DescrKind::Subarray;
      return skipNested();
    }
    descrKind = DescrKind::String;
    return parseString(descrString, "the value of 'descr'");
  }

  /// Skips a bracketed Python literal, checking only that brackets match and
  /// strings end.
  bool skipNested() {
    std::string closers;
    do {
      if (atEnd())
        return fail("unbalanced brackets in 'descr'");
      char c = text[pos];
      if (c == '\'' || c == '"') {
        std::string ignored;
        if (!parseString(ignored, "a string"))
          return false;
        continue;
      }
      if (c == '[' || c == '(' || c == '{') {
        closers += c == '[' ? ']' : c == '(' ? ')' : '}';
      } else if (c == ']' || c == ')' || c == '}') {
        if (closers.empty() || closers.back() != c)
          return fail("unbalanced brackets in 'descr'");
        closers.pop_back();
      }
      ++pos;
    } while (!closers.empty());
    return true;
  }

  /// Maps the recorded descr to a dtype, once the dictionary is known to be
  /// well-formed.
  bool resolveDescr(Header &out) {
    if (descrKind == DescrKind::Structured)
      return unsupported("structured dtypes (a list of fields as 'descr') "
                         "are not supported");
    if (descrKind == DescrKind::Subarray)
      return unsupported(
          "subarray dtypes (a tuple as 'descr') are not supported");
    for (const DescrEntry &e : kDescrs) {
      if (descrString == e.descr) {
        out.type = e.type;
        out.order = e.order;
        return true;
      }
    }
    std::string hint;
    if (descrString.size() >= 2 && descrString[1] == 'O')
      hint = " (object arrays are not supported)";
    return unsupported("unsupported dtype descr '" + descrString + "'" + hint +
                       "; supported: " + supportedDescrs());
  }

  bool parseBool(bool &out) {
    size_t start = pos;
    while (!atEnd() && isIdentChar(text[pos]))
      ++pos;
    std::string_view word = text.substr(start, pos - start);
    if (word == "True") {
      out = true;
      return true;
    }
    if (word == "False") {
      out = false;
      return true;
    }
    pos = start;
    return fail("'fortran_order' must be True or False");
  }

  /// A Python int literal (optionally signed, optionally with the 'L' suffix
  /// of Python 2) that must be a non-negative int64 dimension.
  bool parseDim(int64_t &out) {
    size_t start = pos;
    bool negative = false;
    if (peek() == '+' || peek() == '-') {
      negative = peek() == '-';
      ++pos;
      skipSpace();
    }
    if (atEnd() || text[pos] < '0' || text[pos] > '9')
      return fail("expected an integer dimension in 'shape'");
    uint64_t v = 0;
    bool overflow = false;
    while (!atEnd() &&
           ((text[pos] >= '0' && text[pos] <= '9') || text[pos] == '_')) {
      if (text[pos] != '_' &&
          (__builtin_mul_overflow(v, uint64_t(10), &v) ||
           __builtin_add_overflow(v, uint64_t(text[pos] - '0'), &v)))
        overflow = true;
      ++pos;
    }
    if (peek() == 'L' || peek() == 'l')
      ++pos;
    if (!atEnd() && isIdentChar(text[pos]))
      return fail("expected an integer dimension in 'shape'");
    std::string literal(text.substr(start, pos - start));
    if (negative && v != 0) {
      pos = start;
      return fail("negative dimension " + literal + " in 'shape'");
    }
    if (overflow || v > uint64_t(INT64_MAX)) {
      pos = start;
      return fail("dimension " + literal + " in 'shape' is too large");
    }
    out = int64_t(v);
    return true;
  }

  bool parseShape(Shape &out) {
    if (!consume('('))
      return fail("'shape' must be a tuple of integers");
    out.clear();
    skipSpace();
    if (consume(')'))
      return true; // A scalar.
    while (true) {
      int64_t d;
      if (!parseDim(d))
        return false;
      out.push_back(d);
      skipSpace();
      if (consume(',')) {
        skipSpace();
        if (consume(')'))
          return true;
        continue;
      }
      if (consume(')')) {
        if (out.size() == 1)
          return fail("'shape' must be a tuple: write (" +
                      std::to_string(out[0]) + ",) for one dimension");
        return true;
      }
      return fail("expected ',' or ')' in 'shape'");
    }
  }
};

void byteSwapInPlace(std::byte *data, int64_t count, size_t elemSize) {
  auto *p = reinterpret_cast<unsigned char *>(data);
  for (int64_t i = 0; i < count; ++i, p += elemSize)
    for (size_t a = 0, b = elemSize - 1; a < b; ++a, --b) {
      unsigned char t = p[a];
      p[a] = p[b];
      p[b] = t;
    }
}

/// Copies Fortran-order (column-major) elements from `src` into C order.
void transposeFromFortran(std::byte *dst, const std::byte *src,
                          const Shape &shape, int64_t count, size_t elemSize) {
  size_t rank = shape.size();
  // Element strides of the Fortran layout.
  std::vector<int64_t> stride(rank);
  int64_t s = 1;
  for (size_t k = 0; k < rank; ++k) {
    stride[k] = s;
    s *= shape[k]; // Cannot overflow: the product is `count`.
  }
  std::vector<int64_t> index(rank, 0);
  int64_t from = 0;
  for (int64_t i = 0; i < count; ++i) {
    std::memcpy(dst + size_t(i) * elemSize, src + size_t(from) * elemSize,
                elemSize);
    // Advance the C-order multi-index (last dimension fastest).
    for (size_t k = rank; k-- > 0;) {
      from += stride[k];
      if (++index[k] < shape[k])
        break;
      from -= stride[k] * shape[k];
      index[k] = 0;
    }
  }
}

/// What readNpy reads of a file whose first bytes are `prefix` (a
/// ReadLimit): up to the end of the data its header declares; no more than
/// the prefix when the bytes are not an .npy file or the header is bad
/// (parseNpy then says why); and only the header when the data would not fit
/// the memory `budget`.
struct NpyReadLimit {
  uint64_t budget = UINT64_MAX;
  /// Once the header is read: the array and its data size.
  std::optional<Header> header;
  uint64_t dataBytes = 0;
  bool overBudget = false;

  /// Each answer is a fixed position of the file, so that reading stops
  /// once it is passed.
  uint64_t operator()(std::string_view prefix) {
    const auto *u = reinterpret_cast<const unsigned char *>(prefix.data());
    size_t n = prefix.size();
    if (n >= kMagicLen && std::memcmp(u, kMagic, kMagicLen) != 0)
      return kMagicLen; // Not an .npy file: nothing more to read.
    if (n < kMagicLen + 2)
      return UINT64_MAX;
    unsigned major = u[kMagicLen], minor = u[kMagicLen + 1];
    if (minor != 0 || major < 1 || major > 3)
      return kMagicLen + 2;
    size_t lenBytes = major == 1 ? 2 : 4;
    size_t start = kMagicLen + 2 + lenBytes;
    if (n < start)
      return UINT64_MAX;
    uint64_t headerEnd = start + readLE(u + kMagicLen + 2, lenBytes);
    if (n < headerEnd)
      return headerEnd;
    if (!header) {
      Header parsed;
      std::string ignored;
      HeaderParser parser(prefix.substr(start, headerEnd - start), ignored);
      std::optional<int64_t> count;
      if (!parser.parse(parsed) ||
          !(count = checkedNumElements(parsed.shape)) ||
          __builtin_mul_overflow(uint64_t(*count),
                                 uint64_t(dtypeSize(parsed.type)), &dataBytes))
        return headerEnd; // parseNpy says what is wrong with the header.
      header = std::move(parsed);
      overBudget = dataBytes > budget;
    }
    return overBudget || dataBytes > UINT64_MAX - 1 - headerEnd
               ? headerEnd
               : headerEnd + dataBytes;
  }
};

} // namespace

bool fusec::parseNpyHeader(std::string_view bytes, NpyHeader &out,
                           std::string &error) {
  const auto *u = reinterpret_cast<const unsigned char *>(bytes.data());
  if (bytes.size() < kMagicLen ||
      std::memcmp(bytes.data(), kMagic, kMagicLen) != 0) {
    error = bytes.empty() ? "not an .npy file: the file is empty"
                          : "not an .npy file: bad magic string";
    return false;
  }
  if (bytes.size() < kMagicLen + 2) {
    error = "truncated .npy header: no version";
    return false;
  }
  unsigned major = u[kMagicLen], minor = u[kMagicLen + 1];
  size_t lenBytes;
  if (major == 1 && minor == 0) {
    lenBytes = 2;
  } else if ((major == 2 || major == 3) && minor == 0) {
    lenBytes = 4;
  } else {
    error = "unsupported .npy version " + std::to_string(major) + "." +
            std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)";
    return false;
  }
  size_t prefix = kMagicLen + 2 + lenBytes;
  if (bytes.size() < prefix) {
    error = "truncated .npy header: no header length";
    return false;
  }
  uint64_t headerLen = readLE(u + kMagicLen + 2, lenBytes);
  if (headerLen > bytes.size() - prefix) {
    error = "truncated .npy header: declares " + std::to_string(headerLen) +
            " bytes, found " + std::to_string(bytes.size() - prefix);
    return false;
  }

  Header header;
  HeaderParser parser(bytes.substr(prefix, headerLen), error);
  if (!parser.parse(header))
    return false;

  std::optional<int64_t> count = checkedNumElements(header.shape);
  size_t elemSize = dtypeSize(header.type);
  uint64_t expected;
  if (!count ||
      __builtin_mul_overflow(uint64_t(*count), uint64_t(elemSize), &expected) ||
      expected > uint64_t(INT64_MAX)) {
    error = "shape " + formatTuple(header.shape) + " of dtype " +
            std::string(dtypeName(header.type)) +
            " is too large: its size overflows int64";
    return false;
  }
  out.type = header.type;
  out.shape = header.shape;
  out.fortranOrder = header.fortranOrder && header.shape.size() > 1;
  out.swapBytes = elemSize > 1 &&
                  ((header.order == ByteOrder::Big && kHostLittleEndian) ||
                   (header.order == ByteOrder::Little && !kHostLittleEndian));
  out.dataOffset = prefix + headerLen;
  out.dataBytes = expected;
  return true;
}

Buffer fusec::parseNpy(std::string_view bytes, std::string &error,
                       BufferAllocator *allocator) {
  NpyHeader header;
  if (!parseNpyHeader(bytes, header, error))
    return Buffer();
  uint64_t expected = header.dataBytes;
  uint64_t found = bytes.size() - header.dataOffset;
  if (found < expected) {
    error = "truncated: expected " + std::to_string(expected) +
            " bytes of data, found " + std::to_string(found);
    return Buffer();
  }
  if (found > expected) {
    error = "trailing data: expected " + std::to_string(expected) +
            " bytes of data, found " + std::to_string(found);
    return Buffer();
  }
  int64_t count = *checkedNumElements(header.shape);
  size_t elemSize = dtypeSize(header.type);

  Buffer buffer = allocator
                      ? allocator->allocate(header.type, header.shape, error)
                      : Buffer::allocate(header.type, header.shape, &error);
  if (!buffer)
    return Buffer();
  if (expected == 0)
    return buffer;

  auto *dst = static_cast<std::byte *>(buffer.data());
  const auto *src =
      reinterpret_cast<const std::byte *>(bytes.data() + header.dataOffset);
  if (header.fortranOrder)
    transposeFromFortran(dst, src, header.shape, count, elemSize);
  else
    std::memcpy(dst, src, expected);

  if (header.swapBytes)
    byteSwapInPlace(dst, count, elemSize);
  if (header.type == DType::I1) {
    auto *p = reinterpret_cast<unsigned char *>(dst);
    for (int64_t i = 0; i < count; ++i)
      p[i] = p[i] ? 1 : 0;
  }
  return buffer;
}

Buffer fusec::readNpy(const std::string &path, std::string &error,
                      BufferAllocator *allocator) {
  // Reading stops where the header says the data ends, and before data
  // that the budget could not hold.
  NpyReadLimit limit;
  if (allocator && allocator->limitBytes())
    limit.budget = allocator->limitBytes() -
                   std::min(allocator->liveBytes(), allocator->limitBytes());
  FileBytes bytes;
  if (!readFile(path, bytes, error,
                [&](std::string_view prefix) { return limit(prefix); }))
    return Buffer();
  if (limit.overBudget) {
    // The allocator says why, as for any other buffer over the budget.
    Buffer probe =
        allocator->allocate(limit.header->type, limit.header->shape, error);
    if (!probe) {
      error = path + ": " + error;
      return Buffer();
    }
  }
  Buffer buffer = parseNpy(bytes.view(), error, allocator);
  if (!buffer) {
    if (bytes.more && limit.header)
      error = "trailing data: the file goes on after the " +
              std::to_string(limit.dataBytes) +
              " bytes of data its header declares";
    error = path + ": " + error;
  }
  return buffer;
}

std::string fusec::serializeNpy(const Buffer &buffer) {
  if (!buffer)
    return std::string();
  const Shape &shape = buffer.shape();
  std::string dict = "{'descr': '";
  dict += descrFor(buffer.dtype());
  dict += "', 'fortran_order': False, 'shape': ";
  dict += formatTuple(shape);
  dict += ", }";
  // Like NumPy, leave room for the first dimension to grow in place.
  if (!shape.empty()) {
    size_t digits = std::to_string(shape[0]).size();
    if (digits < kGrowthAxisMaxDigits)
      dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  // Pad with spaces and a final newline so that the data starts at a
  // multiple of 64 bytes (NumPy always adds 1 to 64 spaces).
  size_t hlen = dict.size() + 1;
  size_t prefix = kMagicLen + 2 + 2;
  size_t pad = kArrayAlign - (prefix + hlen) % kArrayAlign;
  unsigned major = 1;
  if (hlen + pad > 0xffff) {
    major = 2;
    prefix = kMagicLen + 2 + 4;
    pad = kArrayAlign - (prefix + hlen) % kArrayAlign;
  }
  uint64_t headerLen = hlen + pad;

  std::string out;
  out.reserve(prefix + headerLen + buffer.sizeInBytes());
  out.append(kMagic, kMagicLen);
  out += char(major);
  out += char(0);
  for (size_t i = 0; i < prefix - kMagicLen - 2; ++i)
    out += char((headerLen >> (8 * i)) & 0xff);
  out += dict;
  out.append(pad, ' ');
  out += '\n';
  size_t dataStart = out.size();
  out.append(static_cast<const char *>(buffer.data()), buffer.sizeInBytes());
  size_t elemSize = dtypeSize(buffer.dtype());
  if (!kHostLittleEndian && elemSize > 1)
    byteSwapInPlace(reinterpret_cast<std::byte *>(&out[dataStart]),
                    buffer.numElements(), elemSize);
  return out;
}

bool fusec::writeNpy(const std::string &path, const Buffer &buffer,
                     std::string &error) {
  if (!buffer) {
    error = path + ": cannot write a null buffer";
    return false;
  }
  return writeFileAtomically(path, serializeNpy(buffer), error);
}
