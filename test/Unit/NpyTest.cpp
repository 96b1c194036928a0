//===- NpyTest.cpp - Tests of the .npy reader and writer ------------------===//
//
// The expected bytes below were produced by NumPy 1.24 (and ml_dtypes 0.4.1
// for bfloat16), not by the code under test: each array is preceded by the
// Python statement that wrote it, run as
//
//   import io, numpy as np, ml_dtypes; f = io.BytesIO(); <statement>
//
// with f.getvalue() pasted as a C string (header as text, data as escapes).
//
//===----------------------------------------------------------------------===//

#include "fusec/Support/Npy.h"
#include "fusec/Support/File.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace fusec;

namespace {

// clang-format off
// np.save(f, np.array([1.0, -2.5, np.inf, 2**-133], ml_dtypes.bfloat16))
const char kBF16[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<V2', 'fortran_order': Fals"
    "e, 'shape': (4,), }                                         "
    "                   \n"
    "\x80\x3f\x20\xc0\x80\x7f\x01\x00";
// np.save(f, np.array([[1.5, -2, 0.25], [3, 1e10, -0.0]], '<f4'))
const char kF32Matrix[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': Fals"
    "e, 'shape': (2, 3), }                                       "
    "                   \n"
    "\x00\x00\xc0\x3f\x00\x00\x00\xc0\x00\x00\x80\x3e\x00\x00\x40\x40"
    "\xf9\x02\x15\x50\x00\x00\x00\x80";
// np.save(f, np.array([1.0, -2.5, 65504, 2**-24], '<f2'))
const char kF16[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f2', 'fortran_order': Fals"
    "e, 'shape': (4,), }                                         "
    "                   \n"
    "\x00\x3c\x00\xc1\xff\x7b\x01\x00";
// np.save(f, np.array([0x3f80, 0xc020, 0x7f80, 0x0001], '<u2').view('V2'))
const char kBF16Void[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '|V2', 'fortran_order': Fals"
    "e, 'shape': (4,), }                                         "
    "                   \n"
    "\x80\x3f\x20\xc0\x80\x7f\x01\x00";
// np.save(f, np.array([True, False, True, True, False]))
const char kBool[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': Fals"
    "e, 'shape': (5,), }                                         "
    "                   \n"
    "\x01\x00\x01\x01\x00";
// np.save(f, np.array([0, 2, 255, 1], 'u1').view('?'))
const char kBoolRawBytes[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': Fals"
    "e, 'shape': (4,), }                                         "
    "                   \n"
    "\x00\x02\xff\x01";
// np.save(f, np.array([[1, -2], [2**31 - 1, -2**31]], '<i4'))
const char kI32Matrix[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': Fals"
    "e, 'shape': (2, 2), }                                       "
    "                   \n"
    "\x01\x00\x00\x00\xfe\xff\xff\xff\xff\xff\xff\x7f\x00\x00\x00\x80";
// np.save(f, np.array(-5, '<i8'))
const char kI64Scalar[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': Fals"
    "e, 'shape': (), }                                           "
    "                   \n"
    "\xfb\xff\xff\xff\xff\xff\xff\xff";
// np.save(f, np.array([2**40 + 3, -1, 2**63 - 1], '<i8'))
const char kI64[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': Fals"
    "e, 'shape': (3,), }                                         "
    "                   \n"
    "\x03\x00\x00\x00\x00\x01\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff"
    "\xff\xff\xff\xff\xff\xff\xff\x7f";
// np.save(f, np.arange(24, dtype='<i4').reshape(2, 3, 4))
const char kI32Cube[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': Fals"
    "e, 'shape': (2, 3, 4), }                                    "
    "                   \n"
    "\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00"
    "\x04\x00\x00\x00\x05\x00\x00\x00\x06\x00\x00\x00\x07\x00\x00\x00"
    "\x08\x00\x00\x00\x09\x00\x00\x00\x0a\x00\x00\x00\x0b\x00\x00\x00"
    "\x0c\x00\x00\x00\x0d\x00\x00\x00\x0e\x00\x00\x00\x0f\x00\x00\x00"
    "\x10\x00\x00\x00\x11\x00\x00\x00\x12\x00\x00\x00\x13\x00\x00\x00"
    "\x14\x00\x00\x00\x15\x00\x00\x00\x16\x00\x00\x00\x17\x00\x00\x00";
// np.save(f, np.zeros((0, 3), '<f4'))
const char kF32Empty[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': Fals"
    "e, 'shape': (0, 3), }                                       "
    "                   \n";
// np.save(f, np.array([1.0, -2.0, 0.5], '>f4'))
const char kF32BigEndian[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '>f4', 'fortran_order': Fals"
    "e, 'shape': (3,), }                                         "
    "                   \n"
    "\x3f\x80\x00\x00\xc0\x00\x00\x00\x3f\x00\x00\x00";
// np.save(f, np.array([1, -2, 2**40], '>i8'))
const char kI64BigEndian[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '>i8', 'fortran_order': Fals"
    "e, 'shape': (3,), }                                         "
    "                   \n"
    "\x00\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff\xff\xff\xff\xfe"
    "\x00\x00\x01\x00\x00\x00\x00\x00";
// np.save(f, np.array([1, -2], '>i4'))
const char kI32BigEndian[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '>i4', 'fortran_order': Fals"
    "e, 'shape': (2,), }                                         "
    "                   \n"
    "\x00\x00\x00\x01\xff\xff\xff\xfe";
// np.save(f, np.array([1.0, -2.5], '>f2'))
const char kF16BigEndian[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '>f2', 'fortran_order': Fals"
    "e, 'shape': (2,), }                                         "
    "                   \n"
    "\x3c\x00\xc1\x00";
// np.save(f, np.asfortranarray(np.arange(6, dtype='<i4').reshape(2, 3)))
const char kI32Fortran2x3[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': True"
    ", 'shape': (2, 3), }                                        "
    "                   \n"
    "\x00\x00\x00\x00\x03\x00\x00\x00\x01\x00\x00\x00\x04\x00\x00\x00"
    "\x02\x00\x00\x00\x05\x00\x00\x00";
// np.save(f, np.asfortranarray(np.arange(24, dtype='<i4').reshape(2, 3, 4)))
const char kI32Fortran2x3x4[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': True"
    ", 'shape': (2, 3, 4), }                                     "
    "                   \n"
    "\x00\x00\x00\x00\x0c\x00\x00\x00\x04\x00\x00\x00\x10\x00\x00\x00"
    "\x08\x00\x00\x00\x14\x00\x00\x00\x01\x00\x00\x00\x0d\x00\x00\x00"
    "\x05\x00\x00\x00\x11\x00\x00\x00\x09\x00\x00\x00\x15\x00\x00\x00"
    "\x02\x00\x00\x00\x0e\x00\x00\x00\x06\x00\x00\x00\x12\x00\x00\x00"
    "\x0a\x00\x00\x00\x16\x00\x00\x00\x03\x00\x00\x00\x0f\x00\x00\x00"
    "\x07\x00\x00\x00\x13\x00\x00\x00\x0b\x00\x00\x00\x17\x00\x00\x00";
// np.save(f, np.asfortranarray(np.array([[1, 2, 3], [4, 5, 6]], '>f4')))
const char kF32BigEndianFortran[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '>f4', 'fortran_order': True"
    ", 'shape': (2, 3), }                                        "
    "                   \n"
    "\x3f\x80\x00\x00\x40\x80\x00\x00\x40\x00\x00\x00\x40\xa0\x00\x00"
    "\x40\x40\x00\x00\x40\xc0\x00\x00";
// np.lib.format.write_array(f, np.array([1.0, 2.0], '<f4'), version=(2, 0))
const char kF32Version2[] =
    "\x93NUMPY\x02\x00t\x00\x00\x00{'descr': '<f4', 'fortran_orde"
    "r': False, 'shape': (2,), }                                 "
    "                         \n"
    "\x00\x00\x80\x3f\x00\x00\x00\x40";
// np.lib.format.write_array(f, np.array([1.0, 2.0], '<f4'), version=(3, 0))
const char kF32Version3[] =
    "\x93NUMPY\x03\x00t\x00\x00\x00{'descr': '<f4', 'fortran_orde"
    "r': False, 'shape': (2,), }                                 "
    "                         \n"
    "\x00\x00\x80\x3f\x00\x00\x00\x40";
// np.save(f, np.array([1.0], '<f8'))
const char kF8[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': Fals"
    "e, 'shape': (1,), }                                         "
    "                   \n"
    "\x00\x00\x00\x00\x00\x00\xf0\x3f";
// np.save(f, np.array([1, 'a'], object)), only the header (up to the
// newline): the pickled data that follows does not matter.
const char kObject[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '|O', 'fortran_order': False"
    ", 'shape': (2,), }                                          "
    "                   \n";
// np.save(f, np.zeros(2, [('a', '<f4'), ('b', '<i4')]))
const char kStructured[] =
    "\x93NUMPY\x01\x00v\x00{'descr': [('a', '<f4'), ('b', '<i4')]"
    ", 'fortran_order': False, 'shape': (2,), }                  "
    "                   \n"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00";
// clang-format on

/// The bytes of a string literal, embedded NULs included.
template <size_t N> std::string bytesOf(const char (&s)[N]) {
  return std::string(s, N - 1);
}

/// A version 1.0 file with the given header dictionary (no alignment padding:
/// readers must not depend on it) followed by `data`. Every dictionary used
/// with this was checked to load with numpy.load.
std::string npyV1(const std::string &dict, const std::string &data) {
  std::string header = dict + "\n";
  std::string out("\x93NUMPY\x01\x00", 8);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  return out + header + data;
}

Buffer parseOk(const std::string &bytes) {
  std::string error;
  Buffer b = parseNpy(bytes, error);
  EXPECT_TRUE(b) << error;
  return b;
}

/// Parses `bytes`, expecting failure; returns the message.
std::string parseError(const std::string &bytes) {
  std::string error;
  Buffer b = parseNpy(bytes, error);
  EXPECT_FALSE(b) << "unexpectedly parsed";
  EXPECT_FALSE(error.empty());
  return error;
}

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)             \
      << "'" << (haystack) << "' does not contain '" << (needle) << "'"

std::vector<uint16_t> bits16(const Buffer &b) {
  return std::vector<uint16_t>(b.as<uint16_t>(),
                               b.as<uint16_t>() + b.numElements());
}
template <typename T> std::vector<T> values(const Buffer &b) {
  return std::vector<T>(b.as<T>(), b.as<T>() + b.numElements());
}

//===----------------------------------------------------------------------===//
// Reading what NumPy writes
//===----------------------------------------------------------------------===//

TEST(Npy, ReadsF32Matrix) {
  Buffer b = parseOk(bytesOf(kF32Matrix));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::F32);
  EXPECT_EQ(b.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(b),
            (std::vector<float>{1.5f, -2.0f, 0.25f, 3.0f, 1e10f, -0.0f}));
  EXPECT_TRUE(std::signbit(b.as<float>()[5]));
}

TEST(Npy, ReadsF16) {
  Buffer b = parseOk(bytesOf(kF16));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::F16);
  EXPECT_EQ(b.shape(), (Shape{4}));
  // 1.0, -2.5, 65504 (largest finite), 2^-24 (smallest subnormal).
  EXPECT_EQ(bits16(b), (std::vector<uint16_t>{0x3c00, 0xc100, 0x7bff, 0x0001}));
  EXPECT_EQ(b.getAsDouble(1), -2.5);
  EXPECT_EQ(b.getAsDouble(2), 65504.0);
  EXPECT_EQ(b.getAsDouble(3), std::ldexp(1.0, -24));
}

TEST(Npy, ReadsBF16AsWrittenByMlDtypes) {
  Buffer b = parseOk(bytesOf(kBF16));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::BF16);
  EXPECT_EQ(b.shape(), (Shape{4}));
  // 1.0, -2.5, inf, 2^-133 (smallest subnormal bfloat16).
  EXPECT_EQ(bits16(b), (std::vector<uint16_t>{0x3f80, 0xc020, 0x7f80, 0x0001}));
  EXPECT_EQ(b.getAsDouble(1), -2.5);
  EXPECT_TRUE(std::isinf(b.getAsDouble(2)));
}

TEST(Npy, ReadsBF16FromPlainVoid) {
  Buffer b = parseOk(bytesOf(kBF16Void));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::BF16);
  EXPECT_EQ(bits16(b), (std::vector<uint16_t>{0x3f80, 0xc020, 0x7f80, 0x0001}));
}

TEST(Npy, ReadsBool) {
  Buffer b = parseOk(bytesOf(kBool));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::I1);
  EXPECT_EQ(b.shape(), (Shape{5}));
  EXPECT_EQ(values<uint8_t>(b), (std::vector<uint8_t>{1, 0, 1, 1, 0}));
}

TEST(Npy, ReadsNonzeroBoolBytesAsOne) {
  Buffer b = parseOk(bytesOf(kBoolRawBytes));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::I1);
  EXPECT_EQ(values<uint8_t>(b), (std::vector<uint8_t>{0, 1, 1, 1}));
}

TEST(Npy, ReadsI32Matrix) {
  Buffer b = parseOk(bytesOf(kI32Matrix));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::I32);
  EXPECT_EQ(b.shape(), (Shape{2, 2}));
  EXPECT_EQ(values<int32_t>(b),
            (std::vector<int32_t>{1, -2, INT32_MAX, INT32_MIN}));
}

TEST(Npy, ReadsI64) {
  Buffer b = parseOk(bytesOf(kI64));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::I64);
  EXPECT_EQ(b.shape(), (Shape{3}));
  EXPECT_EQ(values<int64_t>(b),
            (std::vector<int64_t>{(int64_t(1) << 40) + 3, -1, INT64_MAX}));
}

TEST(Npy, ReadsScalar) {
  Buffer b = parseOk(bytesOf(kI64Scalar));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::I64);
  EXPECT_EQ(b.rank(), 0);
  EXPECT_EQ(b.numElements(), 1);
  EXPECT_EQ(b.as<int64_t>()[0], -5);
}

TEST(Npy, Reads3D) {
  Buffer b = parseOk(bytesOf(kI32Cube));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.shape(), (Shape{2, 3, 4}));
  for (int32_t i = 0; i < 24; ++i)
    EXPECT_EQ(b.as<int32_t>()[i], i);
}

TEST(Npy, ReadsZeroSizeArray) {
  Buffer b = parseOk(bytesOf(kF32Empty));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::F32);
  EXPECT_EQ(b.shape(), (Shape{0, 3}));
  EXPECT_EQ(b.numElements(), 0);
}

TEST(Npy, ReadsBigEndianF32) {
  Buffer b = parseOk(bytesOf(kF32BigEndian));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::F32);
  EXPECT_EQ(values<float>(b), (std::vector<float>{1.0f, -2.0f, 0.5f}));
}

TEST(Npy, ReadsBigEndianI64) {
  Buffer b = parseOk(bytesOf(kI64BigEndian));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::I64);
  EXPECT_EQ(values<int64_t>(b),
            (std::vector<int64_t>{1, -2, int64_t(1) << 40}));
}

TEST(Npy, ReadsBigEndianI32AndF16) {
  Buffer i = parseOk(bytesOf(kI32BigEndian));
  ASSERT_TRUE(i);
  EXPECT_EQ(values<int32_t>(i), (std::vector<int32_t>{1, -2}));
  Buffer h = parseOk(bytesOf(kF16BigEndian));
  ASSERT_TRUE(h);
  EXPECT_EQ(bits16(h), (std::vector<uint16_t>{0x3c00, 0xc100}));
}

TEST(Npy, ReadsFortranOrder2D) {
  Buffer b = parseOk(bytesOf(kI32Fortran2x3));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<int32_t>(b), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(Npy, ReadsFortranOrder3D) {
  Buffer b = parseOk(bytesOf(kI32Fortran2x3x4));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.shape(), (Shape{2, 3, 4}));
  for (int32_t i = 0; i < 24; ++i)
    EXPECT_EQ(b.as<int32_t>()[i], i);
}

TEST(Npy, ReadsBigEndianFortranOrder) {
  Buffer b = parseOk(bytesOf(kF32BigEndianFortran));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.shape(), (Shape{2, 3}));
  EXPECT_EQ(values<float>(b), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST(Npy, ReadsVersion2And3) {
  for (const std::string &bytes :
       {bytesOf(kF32Version2), bytesOf(kF32Version3)}) {
    Buffer b = parseOk(bytes);
    ASSERT_TRUE(b);
    EXPECT_EQ(b.shape(), (Shape{2}));
    EXPECT_EQ(values<float>(b), (std::vector<float>{1.0f, 2.0f}));
  }
}

TEST(Npy, AcceptsHeaderSpellings) {
  std::string data("\x01\x00\x00\x00\x02\x00\x00\x00", 8);
  const char *dicts[] = {
      // Double quotes, keys in another order, no trailing comma.
      "{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<i4\"}",
      // Arbitrary spacing, tabs and newlines, trailing commas everywhere.
      "{ 'descr' :'<i4' ,\t'fortran_order':False,\n 'shape' : ( 2 , ) , }",
      // Fortran order is irrelevant for one dimension.
      "{'fortran_order': True, 'shape': (2,), 'descr': '<i4'}",
      // Native byte order.
      "{'descr': '=i4', 'fortran_order': False, 'shape': (2,)}",
      // A Python 2 long, as NumPy still accepts in 1.0 and 2.0 files.
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2L,), }",
      // A shape of two dimensions with a trailing comma.
      "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 2,)}",
  };
  for (const char *dict : dicts) {
    SCOPED_TRACE(dict);
    Buffer b = parseOk(npyV1(dict, data));
    ASSERT_TRUE(b);
    EXPECT_EQ(b.dtype(), DType::I32);
    EXPECT_EQ(b.numElements(), 2);
    EXPECT_EQ(values<int32_t>(b), (std::vector<int32_t>{1, 2}));
  }
  Buffer scalar =
      parseOk(npyV1("{'descr':'<f4','fortran_order':False,'shape':()}",
                    std::string("\x00\x00\x80\x3f", 4)));
  ASSERT_TRUE(scalar);
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.as<float>()[0], 1.0f);
}

TEST(Npy, AcceptsEveryDescrOfTheTable) {
  struct Case {
    const char *descr;
    DType type;
    std::string data; // Two elements: 1 and 2 (bf16: 1.0 and 2.0).
  };
  const Case cases[] = {
      {"<f4", DType::F32, std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8)},
      {">f4", DType::F32, std::string("\x3f\x80\x00\x00\x40\x00\x00\x00", 8)},
      {"=f4", DType::F32, std::string("\x00\x00\x80\x3f\x00\x00\x00\x40", 8)},
      {"<f2", DType::F16, std::string("\x00\x3c\x00\x40", 4)},
      {">f2", DType::F16, std::string("\x3c\x00\x40\x00", 4)},
      {"=f2", DType::F16, std::string("\x00\x3c\x00\x40", 4)},
      {"<V2", DType::BF16, std::string("\x80\x3f\x00\x40", 4)},
      {"|V2", DType::BF16, std::string("\x80\x3f\x00\x40", 4)},
      {"|b1", DType::I1, std::string("\x01\x07", 2)},
      {"<b1", DType::I1, std::string("\x01\x07", 2)},
      {">b1", DType::I1, std::string("\x01\x07", 2)},
      {"=b1", DType::I1, std::string("\x01\x07", 2)},
      {"<i4", DType::I32, std::string("\x01\x00\x00\x00\x02\x00\x00\x00", 8)},
      {">i4", DType::I32, std::string("\x00\x00\x00\x01\x00\x00\x00\x02", 8)},
      {"=i4", DType::I32, std::string("\x01\x00\x00\x00\x02\x00\x00\x00", 8)},
      {"<i8", DType::I64,
       std::string("\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0", 16)},
      {">i8", DType::I64,
       std::string("\0\0\0\0\0\0\0\x01\0\0\0\0\0\0\0\x02", 16)},
      {"=i8", DType::I64,
       std::string("\x01\0\0\0\0\0\0\0\x02\0\0\0\0\0\0\0", 16)},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.descr);
    Buffer b = parseOk(npyV1(std::string("{'descr': '") + c.descr +
                                 "', 'fortran_order': False, 'shape': (2,)}",
                             c.data));
    ASSERT_TRUE(b);
    EXPECT_EQ(b.dtype(), c.type);
    EXPECT_EQ(b.getAsDouble(0), 1.0);
    EXPECT_EQ(b.getAsDouble(1), c.type == DType::I1 ? 1.0 : 2.0);
  }
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

TEST(Npy, SerializeMatchesNumPyF32Matrix) {
  Buffer b = Buffer::allocate(DType::F32, {2, 3});
  ASSERT_TRUE(b);
  const float v[] = {1.5f, -2.0f, 0.25f, 3.0f, 1e10f, -0.0f};
  std::memcpy(b.data(), v, sizeof(v));
  EXPECT_EQ(serializeNpy(b), bytesOf(kF32Matrix));
}

TEST(Npy, SerializeMatchesNumPyI64Scalar) {
  Buffer b = Buffer::allocate(DType::I64, {});
  ASSERT_TRUE(b);
  b.as<int64_t>()[0] = -5;
  EXPECT_EQ(serializeNpy(b), bytesOf(kI64Scalar));
}

TEST(Npy, SerializeMatchesNumPyBool) {
  Buffer b = Buffer::allocate(DType::I1, {5});
  ASSERT_TRUE(b);
  const uint8_t v[] = {1, 0, 1, 1, 0};
  std::memcpy(b.data(), v, sizeof(v));
  EXPECT_EQ(serializeNpy(b), bytesOf(kBool));
}

TEST(Npy, SerializeMatchesNumPyBF16) {
  Buffer b = Buffer::allocate(DType::BF16, {4});
  ASSERT_TRUE(b);
  const uint16_t v[] = {0x3f80, 0xc020, 0x7f80, 0x0001};
  std::memcpy(b.data(), v, sizeof(v));
  EXPECT_EQ(serializeNpy(b), bytesOf(kBF16));
}

TEST(Npy, SerializeReproducesEveryLittleEndianCOrderFile) {
  // Files whose descr is the one fusec writes come back byte for byte.
  for (const std::string &bytes :
       {bytesOf(kBF16), bytesOf(kF32Matrix), bytesOf(kF16), bytesOf(kBool),
        bytesOf(kI32Matrix), bytesOf(kI64Scalar), bytesOf(kI64),
        bytesOf(kI32Cube), bytesOf(kF32Empty)}) {
    Buffer b = parseOk(bytes);
    ASSERT_TRUE(b);
    EXPECT_EQ(serializeNpy(b), bytes) << formatShape(b.shape());
  }
}

TEST(Npy, SerializeNormalizesForeignFiles) {
  // Big-endian and Fortran-order files are written little-endian, C order,
  // exactly as NumPy writes the same values.
  Buffer f = parseOk(bytesOf(kI32Fortran2x3x4));
  ASSERT_TRUE(f);
  Buffer c = parseOk(bytesOf(kI32Cube));
  ASSERT_TRUE(c);
  EXPECT_EQ(serializeNpy(f), serializeNpy(c));
  Buffer be = parseOk(bytesOf(kF32BigEndianFortran));
  ASSERT_TRUE(be);
  std::string le = serializeNpy(be);
  Buffer back = parseOk(le);
  ASSERT_TRUE(back);
  EXPECT_EQ(values<float>(back), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_NE(le.find("'descr': '<f4', 'fortran_order': False"),
            std::string::npos);
}

TEST(Npy, RoundTripsEveryDType) {
  const Shape shapes[] = {{},     {1},    {5},       {2, 3},
                          {0, 3}, {3, 0}, {2, 3, 4}, {1, 1, 1, 7}};
  for (DType type : kAllDTypes) {
    for (const Shape &shape : shapes) {
      SCOPED_TRACE(std::string(dtypeName(type)) + " " + formatShape(shape));
      Buffer b = Buffer::allocate(type, shape);
      ASSERT_TRUE(b);
      auto *p = static_cast<uint8_t *>(b.data());
      for (size_t i = 0; i < b.sizeInBytes(); ++i)
        p[i] = type == DType::I1 ? uint8_t(i % 3 == 0) : uint8_t(i * 37 + 11);
      std::string bytes = serializeNpy(b);
      // Version 1.0, data aligned to 64 bytes, header ends in a newline.
      ASSERT_GE(bytes.size(), 10u);
      EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
      size_t headerLen = uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8;
      EXPECT_EQ((10 + headerLen) % 64, 0u);
      EXPECT_EQ(bytes[10 + headerLen - 1], '\n');
      EXPECT_EQ(bytes.size(), 10 + headerLen + b.sizeInBytes());
      Buffer back = parseOk(bytes);
      ASSERT_TRUE(back);
      EXPECT_EQ(back.dtype(), type);
      EXPECT_EQ(back.shape(), shape);
      EXPECT_EQ(std::memcmp(back.data(), b.data(), b.sizeInBytes()), 0);
    }
  }
}

TEST(Npy, LargeHeaderUsesVersion2) {
  // 40000 dimensions of 1 need a header longer than 65535 bytes.
  Shape shape(40000, 1);
  Buffer b = Buffer::allocate(DType::I32, shape);
  ASSERT_TRUE(b);
  b.as<int32_t>()[0] = 42;
  std::string bytes = serializeNpy(b);
  ASSERT_GE(bytes.size(), 12u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x02\x00", 8));
  uint64_t headerLen = 0;
  for (int i = 0; i < 4; ++i)
    headerLen |= uint64_t(uint8_t(bytes[8 + i])) << (8 * i);
  EXPECT_GT(headerLen, 65535u);
  EXPECT_EQ((12 + headerLen) % 64, 0u);
  Buffer back = parseOk(bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(back.shape(), shape);
  EXPECT_EQ(back.as<int32_t>()[0], 42);
}

TEST(Npy, SerializeOfNullBufferIsEmpty) {
  EXPECT_EQ(serializeNpy(Buffer()), "");
}

//===----------------------------------------------------------------------===//
// Malformed input
//===----------------------------------------------------------------------===//

TEST(Npy, RejectsEmptyFile) { EXPECT_CONTAINS(parseError(""), "empty"); }

TEST(Npy, RejectsBadMagic) {
  std::string bytes = bytesOf(kF32Matrix);
  bytes[1] = 'X';
  EXPECT_CONTAINS(parseError(bytes), "magic");
  EXPECT_CONTAINS(parseError("PK\x03\x04 this is a zip"), "magic");
}

TEST(Npy, RejectsUnknownVersion) {
  std::string bytes = bytesOf(kF32Matrix);
  bytes[6] = 4;
  EXPECT_CONTAINS(parseError(bytes), "version 4.0");
  bytes[6] = 1;
  bytes[7] = 1;
  EXPECT_CONTAINS(parseError(bytes), "version 1.1");
}

TEST(Npy, RejectsTruncatedHeader) {
  std::string bytes = bytesOf(kF32Matrix);
  EXPECT_CONTAINS(parseError(bytes.substr(0, 7)), "truncated");
  EXPECT_CONTAINS(parseError(bytes.substr(0, 9)), "truncated");
  EXPECT_CONTAINS(parseError(bytes.substr(0, 60)), "truncated .npy header");
}

TEST(Npy, RejectsHeaderLengthBeyondFile) {
  std::string bytes = bytesOf(kF32Matrix);
  bytes[8] = '\xff';
  bytes[9] = '\xff';
  EXPECT_CONTAINS(parseError(bytes), "declares 65535 bytes");
  std::string v2 = bytesOf(kF32Version2);
  v2[11] = '\x80'; // Header length >= 2^31.
  EXPECT_CONTAINS(parseError(v2), "truncated .npy header");
}

TEST(Npy, EveryPrefixOfAFileIsRejected) {
  for (const std::string &bytes :
       {bytesOf(kF32Matrix), bytesOf(kI32Fortran2x3), bytesOf(kF32Version3),
        bytesOf(kI64Scalar)}) {
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::string error;
      EXPECT_FALSE(parseNpy(bytes.substr(0, n), error)) << n;
      EXPECT_FALSE(error.empty());
    }
  }
}

TEST(Npy, RejectsBadDictionarySyntax) {
  std::string data(4, '\0');
  const char *dicts[] = {
      "",
      "{",
      "[]",
      "{'descr' '<f4', 'fortran_order': False, 'shape': (1,)}",
      "{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}",
      "{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}",
      "{descr: '<f4', 'fortran_order': False, 'shape': (1,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}}",
      "{'descr': '<f4', 'fortran_order': false, 'shape': (1,)}",
      "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': [1]}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1.0,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1 1,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1x,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': ('1',)}",
      "{'descr': 4, 'fortran_order': False, 'shape': (1,)}",
      "{, 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}",
      "{'descr': '<f4',, 'fortran_order': False, 'shape': (1,)}",
      ("{'descr': [('a', '<f4'), ('b', '<i4')}, 'fortran_order': False, "
       "'shape': (1,)}"),
      "{'descr': [('a', '<f4), 'fortran_order': False, 'shape': (1,)}",
  };
  for (const char *dict : dicts) {
    SCOPED_TRACE(dict);
    EXPECT_CONTAINS(parseError(npyV1(dict, data)), "invalid .npy header");
  }
}

TEST(Npy, RejectsMissingDuplicateAndUnknownKeys) {
  std::string data(4, '\0');
  EXPECT_CONTAINS(
      parseError(npyV1("{'descr': '<f4', 'fortran_order': False}", data)),
      "missing key 'shape'");
  EXPECT_CONTAINS(
      parseError(npyV1("{'shape': (1,), 'fortran_order': False}", data)),
      "missing key 'descr'");
  EXPECT_CONTAINS(parseError(npyV1("{'descr': '<f4', 'shape': (1,)}", data)),
                  "missing key 'fortran_order'");
  EXPECT_CONTAINS(parseError(npyV1("{}", data)), "missing key");
  EXPECT_CONTAINS(parseError(npyV1("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (1,), 'shape': (1,)}",
                                   data)),
                  "duplicate key 'shape'");
  EXPECT_CONTAINS(parseError(npyV1("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (1,), 'align': True}",
                                   data)),
                  "unknown key 'align'");
}

/// kF8 with its descr '<f8' replaced by `descr` (three characters).
std::string withDescr(const char *descr) {
  std::string bytes = bytesOf(kF8);
  bytes.replace(bytes.find("<f8"), 3, descr);
  return bytes;
}

TEST(Npy, ReadsFloat64) {
  // np.save(f, np.array([1.0])): NumPy's default dtype.
  Buffer b = parseOk(bytesOf(kF8));
  ASSERT_TRUE(b);
  EXPECT_EQ(b.dtype(), DType::F64);
  EXPECT_EQ(b.shape(), Shape({1}));
  EXPECT_EQ(b.as<double>()[0], 1.0);
  // Big-endian: the bytes reversed.
  std::string big = withDescr(">f8");
  std::reverse(big.end() - 8, big.end());
  Buffer be = parseOk(big);
  ASSERT_TRUE(be);
  EXPECT_EQ(be.as<double>()[0], 1.0);
}

TEST(Npy, RejectsUnsupportedDescr) {
  std::string error = parseError(withDescr("<c8")); // complex64
  EXPECT_CONTAINS(error, "unsupported dtype descr '<c8'");
  EXPECT_CONTAINS(error, "'<f4'"); // Lists what is supported.
  EXPECT_CONTAINS(error, "'|b1'");
  EXPECT_CONTAINS(error, "'<V2'");
  // Object arrays: only the header is needed to reject them.
  EXPECT_CONTAINS(parseError(bytesOf(kObject)), "unsupported dtype descr '|O'");
  EXPECT_CONTAINS(parseError(npyV1("{'descr': '<u2', 'fortran_order': False, "
                                   "'shape': (2,)}",
                                   std::string(4, '\0'))),
                  "'<u2'");
}

TEST(Npy, RejectsStructuredDescr) {
  EXPECT_CONTAINS(parseError(bytesOf(kStructured)), "structured");
  EXPECT_CONTAINS(parseError(npyV1("{'descr': ('<f4', (2,)), "
                                   "'fortran_order': False, 'shape': (1,)}",
                                   std::string(8, '\0'))),
                  "subarray");
}

TEST(Npy, RejectsNegativeDimension) {
  EXPECT_CONTAINS(parseError(npyV1("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (2, -1)}",
                                   "")),
                  "negative dimension -1");
}

TEST(Npy, RejectsOverflowingShape) {
  // (2**62, 2**62): the element count overflows int64.
  EXPECT_CONTAINS(parseError(npyV1("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (4611686018427387904, "
                                   "4611686018427387904)}",
                                   "")),
                  "too large");
  // (2**62,) of 4-byte floats: the count fits but the byte size does not.
  EXPECT_CONTAINS(parseError(npyV1("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (4611686018427387904,)}",
                                   "")),
                  "too large");
  // A dimension beyond int64 itself.
  EXPECT_CONTAINS(parseError(npyV1("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (99999999999999999999999,)}",
                                   "")),
                  "too large");
  // A zero dimension makes any shape empty, as in NumPy.
  Buffer empty = parseOk(npyV1("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (0, 4611686018427387904, "
                               "4611686018427387904)}",
                               ""));
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty.numElements(), 0);
}

TEST(Npy, RejectsTruncatedData) {
  std::string bytes = bytesOf(kF32Matrix);
  std::string error = parseError(bytes.substr(0, bytes.size() - 1));
  EXPECT_EQ(error, "truncated: expected 24 bytes of data, found 23");
  // A tiny file claiming 10^15 elements fails on the size check, before any
  // allocation is attempted.
  BufferAllocator allocator;
  std::string huge = npyV1(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000000,)}",
      std::string(16, '\0'));
  std::string hugeError;
  EXPECT_FALSE(parseNpy(huge, hugeError, &allocator));
  EXPECT_EQ(hugeError,
            "truncated: expected 4000000000000000 bytes of data, found 16");
  EXPECT_EQ(allocator.peakBytes(), 0u);
}

TEST(Npy, RejectsTrailingData) {
  std::string bytes = bytesOf(kF32Matrix) + "garbage";
  EXPECT_CONTAINS(parseError(bytes), "trailing");
  EXPECT_CONTAINS(parseError(bytesOf(kI64Scalar) + std::string(1, '\0')),
                  "trailing");
}

TEST(Npy, SurvivesCorruptedHeaderBytes) {
  // Every header byte replaced by a few values: parsing either fails with a
  // message or succeeds, but never misbehaves (run under a sanitizer).
  const std::string original = bytesOf(kI32Fortran2x3);
  size_t headerEnd = original.find('\n') + 1;
  const char replacements[] = {'\0', '\xff', '(', ')', ',', '\'',
                               '-',  '9',    '}', ' ', '['};
  for (size_t i = 0; i < headerEnd; ++i) {
    for (char r : replacements) {
      std::string bytes = original;
      bytes[i] = r;
      std::string error;
      Buffer b = parseNpy(bytes, error);
      if (!b)
        EXPECT_FALSE(error.empty()) << i;
      else
        EXPECT_LE(b.sizeInBytes(), bytes.size());
    }
  }
}

//===----------------------------------------------------------------------===//
// Memory budget
//===----------------------------------------------------------------------===//

TEST(Npy, RespectsTheAllocatorBudget) {
  BufferAllocator small(64);
  std::string error;
  // 2x3x4 int32 = 96 bytes > 64.
  EXPECT_FALSE(parseNpy(bytesOf(kI32Cube), error, &small));
  EXPECT_CONTAINS(error, "memory limit");
  EXPECT_EQ(small.liveBytes(), 0u);

  BufferAllocator enough(1024);
  Buffer b = parseNpy(bytesOf(kI32Cube), error, &enough);
  ASSERT_TRUE(b) << error;
  EXPECT_EQ(enough.liveBytes(), 96u);
  EXPECT_EQ(b.as<int32_t>()[23], 23);
  b = Buffer();
  EXPECT_EQ(enough.liveBytes(), 0u);
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

/// A fresh directory under ::testing::TempDir(), removed with its files.
class TempDir {
public:
  TempDir() {
    std::string tmpl = ::testing::TempDir();
    if (tmpl.empty() || tmpl.back() != '/')
      tmpl += '/';
    tmpl += "npytest.XXXXXX";
    if (::mkdtemp(tmpl.data()))
      dir = tmpl;
  }
  ~TempDir() {
    if (dir.empty())
      return;
    for (const std::string &name : list())
      ::unlink((dir + "/" + name).c_str());
    ::rmdir(dir.c_str());
  }
  bool ok() const { return !dir.empty(); }
  std::string path(const std::string &name) const { return dir + "/" + name; }
  /// The names in the directory, sorted.
  std::vector<std::string> list() const {
    std::vector<std::string> names;
    if (DIR *d = ::opendir(dir.c_str())) {
      while (dirent *e = ::readdir(d)) {
        std::string name = e->d_name;
        if (name != "." && name != "..")
          names.push_back(name);
      }
      ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

private:
  std::string dir;
};

std::string readAll(const std::string &path) {
  std::string out;
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0)
    return out;
  char chunk[4096];
  ssize_t n;
  while ((n = ::read(fd, chunk, sizeof(chunk))) > 0)
    out.append(chunk, size_t(n));
  ::close(fd);
  return out;
}

TEST(Npy, WriteFileAtomicallyWritesAndLeavesNoTemporary) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string path = dir.path("out.bin");
  std::string error;
  std::string contents("first\0contents", 14);
  ASSERT_TRUE(writeFileAtomically(path, contents, error)) << error;
  EXPECT_EQ(readAll(path), contents);
  // Overwriting replaces the file.
  ASSERT_TRUE(writeFileAtomically(path, "second", error)) << error;
  EXPECT_EQ(readAll(path), "second");
  ASSERT_TRUE(writeFileAtomically(dir.path("empty"), "", error)) << error;
  EXPECT_EQ(readAll(dir.path("empty")), "");
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"empty", "out.bin"}));
}

TEST(Npy, WriteFileAtomicallyFailsInMissingDirectory) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string path = dir.path("missing/out.npy");
  std::string error;
  EXPECT_FALSE(writeFileAtomically(path, "data", error));
  EXPECT_CONTAINS(error, path);
  EXPECT_CONTAINS(error, std::strerror(ENOENT));
  EXPECT_TRUE(dir.list().empty());
}

