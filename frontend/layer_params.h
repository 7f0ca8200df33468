// Typed parameters of every layer type cortado compiles, with Caffe's defaults. One struct per
// layer type; `LayerParams` holds exactly one of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ops/elementwise.h"
#include "ops/pooling.h"

namespace cortado {

// Caffe's FillerParameter: how `cortado run --seed` makes weights when none are given.
struct Filler {
    std::string type = "constant";  // constant, gaussian, uniform, xavier, msra
    float value = 0.0f;
    float min = 0.0f, max = 1.0f;
    float mean = 0.0f, std = 1.0f;
    enum class VarianceNorm { FanIn, FanOut, Average } variance_norm = VarianceNorm::FanIn;
    bool given = false;  // written in the prototxt (an absent filler is Caffe's constant 0)
};

struct InputParams {};

struct ReLUParams {
    float negative_slope = 0.0f;
};

// The activations of ops::ActivationFunction, whose comment says which parameters each reads.
// Clip's bounds are Caffe's clip_param, or ONNX's (an absent one is float's lowest or largest
// value, as onnxruntime takes it).
struct ActivationParams {
    ops::ActivationFunction function = ops::ActivationFunction::Sigmoid;
    float min = 0.0f, max = 0.0f;
    float alpha = 1.0f, beta = 0.0f, gamma = 1.0f;
};

// A per-output-channel affine that followed a Convolution or InnerProduct and is folded into
// its weights and bias when the network is created (frontend/affine_folding.h): a BatchNorm's
// (x - mean/f) / sqrt(var/f + eps) or a Scale's gamma x (+ beta). Its blobs stay the folded
// layer's, as the weights file holds them.
struct FoldedAffine {
    std::string layer;
    bool batch_norm = false;
    float eps = 0.0f;    // BatchNorm
    bool shift = false;  // Scale: has beta
    std::vector<std::vector<int64_t>> weight_shapes;
    Filler filler, bias_filler;  // Scale's, for seeded weights
};

// How an int8 convolution quantizes its input (ops/conv2d_int8.h), from the calibration
// (`cortado quantize`).
struct Int8Input {
    float scale = 1.0f;
    int zero_point = 0;
    std::string input_blob;  // the blob it was calibrated on, checked against the layer's; "": not
    // The positive levels its weights quantize to (ops::kInt8WeightLevels, or kInt8PairSumLevels
    // where the target sums products in pairs): set by the precision pass from ImportOptions.
    int weight_levels = 127;
};

struct ConvolutionParams {
    int num_output = 0;
    bool bias_term = true;
    int kernel_h = 0, kernel_w = 0;
    int stride_h = 1, stride_w = 1;
    int pad_h = 0, pad_w = 0;
    int dilation_h = 1, dilation_w = 1;
    int group = 1;
    Filler weight_filler, bias_filler;
    // Set by fusion (fuse_residual_sums): the layer's second input is added to its output, after
    // the bias and before the ReLU (an Eltwise sum that followed it).
    bool fused_sum = false;
    // Set by fusion: apply ReLU (with this slope) to the output.
    bool fused_relu = false;
    float relu_negative_slope = 0.0f;
    std::optional<ActivationParams> fused_activation;  // set by fusion: after the ReLU
    std::vector<FoldedAffine> folded_affines;          // set by fold_affines, applied in order
    // Set by the precision pass (frontend/int8_precision.h): the layer computes in int8.
    std::optional<Int8Input> int8_input;
    // Where the model gave its weights as symmetric int8 (ONNX's DequantizeLinear of an int8
    // constant): their scale per output channel, so that an int8 kernel multiplies the model's
    // own integers rather than ones requantized by max |w| (ops/conv2d_int8.h). Empty otherwise.
    std::vector<float> int8_weight_scales;
    // Set by the precision pass (frontend/fp16_precision.h): the layer computes in half precision.
    bool fp16 = false;
    // Set by fusion (fuse_max_poolings): the next layer is a MAX pooling that alone reads this
    // layer's output, which the planner may run with it as one kernel (ops/conv2d_pool.h).
    bool pooling_follows = false;
};

// The transposed convolution: ONNX's ConvTranspose and Caffe's Deconvolution (whose
// convolution_param reads as a convolution's). The output is stride (in - 1) + dilation
// (kernel - 1) + 1 - the pads + output_pad per axis; weights are in x out/group x kh x kw.
struct DeconvolutionParams {
    int num_output = 0;
    bool bias_term = true;
    int kernel_h = 0, kernel_w = 0;
    int stride_h = 1, stride_w = 1;
    int pad_h = 0, pad_w = 0;             // top and left
    int pad_bottom = -1, pad_right = -1;  // -1: as pad_h and pad_w
    int dilation_h = 1, dilation_w = 1;
    int group = 1;
    int output_pad_h = 0, output_pad_w = 0;
    Filler weight_filler, bias_filler;

