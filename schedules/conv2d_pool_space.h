// The fused convolution and MAX pooling's space in every family (Halide-free; ops/conv2d_pool.h):
// `unfused`, the default, and the family's fused variants.
#pragma once

#include <utility>
#include <vector>

#include "ops/conv2d_pool.h"
#include "schedules/space.h"

namespace cortado::schedules {

// The variant that is not a kernel: the planner runs the pair as the convolution's and the
// pooling's own steps. Every family offers it, as the default, so a pair fuses only where a
// record measured a fused variant faster (the tuner times this one as the pair's two steps).
inline VariantSpec<Conv2dPoolShape> conv2d_pool_unfused() {
    return plain_variant<Conv2dPoolShape>(ops::kUnfusedConvPool, {"ops/conv2d_pool.h"});
}

// The space of one family: `unfused` and its fused variants, `unfused` the default.
inline OpSpace<Conv2dPoolShape> conv2d_pool_space(std::vector<VariantSpec<Conv2dPoolShape>> fused) {
    OpSpace<Conv2dPoolShape> space;
    space.variants.push_back(conv2d_pool_unfused());
    for (auto &v : fused) space.variants.push_back(std::move(v));
    space.default_variant = [](const Conv2dPoolShape &, const TargetInfo &) { return ops::kUnfusedConvPool; };
    return space;
}

}  // namespace cortado::schedules
