// Double-precision reference implementations of the Caffe layers cortado compiles. Tests compare
// the compiled (float) networks against these, so they are written as plain loops straight from
// Caffe's definitions: slow, but easy to check by eye.
//
// Every function throws std::runtime_error when its operands do not fit together (wrong rank,
// blob sizes that do not match the parameters, ...). Learned blobs are checked by element count
// only: their data is read row-major in the layout Caffe documents, whatever rank the shape
// vector has (a caffemodel may store an InnerProduct weight as 1x1xNxK).
#pragma once

#include <vector>

#include "frontend/graph.h"
#include "frontend/layer_params.h"

namespace cortado::reference {

// Row-major, Caffe's NCHW order.
struct Tensor {
    Shape shape;
    std::vector<double> data;
};

// weights: Cout x (Cin/group) x kernel_h x kernel_w. bias (Cout values) is read only when
// p.bias_term is set and must then be given. With p.fused_sum, adds `residual` (the output's
// shape) before the activations fused into p.
Tensor convolution(const Tensor &in, const ConvolutionParams &p, const Tensor &weights, const Tensor *bias,
                   const Tensor *residual = nullptr);

// x > 0 ? x : negative_slope * x, except that -inf gives 0 when the slope is 0 (cortado keeps
// Caffe's value for finite x but not its NaN for -inf) and NaN stays NaN.
double relu_value(double x, double negative_slope);
Tensor relu(const Tensor &in, float negative_slope);

// The function of ops::ActivationFunction, in double precision, with IEEE's results for
// non-finite x (clip and the ELUs keep NaN; HardSwish, Silu and the GELUs of -inf are -inf * 0 = NaN).
double activation_value(double x, const ActivationParams &p);
Tensor activation(const Tensor &in, const ActivationParams &p);

// The activations fusion gave a layer (its params' fused_relu, then fused_activation) on x.
template <typename Params>
double apply_fused(double x, const Params &p) {
    if (p.fused_relu) x = relu_value(x, p.relu_negative_slope);
    if (p.fused_activation) x = activation_value(x, *p.fused_activation);
    return x;
}

// x < 0 ? x * slope[c] : x, c the channel (axis 1); a one-value slope is shared by all channels.
Tensor prelu(const Tensor &in, const Tensor &slope);

// out_shape comes from shape inference, so this does not redo Caffe's output-size rounding.
// MAX takes the maximum over the window clipped to the image (padding never wins; a NaN in the
// window wins, unlike Caffe's MAX); AVE divides
// by Caffe's window size, which counts padding but not the part past the padded border.
// global_pooling makes the kernel the whole plane.
Tensor pooling(const Tensor &in, const PoolingParams &p, const Shape &out_shape);

// Each plane placed at (p.left, p.top) in a plane p.value elsewhere.
Tensor pad(const Tensor &in, const PadParams &p);

// Caffe's LRNLayer. WITHIN_CHANNEL follows Caffe's composite (square, AVE pool with padding,
// power with shift 1, product), so it ignores p.k exactly as Caffe does.
Tensor lrn(const Tensor &in, const LRNParams &p);

// M = prod(in.shape[0:axis]), K = prod(in.shape[axis:]); weights N x K (K x N when
// p.transpose); bias N values when p.bias_term. Output shape in.shape[0:axis] + [N].
Tensor inner_product(const Tensor &in, const InnerProductParams &p, const Tensor &weights, const Tensor *bias);

Tensor softmax(const Tensor &in, int axis);

Tensor concat(const std::vector<const Tensor *> &ins, int axis);

// SUM weighted by p.coeff (empty means all 1), PROD or MAX (a NaN wins) of same-shaped inputs.
Tensor eltwise(const std::vector<const Tensor *> &ins, const EltwiseParams &p);

// Caffe's use_global_stats form: the stored mean and variance are divided by scale_factor[0]
// (a zero factor zeroes them), then y = (x - mean[c]) / sqrt(variance[c] + eps) along axis 1.
Tensor batch_norm(const Tensor &in, const BatchNormParams &p, const Tensor &mean, const Tensor &variance,
                  const Tensor &scale_factor);

// scale (and bias, when p.bias_term) cover in.shape[axis, axis + num_axes) and are broadcast
// over the outer and inner dimensions; num_axes -1 means "to the last axis".
Tensor scale(const Tensor &in, const ScaleParams &p, const Tensor &scale, const Tensor *bias);

// Output axis i is input axis perm[i].
Tensor transpose(const Tensor &in, const std::vector<int> &perm);
// The strided window p.starts, p.steps, p.sizes (filled, for Caffe's form, by shape inference).
Tensor crop(const Tensor &in, const CropParams &p);
// Consecutive pieces of `in` along `axis`, of the given shapes.
std::vector<Tensor> slice(const Tensor &in, int axis, const std::vector<Shape> &out_shapes);
// The transposed convolution of DeconvolutionParams, as a scatter of each input pixel's kernel.
Tensor deconvolution(const Tensor &in, const DeconvolutionParams &p, const Shape &out_shape, const Tensor &weights,
                     const Tensor *bias);
// ONNX's Resize of the spatial axes (nearest or bilinear, the coordinate clamped to the plane).
Tensor resize(const Tensor &in, const ResizeParams &p);
// Numpy broadcasting to `shape`.
Tensor expand(const Tensor &in, const Shape &shape);

}  // namespace cortado::reference
