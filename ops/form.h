// What a variant computes: the algorithm its generator builds, a typed property each variant
// registers once (schedules/space.h, VariantSpec::form). The planner copies it into the choice,
// so the planner, the generators and the runtime read it there, never from the variant's name.
#pragma once

#include <cstdio>
#include <stdexcept>
#include <string>

namespace cortado::ops {

enum class Algorithm {
    Direct,        // the op's own algorithm (for a convolution: output x in the vector lanes)
    ChannelLanes,  // a convolution with the output channels in the vector lanes
    Winograd,      // a convolution by Winograd's minimal filtering F(m×m, r×r) (ops/winograd.h)
    Gemm,          // the op as a GEMM over packed weight panels (ops/gemm.h)
    // An int8 convolution whose word of four products is summed as two pairs in saturating 16-bit
    // lanes first (x86's vpmaddubsw; exact for weights of 7 bits, ops/conv2d_int8.h), then the
    // pairs into 32 bits (vpmaddwd by ones).
    PairSums,
};

// How a convolution's GEMM lays the layer onto the product, which its generator and the
// planner's views must agree on: a fully-connected layer (the image a row of a), a 1x1 layer with
// pixels in the vector lanes (the weights are a), or with channels in the lanes (the weights are
// b, C written transposed).
enum class ConvGemmForm { FullyConnected, PixelLanes, ChannelLanes };

struct Form {
    Algorithm algorithm = Algorithm::Direct;
    int winograd_m = 0, winograd_r = 0;                 // Winograd: output tile m×m of an r×r kernel
    ConvGemmForm gemm_form = ConvGemmForm::PixelLanes;  // a convolution's Gemm

    static Form direct() { return {}; }
    static Form channel_lanes() { return {Algorithm::ChannelLanes, 0, 0, ConvGemmForm::PixelLanes}; }
    static Form winograd(int m, int r) { return {Algorithm::Winograd, m, r, ConvGemmForm::PixelLanes}; }
    static Form conv_gemm(ConvGemmForm form) { return {Algorithm::Gemm, 0, 0, form}; }
    static Form gemm() { return conv_gemm(ConvGemmForm::PixelLanes); }
    static Form pair_sums() { return {Algorithm::PairSums, 0, 0, ConvGemmForm::PixelLanes}; }

    bool is(Algorithm a) const { return algorithm == a; }
    bool is_conv_gemm(ConvGemmForm form) const { return algorithm == Algorithm::Gemm && gemm_form == form; }
    bool operator==(const Form &o) const {
        return algorithm == o.algorithm && winograd_m == o.winograd_m && winograd_r == o.winograd_r &&
               gemm_form == o.gemm_form;
    }
};

// As a descriptor field: direct, channel_lanes, pair_sums, winograd_f<m>x<r>, gemm_fully_connected,
// gemm_pixel_lanes, gemm_channel_lanes.
inline std::string field_value(const Form &f) {
    switch (f.algorithm) {
    case Algorithm::ChannelLanes: return "channel_lanes";
    case Algorithm::PairSums: return "pair_sums";
    case Algorithm::Winograd: return "winograd_f" + std::to_string(f.winograd_m) + "x" + std::to_string(f.winograd_r);
    case Algorithm::Gemm:
        return f.gemm_form == ConvGemmForm::FullyConnected ? "gemm_fully_connected"
               : f.gemm_form == ConvGemmForm::ChannelLanes ? "gemm_channel_lanes"
                                                           : "gemm_pixel_lanes";
    case Algorithm::Direct: break;
    }
    return "direct";
}
inline void parse_field(const std::string &text, Form &f) {
    if (text == "direct") f = Form::direct();
    else if (text == "channel_lanes") f = Form::channel_lanes();
    else if (text == "pair_sums") f = Form::pair_sums();
    else if (text == "gemm_fully_connected") f = Form::conv_gemm(ConvGemmForm::FullyConnected);
    else if (text == "gemm_pixel_lanes") f = Form::conv_gemm(ConvGemmForm::PixelLanes);
    else if (text == "gemm_channel_lanes") f = Form::conv_gemm(ConvGemmForm::ChannelLanes);
    else if (int m = 0, r = 0; std::sscanf(text.c_str(), "winograd_f%dx%d", &m, &r) == 2 && m > 0 && r > 0 &&
                               text == "winograd_f" + std::to_string(m) + "x" + std::to_string(r))
        f = Form::winograd(m, r);
    else throw std::invalid_argument("unknown form '" + text + "'");
}

}  // namespace cortado::ops
