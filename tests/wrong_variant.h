// The name of the deliberately wrong variant that tests/wrong_variant.cc registers for the CPU
// families' convolutions in the binaries that link it.
#pragma once

namespace cortado::testing {

inline constexpr const char *kWrongVariant = "test_wrong_scaled";

}  // namespace cortado::testing
