// Moving a tuning database's records to this build's schedule versions, for commits that change a
// variant's sources without changing its kernels (a new variant in the op's generator moves the
// version of every variant of the op). Run it only after tools/kernel-identity.py has shown the
// kernels of the records' choices unchanged between the two builds (docs/PERFORMANCE.md has the
// commands); a record that is merely stale must be measured again instead (`cortado tune`).
#pragma once

#include <string>

namespace cortado {

// Rewrites `file` in place: the schedule version of every measured record whose variant this
// build knows becomes the current one; other lines stay as they are, byte for byte. Reports
// per variant how many records moved, from which versions. Returns how many moved.
int restamp_tuning_records(const std::string &file);

}  // namespace cortado
