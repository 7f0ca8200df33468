// The tables an emitted network is made of. `cortado compile` writes one NetworkDescription
// per network as constant data; the runtime interprets it: it checks and packs the weights
// once at create time, lays tensors out in one arena, and calls the compiled kernels in order.
#pragma once

#include <cstdint>

#include "runtime/filler_spec.h"

struct halide_device_interface_t;  // HalideRuntime.h; the glue does not need the whole header

namespace cortado {

// The most axes of a tensor (ONNX's 6-D Transpose of PixelShuffle); the network's input and
// output have at most 4 (the C API's NAME_input_shape).
constexpr int kMaxRank = 6;
constexpr int kMaxInputOutputRank = 4;

// A Halide pipeline compiled ahead of time, called through its `_argv` entry point.
using KernelEntry = int (*)(void **args);

// For GPU targets, Halide's device interface (halide_cuda_device_interface, ...); null for CPUs.
using DeviceInterfaceGetter = const ::halide_device_interface_t *(*)();

// A learned blob as Caffe stores it, with the filler used when no weights file is given.
struct BlobSpec {
    const char *layer;
    int index;  // position in the layer's blobs
    int rank;
    int64_t shape[kMaxRank];
    FillerSpec filler;
};

// How a kernel's parameter buffer is made from the blobs.
enum class Packing : int {
    Copy = 0,            // blob as is
    Transpose = 1,       // K x N blob -> N x K (InnerProduct transpose: true)
    Zeros = 2,           // no blob (bias_term: false)
    BatchNormScale = 3,  // 1 / sqrt(var / f + eps), blobs (mean, var, factor)
    BatchNormShift = 4,  // -mean / f * scale
    // GEMM panels (ops/choice.h WeightPacking): output channels cut into panels of
    // panel_width, each stored k-major with its channels innermost, the last zero-padded.
    Panels = 5,             // from an outputs x K blob (Caffe's order)
    PanelsOfTranspose = 6,  // from a K x outputs blob (InnerProduct transpose: true)
    // Winograd F(m×m, r×r) (ops/winograd.h): each output's r×r kernel per input
    // channel as G g Gᵀ, in panels of panel_width outputs per position of the α×α transform:
    // (lane, input, panel, position), from an outputs x inputs x r x r blob (rows x cols x r²).
    WinogradF2Panels = 7,    // F(2×2, 3×3)
    WinogradF4Panels = 8,    // F(4×4, 3×3)
    WinogradF2K5Panels = 9,  // F(2×2, 5×5)
    Ones = 10,               // no blob: Bias's scale
    // The int8 convolution's (ops/conv2d_int8.h), from an outputs x (cols x kernel area) blob:
    // the weights quantized per output channel, in panels of panel_width outputs, four input
    // channels to a word; the kernel sees the buffer as bytes.
    Int8Panels = 11,
    Int8ChannelTerms = 12,  // the same weights' scale per output channel, then their quantized sum
    // The half-precision convolution's (ops/conv2d_fp16.h): Panels of an outputs x K blob, each
    // weight rounded to half, two to a float; the kernel sees the buffer as halves.
    Fp16Panels = 13,
};

struct ParamSpec {
    Packing packing;
    int first_blob;  // index into NetworkDescription::blobs; BatchNorm uses three in a row
    int64_t count;   // floats in the packed buffer
    // Transpose, Panels, PanelsOfTranspose: the blob is rows x cols. Int8Panels,
    // Int8ChannelTerms: rows outputs of cols input channels x the kernel's area.
    int64_t rows, cols;
    float eps;        // BatchNorm
    int panel_width;  // Panels, PanelsOfTranspose
    // Int8Panels, Int8ChannelTerms: the weights' scale per output channel, where the model gave
    // its weights as int8 (ConvolutionParams::int8_weight_scales); null: max |w| / weight_levels.
    const float *channel_scales;
    int weight_levels;  // Int8Panels, Int8ChannelTerms: ops::kInt8WeightLevels or kInt8PairSumLevels
};

// A per-output-channel affine folded into a product's weights and bias before packing
// (frontend/affine_folding.h): w[o] *= a[o], bias[o] = bias[o] a[o] + c[o], where a BatchNorm
// (blobs mean, var, factor from `first_blob`) gives a = 1/sqrt(var/f + eps), c = -mean/f a, and a
// Scale (gamma at `first_blob`, beta after it when `shift`) gives a = gamma, c = beta or 0. The
// weights are `outputs` rows of `inner` values, or `inner` rows of `outputs` when `transposed`.
struct FoldSpec {
    int weights_blob, bias_blob;
    int64_t outputs, inner;
    int transposed;
    int batch_norm;
    int first_blob;
    int shift;
    float eps;
};

// An activation tensor placed in the arena; aliases (Split, Flatten, Reshape, Dropout) share
// an offset.
struct TensorSpec {
    const char *blob_name;
    int64_t offset;  // floats from the start of the arena
    int rank;
    int64_t shape[kMaxRank];
    // 0: stored as its shape says (NCHW); b > 0: an N x C x H x W tensor stored channel-blocked
    // (ops/choice.h, Layout), which the blob callback is shown as NCHW.
    int channel_block;
    // > 0: its images lie this many floats apart (its slice of each image of a concatenation
    // written in place), which the blob callback is shown dense; 0: dense.
    int64_t batch_stride;
};

// One kernel argument: a view of a tensor or of a parameter buffer, in Halide's innermost-first
// order, dense but for the tensor's batch stride.
struct ViewSpec {
    int tensor;  // >= 0: TensorSpec index; < 0: ParamSpec index -1 - tensor
    int rank;
    int extents[kMaxRank];
    int batch_dim;         // the dimension that steps by batch_stride (dimensions after it are 1)
    int64_t batch_stride;  // 0: dense
};

struct StepSpec {
    const char *layer;
    KernelEntry entry;  // null for layers that only alias (no kernel runs)
    int first_view;
    int view_count;     // inputs then the output
    int output_tensor;  // reported to the blob callback after the step
};

struct NetworkDescription {
    const char *name;
    int64_t arena_floats;
    const TensorSpec *tensors;
    int tensor_count;
    int input_tensor, output_tensor;
    const BlobSpec *blobs;
    int blob_count;
    const ParamSpec *params;
    int param_count;
    const ViewSpec *views;
    int view_count;
    const StepSpec *steps;
    int step_count;
    // GPU targets keep every tensor in one device arena; the host arena mirrors it for the
    // input, the output and blob dumps.
    DeviceInterfaceGetter device_interface;
    // CUDA only: registers per thread the kernels were scheduled for; the runtime raises Halide's
    // JIT cap (64) to it when the network is created (runtime/cuda_register_cap.h). 0: leave it.
    int cuda_registers_per_thread;
    // OpenCL only: options for the driver's compiler, from the target description (e.g. NVIDIA's
    // -cl-nv-maxrregcount); the runtime hands them to Halide when the network is created
    // (runtime/opencl_build_options.h). Empty: none.
    const char *opencl_build_options;
    const FoldSpec *folds;  // applied in order to the loaded blobs, before packing
    int fold_count;
    // Compiled for a batch above 1: the same network at batch 1, which NAME_forward_batch runs
    // image by image for a smaller batch (its kernels are fixed to their shapes). Null otherwise.
    const NetworkDescription *single_image;
};

}  // namespace cortado