    int bottom_pad() const { return pad_bottom < 0 ? pad_h : pad_bottom; }
    int right_pad() const { return pad_right < 0 ? pad_w : pad_right; }
};

// Caffe's PReLU and ONNX's PRelu with a slope per channel (axis 1) or one shared slope.
struct PReLUParams {
    bool channel_shared = false;
    Filler filler;  // Caffe's default: constant 0.25
};

// Caffe's Bias layer: adds a learned blob along axes [axis, axis + num_axes) of the input.
struct BiasParams {
    int axis = 1;
    int num_axes = 1;
    Filler filler;
};

struct PoolingParams {
    enum class Method { Max, Average } method = Method::Max;
    int kernel_h = 0, kernel_w = 0;
    int stride_h = 1, stride_w = 1;
    int pad_h = 0, pad_w = 0;             // the top and left pads; Caffe's pads are symmetric
    int pad_bottom = -1, pad_right = -1;  // -1: as pad_h and pad_w (ONNX's pads may differ)
    bool global_pooling = false;
    bool round_up = true;  // Caffe's default CEIL rounding of the output size
    // AVE's divisor: the window clipped to the padded input (Caffe; ONNX's count_include_pad=1),
    // or, when false, the cells of the window inside the input (count_include_pad=0).
    bool count_padding = true;
    // The output-size rule that the last window must start inside the input or its leading pad:
    // ONNX (onnxruntime, PyTorch) applies it always, Caffe only when a pad is set.
    bool last_window_rule_always = false;

