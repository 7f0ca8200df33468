// The Hexagon HVX family (v68+, fp32 vectors): every op offloaded to the DSP.
#pragma once

#include "schedules/conv2d_pool_space.h"
#include "schedules/hvx/conv2d_int8_space.h"
#include "schedules/space.h"

namespace cortado::schedules::hvx {

inline FamilySpace space() {
    FamilySpace f;
    f.name = "hvx";
    f.op<Conv2dShape>() = single_variant(plain_variant<Conv2dShape>("hvx_register_tile", {"schedules/hvx/conv2d.h"}));
    f.op<Conv2dInt8Shape>() = single_variant(conv2d_int8_channel_lanes());
    f.op<Conv2dPoolShape>() =
        conv2d_pool_space({plain_variant<Conv2dPoolShape>("hvx_conv_pool_rows", {"schedules/hvx/conv2d_pool.h"})});
    f.op<PoolingShape>() = single_variant(plain_variant<PoolingShape>("hvx_direct", {"schedules/hvx/memory_bound.h"}));
    f.op<PadShape>() = single_variant(plain_variant<PadShape>("hvx_direct", {"schedules/hvx/memory_bound.h"}));
    f.op<LRNShape>() = single_variant(plain_variant<LRNShape>("hvx_direct", {"schedules/hvx/memory_bound.h"}));
    VariantSpec<InnerProductShape> ip;
    ip.name = "hvx_lane_partials";
    ip.sources = {"schedules/hvx/memory_bound.h"};
    ip.knobs = {{"lanes", 1, 128, "interleaved partial sums per dot product"}};
    ip.complete = [](const InnerProductShape &, const TargetInfo &, Knobs &k) {
        if (!k.has("lanes")) k.set("lanes", 32);  // one 1024-bit vector of floats
    };
    f.op<InnerProductShape>() = single_variant(ip);
    f.op<SoftmaxShape>() = single_variant(plain_variant<SoftmaxShape>("hvx_direct", {"schedules/hvx/memory_bound.h"}));
    f.op<ConcatShape>() = single_variant(plain_variant<ConcatShape>("hvx_direct", {"schedules/hvx/memory_bound.h"}));
    f.op<Deconv2dShape>() = single_variant(plain_variant<Deconv2dShape>("hvx_direct", {"schedules/hvx/deconv2d.h"}));
    f.op<ResizeShape>() = single_variant(plain_variant<ResizeShape>("hvx_direct", {"schedules/hvx/memory_bound.h"}));
    f.op<RearrangeShape>() =
        single_variant(plain_variant<RearrangeShape>("hvx_direct", {"schedules/hvx/memory_bound.h"}));
    f.op<ReluShape>() = single_variant(plain_variant<ReluShape>("hvx_direct", {"schedules/hvx/memory_bound.h"}));
    f.op<ActivationShape>() =
        single_variant(plain_variant<ActivationShape>("hvx_direct", {"schedules/hvx/memory_bound.h"}));
    f.op<EltwiseShape>() = single_variant(plain_variant<EltwiseShape>("hvx_direct", {"schedules/hvx/memory_bound.h"}));
    f.op<ChannelAffineShape>() =
        single_variant(plain_variant<ChannelAffineShape>("hvx_direct", {"schedules/hvx/memory_bound.h"}));
    return f;
}

}  // namespace cortado::schedules::hvx