TEST(Npy, WriteFileAtomicallyFailsWhenRenameFails) {
  // The destination is a non-empty directory: rename fails, and the
  // temporary file must be removed again.
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string target = dir.path("target");
  ASSERT_EQ(::mkdir(target.c_str(), 0755), 0);
  std::string inside = target + "/file";
  std::string error;
  ASSERT_TRUE(writeFileAtomically(inside, "x", error)) << error;
  EXPECT_FALSE(writeFileAtomically(target, "data", error));
  EXPECT_CONTAINS(error, target);
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"target"}));
  ::unlink(inside.c_str());
  ::rmdir(target.c_str());
}

TEST(Npy, WriteNpyThenReadNpy) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string path = dir.path("a.npy");
  Buffer b = Buffer::allocate(DType::I64, {});
  ASSERT_TRUE(b);
  b.as<int64_t>()[0] = -5;
  std::string error;
  ASSERT_TRUE(writeNpy(path, b, error)) << error;
  EXPECT_EQ(readAll(path), bytesOf(kI64Scalar));
  Buffer back = readNpy(path, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back.as<int64_t>()[0], -5);
  EXPECT_EQ(dir.list(), (std::vector<std::string>{"a.npy"}));
  EXPECT_FALSE(writeNpy(path, Buffer(), error));
  EXPECT_CONTAINS(error, "null buffer");
}

