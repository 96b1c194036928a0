//===- Window.cpp - Where a 2-D window reads an NHWC tensor ---------------===//

#include "fusec/Support/Window.h"
#include "fusec/Support/Checked.h"

using namespace fusec;

std::optional<int64_t> Window2D::outputSize(int d, int64_t extent,
                                            std::string *why) const {
  auto fail = [&](const std::string &message) -> std::optional<int64_t> {
    if (why)
      *why = message;
    return std::nullopt;
  };
  const char *dim = d == 0 ? "height" : "width";
  int64_t k = size[size_t(d)], s = strides[size_t(d)],
          dil = dilations[size_t(d)];
  if (k < 1 || s < 1 || dil < 1)
    return fail(std::string("the window, stride and dilation along the ") +
                dim + " must be at least 1");
  if (padBefore(d) < 0 || padAfter(d) < 0)
    return fail(std::string("the padding along the ") + dim +
                " must be at least 0");
  std::optional<int64_t> span = checkedMul(k - 1, dil);
  std::optional<int64_t> padded = checkedAdd(extent, padBefore(d));
  if (padded)
    padded = checkedAdd(*padded, padAfter(d));
  if (!span || !padded || *span == INT64_MAX)
    return fail(std::string("the window along the ") + dim + " overflows");
  int64_t extentNeeded = *span + 1;
  if (*padded < extentNeeded)
    return fail(std::string("the window along the ") + dim + " spans " +
                std::to_string(extentNeeded) +
                " elements (with its dilation) but the padded input has " +
                std::to_string(*padded));
  return (*padded - extentNeeded) / s + 1;
}

std::string Window2D::describe() const {
  auto pair = [](const std::array<int64_t, 2> &v) {
    return v[0] == v[1] ? std::to_string(v[0])
                        : std::to_string(v[0]) + "," + std::to_string(v[1]);
  };
  std::string s = std::to_string(size[0]) + "x" + std::to_string(size[1]);
  if (strides[0] != 1 || strides[1] != 1)
    s += "/" + pair(strides);
  if (dilations[0] != 1 || dilations[1] != 1)
    s += " dilated " + pair(dilations);
  return s;
}
