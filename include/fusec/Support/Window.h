//===- Window.h - Where a 2-D window reads an NHWC tensor -------*- C++ -*-===//
//
// The geometry of convolutions, pooling and `fusec.patches`: a window of
// KH x KW elements, dilated, moved by strides over the height and width of
// an [N, H, W, C] tensor padded on each side. One definition of the output
// size, shared by the verifiers, the reference kernels and the lowering.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_WINDOW_H
#define FUSEC_SUPPORT_WINDOW_H

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace fusec {

struct Window2D {
  /// [KH, KW], [SH, SW], [DH, DW]: all at least 1.
  std::array<int64_t, 2> size{1, 1}, strides{1, 1}, dilations{1, 1};
  /// [top, bottom, left, right]: at least 0.
  std::array<int64_t, 4> padding{0, 0, 0, 0};

  int64_t padBefore(int d) const { return padding[size_t(2 * d)]; }
  int64_t padAfter(int d) const { return padding[size_t(2 * d + 1)]; }
  /// The input position along spatial dimension `d` that window element
  /// `k` of output position `out` reads (negative or past the end: padding).
  int64_t inputAt(int d, int64_t out, int64_t k) const {
    return out * strides[size_t(d)] + k * dilations[size_t(d)] - padBefore(d);
  }
  bool padded() const {
    return padding[0] || padding[1] || padding[2] || padding[3];
  }

  /// The number of window positions along spatial dimension `d` (0: height,
  /// 1: width) of an input of `extent`:
  /// (extent + before + after - (K - 1) * D - 1) / S + 1. Nullopt, with the
  /// reason in `why`, when a parameter is out of range, the dilated window
  /// is larger than the padded input, or the arithmetic overflows.
  std::optional<int64_t> outputSize(int d, int64_t extent,
                                    std::string *why = nullptr) const;

  /// "7x7/2", "3x3", "1x1/2 dilated 2": the window, then the strides and
  /// dilations that are not 1 (one number when height and width agree), for
  /// reports.
  std::string describe() const;
};

} // namespace fusec

#endif // FUSEC_SUPPORT_WINDOW_H