    int bottom_pad() const { return pad_bottom < 0 ? pad_h : pad_bottom; }
    int right_pad() const { return pad_right < 0 ? pad_w : pad_right; }
};

// The pooling op's shape for a Pooling layer from `in` to `out` (N, C, H, W): global pooling as a
// window the size of the input. Only AVE's divisor reads the far pads and the padding rule; MAX
// leaves them at their defaults, so that equal MAX layers from either frontend share one kernel.
inline ops::PoolingShape pooling_shape(const PoolingParams &p, const std::vector<int64_t> &in,
                                       const std::vector<int64_t> &out) {
    ops::PoolingShape s;
    s.batch = int(in[0]), s.channels = int(in[1]), s.in_h = int(in[2]), s.in_w = int(in[3]);
    s.out_h = int(out[2]), s.out_w = int(out[3]);
    s.kernel_h = p.global_pooling ? int(in[2]) : p.kernel_h, s.kernel_w = p.global_pooling ? int(in[3]) : p.kernel_w;
    s.stride_h = p.stride_h, s.stride_w = p.stride_w, s.pad_h = p.pad_h, s.pad_w = p.pad_w;
    s.average = p.method == PoolingParams::Method::Average;
    if (s.average) {
        s.pad_bottom = p.bottom_pad(), s.pad_right = p.right_pad();
        s.count_padding = p.count_padding;
    }
    return s;
}

// A border around each plane (ONNX's Pad; no Caffe layer has it): ops/pad.h's modes.
struct PadParams {
    int top = 0, left = 0, bottom = 0, right = 0;
    float value = 0.0f;
    std::string mode = "constant";
};

struct LRNParams {
    int local_size = 5;
    float alpha = 1.0f, beta = 0.75f, k = 1.0f;
    enum class Region { AcrossChannels, WithinChannel } region = Region::AcrossChannels;
};

struct InnerProductParams {
    int num_output = 0;
    bool bias_term = true;
    int axis = 1;
    bool transpose = false;  // weights stored K x N instead of N x K
    // A 2-D input stored K x M, read transposed (ONNX Gemm's transA; no Caffe layer has it).
    bool transpose_input = false;
    Filler weight_filler, bias_filler;
    bool fused_relu = false;
    float relu_negative_slope = 0.0f;
    std::optional<ActivationParams> fused_activation;  // set by fusion: after the ReLU
    std::vector<FoldedAffine> folded_affines;          // set by fold_affines, applied in order
};

struct SoftmaxParams {
    int axis = 1;
};

struct ConcatParams {
    int axis = 1;
    // Set by fusion (frontend/fusion.h): the producers may write straight into their slices, where
    // the planner can place them there (compiler/kernel_plan.cc), so no kernel copies them.
    bool in_place = false;
};

struct EltwiseParams {
    ops::EltwiseOperation operation = ops::EltwiseOperation::Sum;  // the generator's enum: one for both
    std::vector<float> coeff;                                      // one per input for Sum; empty means all 1
    bool fused_relu = false;                                       // set by fusion: ResNet's sum -> ReLU in one kernel
    float relu_negative_slope = 0.0f;
    std::optional<ActivationParams> fused_activation;  // set by fusion: after the ReLU
};

struct DropoutParams {
    float dropout_ratio = 0.5f;
};

struct SplitParams {};

struct FlattenParams {
    int axis = 1;
    int end_axis = -1;
};

struct ReshapeParams {
    std::vector<int64_t> shape;  // 0 copies the input dim, -1 is inferred
    int axis = 0;
    int num_axes = -1;
};

struct BatchNormParams {
    bool use_global_stats = true;
    float eps = 1e-5f;
    // Set by fusion: the per-channel Scales after it, applied in order (fold_affines), and a ReLU
    // on the result (fuse_activations).
    std::vector<FoldedAffine> folded_affines;
    bool fused_relu = false;
    float relu_negative_slope = 0.0f;
    std::optional<ActivationParams> fused_activation;  // set by fusion: after the ReLU
};

struct ScaleParams {
    int axis = 1;
    int num_axes = 1;
    bool bias_term = false;
    Filler filler, bias_filler;
    bool fused_relu = false;  // set by fusion
    float relu_negative_slope = 0.0f;
    std::optional<ActivationParams> fused_activation;  // set by fusion: after the ReLU
};

// Data movement, each a strided copy (ops/rearrange.h) in the plan.
// ONNX's Transpose of computed data: output axis i is input axis perm[i].
struct TransposeParams {
    std::vector<int> perm;
};

// A strided window of the input, per axis: the first element, the step (negative runs
// backwards) and the count. ONNX's Slice of computed data gives them; Caffe's Crop gives `axis`
// and `offsets`, and shape inference fills the window from its second bottom's shape.
struct CropParams {
    std::vector<int64_t> starts, steps, sizes;
    int axis = 2;
    std::vector<int64_t> offsets;  // Caffe: one for all cropped axes, or one each
    bool from_reference = false;   // Caffe's form: the sizes are the second bottom's
};

// Cuts the input along `axis` into one output per piece: Caffe's Slice (slice points, or equal
// pieces when there are none) and ONNX's Split (sizes, or equal pieces).
struct SliceParams {
    int axis = 1;
    std::vector<int64_t> points;  // where each piece after the first begins; empty: equal pieces
};

// Numpy broadcasting of the input to `shape` (ONNX's Expand of computed data, and the inputs of
// element-wise ops whose shapes differ).
struct ExpandParams {
    std::vector<int64_t> shape;
};

// ONNX's Resize and Upsample of the spatial axes of an NCHW tensor (ops/resize.h says what the
// mode, coordinate transformation and rounding mean).
struct ResizeParams {
    int out_h = 1, out_w = 1;
    // The scales the coordinate transformation divides by: given, or the sizes over the input's
    // (kept in double, as ONNX's reference computes them; the kernels use their float value).
    double scale_h = 1.0, scale_w = 1.0;
    std::string mode = "nearest", coordinates = "half_pixel", rounding = "round_prefer_floor";
};

// A constant tensor (an ONNX initializer or Constant) used where computed data goes: its one
// blob, copied into the network's memory, has `shape`.
struct ConstantParams {
    std::vector<int64_t> shape;
};

using LayerParams =
    std::variant<InputParams, ConvolutionParams, ReLUParams, ActivationParams, PoolingParams, PadParams, LRNParams,
                 InnerProductParams, SoftmaxParams, ConcatParams, EltwiseParams, DropoutParams, SplitParams,
                 FlattenParams, ReshapeParams, BatchNormParams, ScaleParams, PReLUParams, BiasParams, TransposeParams,
                 CropParams, SliceParams, ExpandParams, ConstantParams, ResizeParams, DeconvolutionParams>;

}  // namespace cortado
