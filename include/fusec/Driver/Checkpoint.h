//===- Checkpoint.h - Training checkpoints ----------------------*- C++ -*-===//
//
// A checkpoint holds everything a training run needs to continue bit for
// bit: the named tensors of the step's state (parameters, optimizer state,
// loss-scale state) and the counters of the loop (steps done, the data
// order's seed and whether it shuffles, the batch size and sample count it
// was taken with). On disk, a checkpoint directory DIR holds
//
//   DIR/step-<N>/t<i>.npy       the tensors
//   DIR/step-<N>/manifest.json  names, files, counters (written last)
//   DIR/latest                  the name of the newest complete step-<N>
//
// A checkpoint is written into a temporary directory (every file fsynced,
// the manifest last), renamed to step-<N>, and only then named by `latest`
// (itself replaced atomically), so a crash at any moment leaves the
// previous checkpoint loadable. The two newest are kept.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DRIVER_CHECKPOINT_H
#define FUSEC_DRIVER_CHECKPOINT_H

#include "fusec/Support/Buffer.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fusec {

struct Checkpoint {
  int64_t step = 0;
  uint64_t seed = 0;
  bool shuffle = false;
  int64_t batchSize = 0, samples = 0;
  std::vector<std::pair<std::string, Buffer>> tensors;
};

/// Writes `checkpoint` under `dir` (created if needed) as described above.
bool writeCheckpoint(const std::string &dir, const Checkpoint &checkpoint,
                     std::string &error);

/// Reads the checkpoint `dir/latest` names; errors name the file at fault.
bool readCheckpoint(const std::string &dir, Checkpoint &checkpoint,
                    BufferAllocator &allocator, std::string &error);

/// Writes named tensors into `dir` as `<name>.npy` (names made safe for a
/// file name) with a manifest.json listing name, file, dtype and shape, all
/// files or none (writeFilesAtomically). `written` gets one line per file.
bool writeNamedTensors(const std::string &dir,
                       const std::vector<std::pair<std::string, Buffer>> &named,
                       std::vector<std::string> &written, std::string &error);

} // namespace fusec

#endif // FUSEC_DRIVER_CHECKPOINT_H