TEST(Npy, ReadNpyErrorsNameThePath) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string missing = dir.path("missing.npy");
  std::string error;
  EXPECT_FALSE(readNpy(missing, error));
  EXPECT_EQ(error, missing + ": cannot open: " + std::strerror(ENOENT));

  std::string bad = dir.path("bad.npy");
  ASSERT_TRUE(writeFileAtomically(bad, withDescr("<c8"), error)) << error;
  EXPECT_FALSE(readNpy(bad, error));
  EXPECT_EQ(error.rfind(bad + ": unsupported dtype descr '<c8'", 0), 0u)
      << error;

  // A directory opens but cannot be read.
  EXPECT_FALSE(readNpy(dir.path(""), error));
  EXPECT_EQ(error.rfind(dir.path("") + ": ", 0), 0u) << error;
}

TEST(Npy, ReadNpyAppliesTheBudget) {
  TempDir dir;
  ASSERT_TRUE(dir.ok());
  std::string path = dir.path("cube.npy");
  std::string error;
  ASSERT_TRUE(writeFileAtomically(path, bytesOf(kI32Cube), error)) << error;
  BufferAllocator small(64);
  EXPECT_FALSE(readNpy(path, error, &small));
  EXPECT_CONTAINS(error, "memory limit");
  Buffer b = readNpy(path, error);
  ASSERT_TRUE(b) << error;
  EXPECT_EQ(b.shape(), (Shape{2, 3, 4}));
}

} // namespace
