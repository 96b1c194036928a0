//===- Version.h - fusec's version and git revision -------------*- C++ -*-===//

#ifndef FUSEC_SUPPORT_VERSION_H
#define FUSEC_SUPPORT_VERSION_H

#include <string>

namespace fusec {

/// "fusec 0.1.0 (git 0123456789ab)": the version of the CMake project and
/// the commit it was built from ("-dirty" with uncommitted changes,
/// "unknown" outside a git checkout).
std::string versionLine();

} // namespace fusec

#endif // FUSEC_SUPPORT_VERSION_H
